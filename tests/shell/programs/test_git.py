"""git's reader (`shell.programs.git.read`): each way of giving configuration, each family of
command-valued keys, git's variables and options, and what they hand over. Pure: the files
reader is a small stand-in here (tests/shell/programs/test_git_files.py reads real files)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.shell.bash_runs import argv_runs, bash_runs
from shellgate.shell.programs.git import is_config_path, read, read_written
from shellgate.shell.programs.git_format import parse_config
from shellgate.shell.programs.git_keys import KEYS, Kind, key_kind
from shellgate.shell.programs.git_words import (
    config_parameters,
    ext_argv,
    is_bool,
    split_cmdline,
)
from shellgate.shell.programs.handed import Environment, GitFiles, Handed


def _read(
    words: str | list[str], env: Environment | None = None, **kw: object
) -> tuple[Handed, ...]:
    argv = words.split() if isinstance(words, str) else words
    return read(tuple(argv), frozenset(), env or {}, **kw)  # type: ignore[arg-type]


def _commands(handed: tuple[Handed, ...]) -> list[tuple[str, ...]]:
    """The commands bash runs for what git was handed (shell read as `sh -c`, argv as such)."""
    out: list[tuple[str, ...]] = []
    for h in handed:
        if h.shell is not None:
            out += [r.words for r in bash_runs(h.shell)]
        elif h.argv is not None:
            out += [r.words for r in argv_runs(h.argv)]
    return out


def _runs_rm(handed: tuple[Handed, ...]) -> bool:
    return any(words and words[0].rpartition("/")[2] == "rm" for words in _commands(handed))


RM = "rm -rf build #"


# --- the issue's spellings, and each way of giving configuration ------------------------------


@pytest.mark.parametrize(
    ("words", "env", "how"),
    [
        (["git", "-c", "alias.x=!rm -rf build", "x"], {}, "alias `x`, set by -c"),
        (["git", "x"], {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "alias.x",
                        "GIT_CONFIG_VALUE_0": "!rm -rf build"},
         "alias `x`, set by GIT_CONFIG_COUNT"),
        (["git", "x"], {"GIT_CONFIG_PARAMETERS": "'alias.x'='!rm -rf build'"},
         "alias `x`, set by GIT_CONFIG_PARAMETERS"),
        (["git", "x"], {"GIT_CONFIG_PARAMETERS": "'alias.x=!rm -rf build' 'a.b'='c'"},
         "alias `x`, set by GIT_CONFIG_PARAMETERS"),
        (["git", "--config-env=alias.x=A", "x"], {"A": "!rm -rf build"},
         "alias `x`, set by --config-env from A"),
        (["git", "--config-env", "alias.x=A", "x"], {"A": "!rm -rf build"},
         "alias `x`, set by --config-env from A"),
        (["git", "-c", f"core.sshCommand={RM}", "ls-remote", "ssh://h/r"], {},
         "core.sshCommand, set by -c"),
        (["git", "ls-remote", "ssh://h/r"], {"GIT_SSH_COMMAND": RM},
         "core.sshCommand, from GIT_SSH_COMMAND"),
        (["git", "-c", f"core.fsmonitor={RM}", "status"], {}, "core.fsmonitor, set by -c"),
        (["git", "diff"], {"GIT_EXTERNAL_DIFF": RM}, "diff.external, from GIT_EXTERNAL_DIFF"),
        (["git", "-c", f"core.editor={RM}", "commit"], {}, "core.editor, set by -c"),
        (["git", "commit"], {"EDITOR": RM}, "the editor, from EDITOR"),
        (["git", "-c", "protocol.ext.allow=always", "ls-remote", "ext::sh -c rm% -rf% build"], {},
         "the ext:: address `ext::sh -c rm% -rf% build`"),
        (["git", "-C", "sub", "-c", "Alias.X=!rm -rf build", "--no-pager", "x", "a"], {},
         "alias `x`, set by -c"),
    ],
)  # fmt: skip
def test_each_way_of_giving_configuration_hands_rm_over(
    words: list[str], env: dict[str, str], how: str
) -> None:
    handed = _read(words, env)
    assert _runs_rm(handed), handed
    assert how in [h.how for h in handed]
    assert all(h.program == "git" for h in handed)


def test_a_bang_alias_gets_the_words_after_it() -> None:
    (h,) = _read(["git", "-c", "alias.x=!rm", "x", "-rf", "my build"])
    assert h.shell == "rm -rf 'my build'"
    assert [r.words for r in bash_runs(h.shell)] == [("rm", "-rf", "my build")]


def test_a_plain_alias_is_read_again_as_git_words() -> None:
    """`alias.x = -c alias.y=!rm y y` is git's words: the expanded command keeps the global
    options before it, and reading it again reaches `rm` (bash_runs recurses)."""
    (h,) = _read(["git", "-c", "alias.x=-c alias.y='!rm -rf build' y", "x"])
    assert h.argv == ("git", "-c", "alias.x=-c alias.y='!rm -rf build' y", "-c",
                      "alias.y=!rm -rf build", "y")  # fmt: skip
    assert h.how == "alias `x`, set by -c"
    again = _read(list(h.argv))
    assert _runs_rm(again)
    # a plain alias to a git command: the rules see the expanded command
    (p,) = _read(["git", "-c", "alias.p=push --force", "p", "origin"])
    assert p.argv == ("git", "-c", "alias.p=push --force", "push", "--force", "origin")


def test_an_alias_applies_only_to_its_own_name_and_never_hides_a_git_command() -> None:
    assert _read(["git", "-c", "alias.x=!rm x", "status"]) == ()
    assert _read(["git", "-c", "alias.status=!rm x", "status"]) == ()
    assert _read(["git", "-c", "alias.x=!rm x"]) == ()
    (h,) = _read(["git", "-c", "alias.x.command=!rm x", "x"])  # the subsection form
    assert h.shell == "rm x" and h.how == "alias `x`, set by -c"
    assert _read(["git", "-c", "alias.X.command=!rm x", "x"]) == ()  # case-sensitive there


def test_an_alias_named_like_a_newer_git_command_is_judged_and_never_loops() -> None:
    (h,) = _read(["git", "-c", "alias.switch=!rm x", "switch"])  # an alias to git before 2.23
    assert h.shell == "rm x"
    assert _read(["git", "-c", "alias.switch=switch -c", "switch", "b"]) == ()
    (c,) = _read(["git", "-c", "alias.switch=checkout", "switch", "b"])
    assert c.argv == ("git", "-c", "alias.switch=checkout", "checkout", "b")


def test_a_run_time_subcommand_may_be_any_alias() -> None:
    handed = read(("git", "-c", "alias.x=!rm x", "$SUB"), frozenset({3}), {})
    assert _runs_rm(handed)


def test_every_command_valued_key_given_is_judged_whatever_the_subcommand() -> None:
    assert _runs_rm(_read(["git", "-c", f"diff.external={RM}", "status"]))
    assert _runs_rm(_read(["git", "-c", f"core.pager={RM}", "version"]))


# --- the key families -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "shell"),
    [
        ("core.sshCommand", "rm x", 'rm x "$@"'),
        ("core.editor", "rm x", 'rm x "$@"'),
        ("core.pager", "rm x", "rm x"),
        ("pager.log", "rm x", "rm x"),
        ("core.fsmonitor", "rm x", 'rm x "$@"'),
        ("core.alternateRefsCommand", "rm x", 'rm x "$@"'),
        ("sequence.editor", "rm x", 'rm x "$@"'),
        ("diff.external", "rm x", 'rm x "$@"'),
        ("diff.foo.command", "rm x", 'rm x "$@"'),
        ("diff.foo.textconv", "rm x", 'rm x "$@"'),
        ("merge.foo.driver", "rm x %A", 'rm x %A "$@"'),
        ("filter.foo.clean", "rm x", 'rm x "$@"'),
        ("filter.foo.smudge", "rm x", 'rm x "$@"'),
        ("filter.foo.process", "rm x", 'rm x "$@"'),
        ("credential.helper", "!rm x", 'rm x "$@"'),
        ("credential.helper", "/bin/rm x", '/bin/rm x "$@"'),
        ("credential.helper", "store --file f", 'git credential-store --file f "$@"'),
        ("credential.https://h.example.helper", "!rm x", 'rm x "$@"'),
        ("gpg.program", "rm", "rm \"$@\""),
        ("gpg.ssh.program", "/bin/rm", "/bin/rm \"$@\""),
        ("uploadpack.packObjectsHook", "rm x", 'rm x "$@"'),
        ("remote.origin.uploadpack", "rm x", 'rm x "$@"'),
        ("remote.origin.receivepack", "rm x", 'rm x "$@"'),
        ("core.askPass", "rm", "rm \"$@\""),
        ("core.gitProxy", "rm for example.com", "rm \"$@\""),
        ("sendemail.toCmd", "rm x", 'rm x "$@"'),
        ("sendemail.work.sendmailCmd", "rm x", 'rm x "$@"'),
        ("sendemail.smtpServer", "/bin/rm", "/bin/rm \"$@\""),
        ("interactive.diffFilter", "rm x", "rm x"),
        ("imap.tunnel", "rm x", "rm x"),
        ("trailer.sign.command", "rm x", "rm x"),
        ("gc.recentObjectsHook", "rm x", "rm x"),
        ("hook.lint.command", "rm x", 'rm x "$@"'),
        ("submodule.sub.update", "!rm x", 'rm x "$@"'),
        ("difftool.t.cmd", "rm x", "rm x"),
        ("mergetool.t.path", "rm", "rm \"$@\""),
        ("man.t.cmd", "rm x", "rm x"),
        ("browser.t.path", "rm", "rm \"$@\""),
        ("guitool.t.cmd", "rm x", "rm x"),
        ("instaweb.httpd", "rm x", "rm x"),
        ("daemon.accessHook", "rm x", 'rm x "$@"'),
    ],
)  # fmt: skip
def test_each_key_family(key: str, value: str, shell: str) -> None:
    (h,) = _read(["git", "-c", f"{key}={value}", "status"])
    assert h.shell == shell
    assert h.how.endswith(", set by -c") and h.how.lower().startswith(key.lower())
    assert _runs_rm((h,)) or "credential-store" in shell


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("core.pager", ""), ("pager.log", "false"), ("pager.log", "true"),
        ("core.fsmonitor", "true"), ("core.fsmonitor", "0"), ("credential.helper", ""),
        ("submodule.s.update", "rebase"),
        ("sendemail.smtpServer", "smtp.example.com"), ("core.gitProxy", "none"),
        ("color.ui", "always"), ("user.name", "rm -rf x"), ("remote.origin.url", "https://h/r"),
        ("core.hooksPath", "/dev/null"), ("include.path", ""),
    ],
)  # fmt: skip
def test_values_that_run_nothing(key: str, value: str) -> None:
    assert _read(["git", "-c", f"{key}={value}", "log"]) == ()


def test_an_implicit_true_runs_nothing() -> None:
    assert _read(["git", "-c", "core.editor", "commit"]) == ()


@pytest.mark.parametrize(
    "key", ["core.hooksPath", "init.templateDir", "include.path", "includeIf.gitdir:/x/.path"]
)
def test_a_file_or_directory_named_is_decided_at_run_time(key: str) -> None:
    (h,) = _read(["git", "-c", f"{key}=./hooks", "commit"])
    assert h.runtime is not None and "./hooks" in h.runtime and h.shell is None


def test_a_run_time_address_with_the_ext_transport_allowed_is_asked() -> None:
    (h,) = read(("git", "-c", "protocol.ext.allow=always", "fetch", "$U"), frozenset({4}), {})
    assert h.runtime is not None and "ext::" in h.runtime
    (e,) = read(("git", "clone", "$U"), frozenset({2}), {"GIT_ALLOW_PROTOCOL": "file:ext"})
    assert e.runtime is not None
    assert read(("git", "fetch", "$U"), frozenset({2}), {}) == ()  # ext:: is never allowed else
    assert read(("git", "-c", "protocol.ext.allow=never", "fetch", "$U"), frozenset({4}), {}) == ()


def test_addresses_that_run_a_command() -> None:
    for words in (
        ["git", "-c", "remote.origin.url=ext::sh -c rm% x", "fetch"],
        ["git", "-c", "url.ext::sh -c rm% x.insteadOf=https://h/", "fetch", "https://h/r"],
        ["git", "remote", "add", "o", "ext::sh -c rm% x"],
        ["git", "clone", "ext::rm x"],
        ["git", "archive", "--remote=ext::rm x", "HEAD"],
    ):
        assert _runs_rm(_read(words)), words


# --- git's environment ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("var", "how"),
    [
        ("GIT_SSH_COMMAND", "core.sshCommand, from GIT_SSH_COMMAND"),
        ("GIT_EDITOR", "core.editor, from GIT_EDITOR"),
        ("GIT_SEQUENCE_EDITOR", "sequence.editor, from GIT_SEQUENCE_EDITOR"),
        ("GIT_PAGER", "core.pager, from GIT_PAGER"),
        ("PAGER", "the pager, from PAGER"),
        ("VISUAL", "the editor, from VISUAL"),
        ("GIT_EXTERNAL_DIFF", "diff.external, from GIT_EXTERNAL_DIFF"),
    ],
)
def test_variables_holding_shell_commands(var: str, how: str) -> None:
    (h,) = _read("git log", {var: "rm -rf build"})
    assert h.how == how and _runs_rm((h,))


@pytest.mark.parametrize("var", ["GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND"])
def test_variables_holding_a_program(var: str) -> None:
    (h,) = _read("git fetch", {var: "/usr/bin/rm"})
    assert h.shell == '/usr/bin/rm "$@"'
    assert [r.words[0] for r in bash_runs(h.shell)] == ["/usr/bin/rm"]


@pytest.mark.parametrize(
    "var",
    [
        "GIT_EXEC_PATH",
        "GIT_TEMPLATE_DIR",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG",
        "HOME",
        "XDG_CONFIG_HOME",
    ],
)
def test_variables_naming_files_are_decided_at_run_time_unless_dev_null(var: str) -> None:
    (h,) = _read("git status", {var: "./x"})
    assert h.runtime is not None
    assert _read("git status", {var: "/dev/null"}) == ()


def test_a_variable_bash_decides_at_run_time() -> None:
    (h,) = _read("git log", {"GIT_PAGER": None})
    assert h.runtime is not None and "GIT_PAGER" in h.how
    (c,) = _read("git x", {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "alias.x",
                           "GIT_CONFIG_VALUE_0": None})  # fmt: skip
    assert c.runtime is not None
    assert _read("git x", {"GIT_CONFIG_COUNT": None})[0].runtime is not None
    # --config-env naming a variable git inherits (not known to bash here)
    (e,) = _read(["git", "--config-env=core.editor=ED", "commit"])
    assert e.runtime is not None and "ED" in e.how


def test_a_run_time_config_word() -> None:
    (h,) = read(("git", "-c", "$KV", "log"), frozenset({2}), {})
    assert h.runtime is not None
    assert read(("git", "-c", '"color.ui=$C"', "log"), frozenset({2}), {}) == ()
    (a,) = read(("git", "-c", '"alias.x=$C"', "x"), frozenset({2}), {})
    assert a.runtime is not None


def test_a_bogus_parameters_list_is_asked() -> None:
    (h,) = _read("git log", {"GIT_CONFIG_PARAMETERS": "'unterminated"})
    assert h.runtime is not None


# --- options ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "words",
    [
        ["git", "ls-remote", f"--upload-pack={RM}", "."],
        ["git", "ls-remote", "--upload-pack", RM, "."],
        ["git", "ls-remote", f"--upload={RM}", "."],  # an abbreviation git accepts
        ["git", "fetch", f"--upload-pack={RM}", "."],
        ["git", "pull", f"--upload-pack={RM}", "."],
        ["git", "clone", "-u", RM, ".", "d"],
        ["git", "clone", f"-u{RM}", ".", "d"],
        ["git", "clone", "-c", f"core.fsmonitor={RM}", ".", "d"],
        ["git", "clone", f"--config=core.fsmonitor={RM}", ".", "d"],
        ["git", "fetch-pack", f"--exec={RM}", "."],
        ["git", "archive", "--remote=.", f"--exec={RM}", "HEAD"],
        ["git", "push", f"--receive-pack={RM}", ".", "HEAD"],
        ["git", "push", f"--exec={RM}", ".", "HEAD"],
        ["git", "send-pack", f"--receive-pack={RM}", "."],
        ["git", "rebase", "--exec", RM, "HEAD~1"],
        ["git", "rebase", "-x", RM, "HEAD~1"],
        ["git", "rebase", "-ix", RM, "HEAD~1"],
        ["git", "rebase", f"-x{RM}", "HEAD~1"],
        ["git", "difftool", f"--extcmd={RM}"],
        ["git", "grep", f"-O{RM}", "x"],
        ["git", "grep", f"--open-files-in-pager={RM}", "x"],
        ["git", "submodule", "foreach", RM],
        ["git", "submodule", "--quiet", "foreach", "--recursive", "rm", "-rf", "build"],
        ["git", "bisect", "run", "rm", "-rf", "build"],
        ["git", "filter-branch", "--tree-filter", RM, "HEAD"],
        ["git", "send-email", f"--to-cmd={RM}", "p.patch"],
        ["git", "send-email", "--smtp-server=/bin/rm", "p.patch"],
        ["git", "daemon", f"--access-hook={RM}"],
        ["git", "config", "alias.x", "!rm -rf build"],
        ["git", "config", "--global", "core.editor", RM],
        ["git", "config", "set", "--local", "core.pager", RM],
        ["git", "config", "--add", "core.sshCommand", RM],
    ],
)
def test_options_that_run_commands(words: list[str]) -> None:
    handed = _read(words)
    assert _runs_rm(handed) or any("rm" in (h.shell or "") for h in handed), handed


def test_given_values_are_not_configured_written_ones_are() -> None:
    assert not any(h.configured for h in _read(["git", "-c", "core.pager=less", "log"]))
    (w,) = _read(["git", "config", "core.pager", "less"])
    assert w.configured and w.how == "core.pager, written by git config"


@pytest.mark.parametrize(
    ("words", "env"),
    [
        ("git rebase --continue", {"GIT_EDITOR": "true"}),
        ("git log", {"GIT_PAGER": "cat"}),
        ("git rebase -i HEAD~2", {"GIT_SEQUENCE_EDITOR": ":"}),
        ("git -c core.editor=true commit --amend", {}),
    ],
)
def test_what_agents_set_to_keep_git_from_waiting_never_moves_it_into_the_sandbox(
    words: str, env: dict[str, str]
) -> None:
    (h,) = _read(words, env)
    assert h.configured and h.shell is not None and h.shell.split()[0] in ("true", "cat", ":")


def test_options_and_values_that_run_nothing() -> None:
    assert _read(["git", "grep", "-O", "x"]) == ()  # -O takes a glued value only
    assert _read(["git", "rebase", "-Xsubtree=x", "main"]) == ()
    assert _read(["git", "config", "--get", "alias.x", "!rm"]) == ()
    assert _read(["git", "config", "user.name", "rm -rf x"]) == ()
    assert _read(["git", "log", "--", "--exec=rm"]) == ()
    (h,) = _read(["git", "--exec-path=./bin", "status"])
    assert h.runtime is not None
    assert _read(["git", "--exec-path"]) == ()


@pytest.mark.parametrize(
    "words",
    [
        "git status", "git log --oneline", "git -c color.ui=always log", "git -C sub status",
        "git diff --stat", "git commit -m msg", "git push origin main", "git rebase -i HEAD~3",
        "git clone https://github.com/o/r", "git fetch --all", "git grep -n foo",
    ],
)  # fmt: skip
def test_ordinary_commands_hand_nothing_over(words: str) -> None:
    assert _read(words) == ()


# --- from files -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Files:
    """A stand-in for git_files.GitConfigFiles: entries per place."""

    entries: tuple[tuple[str, str, str], ...]
    moved: tuple[tuple[tuple[str, ...], str | None], ...] = ()

    def items(self) -> tuple[tuple[str, str], ...]:
        return tuple((k, v) for k, v, _ in self.entries)

    def origins(self) -> tuple[str, ...]:
        return tuple(o for _, _, o in self.entries)

    def at(self, chdirs: tuple[str, ...], git_dir: str | None) -> GitFiles:
        return _Files((("alias.there", "!rm there", f"{chdirs}/{git_dir}:1"),))


USER = _Files((
    ("alias.lg", "log --oneline", "/home/u/.gitconfig:2"),
    ("alias.x", "!rm -rf build", "/repo/.git/config:12"),
    ("core.pager", "less", "/home/u/.gitconfig:4"),
    ("core.hookspath", "./hooks", "/repo/.git/config:3"),
    ("include.path", "other", "/repo/.git/config:4"),
    ("?", "", "/repo/.git/config:20"),
))  # fmt: skip


def test_keys_from_files() -> None:
    handed = _read("git x", files=USER)
    x = Handed("git", "alias `x`, from /repo/.git/config:12", shell="rm -rf build", configured=True)
    assert x in handed
    # a user's pager is judged like any literal command; it costs no question by itself
    pager = Handed("git", "core.pager, from /home/u/.gitconfig:4", shell="less", configured=True)
    assert pager in handed
    # hooks and includes named in files are not asked about (out of reach / followed)
    assert not any("hookspath" in h.how.lower() or "include" in h.how for h in handed)
    # a line the reader could not read is asked
    assert any(h.runtime and "/repo/.git/config:20" in h.how for h in handed)


def test_a_plain_alias_from_files() -> None:
    handed = _read("git lg -5", files=USER)
    lg = ("git", "log", "--oneline", "-5")
    assert (
        Handed("git", "alias `lg`, from /home/u/.gitconfig:2", argv=lg, configured=True) in handed
    )


def test_a_command_that_moves_reads_that_repository() -> None:
    handed = _read("git -C sub there", files=USER)
    assert [h.shell for h in handed if h.shell] == ["rm there"]
    assert handed[0].how == "alias `there`, from ('sub',)/None:1"
    handed = _read("git there", {"GIT_DIR": "/r/.git"}, files=USER)
    assert handed[0].how == "alias `there`, from ()//r/.git:1"


# --- git's own splitting --------------------------------------------------------------------


def test_split_cmdline_as_git() -> None:
    assert split_cmdline("log --oneline") == ["log", "--oneline"]
    assert split_cmdline("-c 'alias.y=!rm y' y") == ["-c", "alias.y=!rm y", "y"]
    assert split_cmdline("a \"b c\" d\\ e 'f\\g'") == ["a", "b c", "d e", "f\\g"]
    assert split_cmdline("a 'b") is None and split_cmdline("a\\") is None


def test_config_parameters_as_git() -> None:
    assert config_parameters("'alias.x'='!rm -rf build' 'Core.Editor=vi'") == [
        ("alias.x", "!rm -rf build"), ("core.editor", "vi")]  # fmt: skip
    assert config_parameters("'a.b'='it'\\''s'") == [("a.b", "it's")]
    assert config_parameters("'a.b'=") == [("a.b", None)]
    assert config_parameters("'a.b'=x") is None
    assert config_parameters("a.b=c") is None


def test_ext_addresses_as_git() -> None:
    assert ext_argv("ext::sh -c rm% -rf% build") == ["sh", "-c", "rm -rf build"]
    assert ext_argv("ext::ssh %G/repo host %S") == ["ssh", "host", "git-upload-pack"]
    assert ext_argv("ext::a%%b") == ["a%b"]
    assert ext_argv("ext::a%q") is None and ext_argv("https://h/r") is None


def test_booleans_as_git() -> None:
    assert all(is_bool(v) for v in ("", "true", "No", "on", "0", "1", "-1", "10k"))
    assert not any(is_bool(v) for v in ("less", "cat", "rm -rf x"))


def test_the_table_names_every_key_of_the_issue() -> None:
    issue = ["alias.x", "core.sshcommand", "core.editor", "core.pager", "pager.log",
             "core.fsmonitor", "core.hookspath", "diff.external", "diff.x.command",
             "diff.x.textconv", "merge.x.driver", "filter.x.clean", "filter.x.smudge",
             "filter.x.process", "credential.helper", "gpg.program", "gpg.x.program",
             "sequence.editor", "uploadpack.packobjectshook", "remote.x.uploadpack",
             "remote.x.receivepack", "core.askpass", "sendemail.tocmd"]  # fmt: skip
    assert all(key_kind(k) is not None for k in issue)
    assert key_kind("color.ui") is None and key_kind("alias.x.y") is None
    assert all(isinstance(kind, Kind) for kind, _ in KEYS.values())


# --- never raises -----------------------------------------------------------------------------

_PIECES = st.sampled_from(
    ["git", "-c", "-C", "--config-env", "--config-env=alias.x=A", "alias.x=!rm", "x", "config",
     "clone", "rebase", "-x", "--exec", "--upload-pack", "ext::sh -c rm% x", "ext::%", "%G",
     "set", "--", "submodule", "foreach", "bisect", "run", "=", "'", "\"", "\\", "", "core.editor"]
)  # fmt: skip


_VARIABLES = ["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "A",
              "GIT_CONFIG_PARAMETERS", "GIT_SSH_COMMAND", "GIT_DIR"]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(_PIECES, st.text(max_size=12)), min_size=1, max_size=10),
    st.frozensets(st.integers(0, 10)),
    st.dictionaries(
        st.sampled_from(_VARIABLES),
        st.one_of(st.none(), st.text(max_size=12)),
    ),
)
def test_read_never_raises(words: list[str], dynamic: frozenset[int], env: Environment) -> None:
    for h in read(("git", *words), dynamic, env):
        assert sum(x is not None for x in (h.shell, h.argv, h.runtime)) == 1


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('[]"\\ \t\n=#;.abxK-\r\ufeff')), max_size=60))
def test_the_small_readers_never_raise(text: str) -> None:
    parse_config(text, "/f")
    config_parameters(text)
    split_cmdline(text)
    ext_argv("ext::" + text)


# --- configuration the same script writes before git reads it ------------------------------


def test_configuration_written_earlier_in_the_script() -> None:
    written = {".git/config": "[alias]\n\tx = !rm -rf build\n", "notes.md": "[alias] x = !rm"}
    (h,) = read_written(("git", "x"), frozenset(), written)
    assert h.shell == "rm -rf build"
    assert h.how == "alias `x`, written into .git/config earlier in this script"
    assert read_written(("git", "status"), frozenset(), written) == ()
    (s,) = read_written(("git", "log"), frozenset(), {"/home/u/.gitconfig": "[core]\npager=rm x"})
    assert s.shell == "rm x" and not s.configured
    (r,) = read_written(("git", "log"), frozenset(), {".git/config": None})
    assert r.runtime is not None
    (q,) = read_written(("git", "x"), frozenset(), {".git/config": "\tx = !rm -rf build\n"})
    assert q.runtime is not None  # a key with no section before it: where git puts it is unknown
    (k,) = read_written(("git", "commit"), frozenset(), {".git/config": "[core]\nhooksPath=h\n"})
    assert k.runtime is not None


def test_which_paths_git_reads_as_configuration() -> None:
    yes = [
        ".git/config",
        "/r/.git/config",
        "repo.git/config",
        "~/.gitconfig",
        ".gitconfig",
        "/etc/gitconfig",
        "/h/.config/git/config",
        ".git/config.worktree",
        "x.gitconfig",
    ]
    no = ["config", "notes/config", ".git/hooks/pre-commit", "gitconfig.md", "src/git.py"]
    assert all(is_config_path(p) for p in yes) and not any(is_config_path(p) for p in no)
