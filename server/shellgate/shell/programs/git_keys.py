"""What git runs, as data: its command-valued configuration keys, environment variables and
options, and how each hands the command over.

From git's documentation (Documentation/config/*.adoc, git(1), the commands' pages) and its
sources (every `use_shell = 1` and the programs it runs without a shell), git 2.39 to 2.52.
A key or option that is not here runs nothing; a new one is a row.

How a value is handed over (`Kind`):
- SHELL: git runs it as `sh -c 'VALUE "$@"' VALUE ARGS...` (every `use_shell` command);
- SCRIPT: git runs it as `sh -c VALUE`, with no arguments (a pager, `rebase --exec`);
- PROGRAM: a program's path or name, executed with git's arguments (no shell);
- SPLIT: split as git splits an alias (quotes, backslashes) and executed (no shell);
- PAGER: a boolean (paginate or not) or a SCRIPT (`pager.<cmd>`);
- MONITOR: a boolean (git's own daemon) or a SHELL command (`core.fsmonitor`);
- HELPER: credential.helper: `!CMD` shell, an absolute path shell, else `git credential-NAME`;
- BANG: `!CMD` is a SHELL command, anything else a mode (`submodule.<name>.update`);
- ALIAS: `!CMD` a SHELL command, else more of git's own words (`alias.*`);
- PROXY: core.gitProxy: `COMMAND [for DOMAIN]`, executed (no shell);
- URL: a repository's address, which runs a command when it is `ext::CMD ARGS`;
- URL_SUB: url.<base>.insteadOf: the subsection is the address;
- SMTP: a program when it is an absolute path, else a server's name (sendemail.smtpServer);
- PATH: a file or directory of programs or configuration: decided at run time.
"""

from __future__ import annotations

from enum import Enum


class Kind(Enum):
    SHELL = "shell"
    SCRIPT = "script"
    PROGRAM = "program"
    SPLIT = "split"
    PAGER = "pager"
    MONITOR = "monitor"
    HELPER = "helper"
    BANG = "bang"
    ALIAS = "alias"
    PROXY = "proxy"
    URL = "url"
    URL_SUB = "url-sub"
    SMTP = "smtp"
    PATH = "path"


# (section, has a subsection, variable) -> how, and the key as git's documentation spells it.
# A variable `*` is any variable of the section (`pager.<cmd>`, `alias.<name>`).
_KEYS: tuple[tuple[str, Kind], ...] = (
    ("alias.*", Kind.ALIAS),
    ("alias.<name>.command", Kind.ALIAS),
    ("core.sshCommand", Kind.SHELL),
    ("core.editor", Kind.SHELL),
    ("core.pager", Kind.SCRIPT),
    ("core.fsmonitor", Kind.MONITOR),
    ("core.alternateRefsCommand", Kind.SHELL),
    ("core.askPass", Kind.PROGRAM),
    ("core.gitProxy", Kind.PROXY),
    ("core.hooksPath", Kind.PATH),
    ("sequence.editor", Kind.SHELL),
    ("pager.*", Kind.PAGER),
    ("diff.external", Kind.SHELL),
    ("diff.<driver>.command", Kind.SHELL),
    ("diff.<driver>.textconv", Kind.SHELL),
    ("merge.<driver>.driver", Kind.SHELL),
    ("filter.<driver>.clean", Kind.SHELL),
    ("filter.<driver>.smudge", Kind.SHELL),
    ("filter.<driver>.process", Kind.SHELL),
    ("credential.helper", Kind.HELPER),
    ("credential.<url>.helper", Kind.HELPER),
    ("gpg.program", Kind.PROGRAM),
    ("gpg.<format>.program", Kind.PROGRAM),
    ("gpg.ssh.defaultKeyCommand", Kind.SPLIT),
    ("uploadpack.packObjectsHook", Kind.SHELL),
    ("remote.<name>.uploadpack", Kind.SHELL),
    ("remote.<name>.receivepack", Kind.SHELL),
    ("remote.<name>.url", Kind.URL),
    ("remote.<name>.pushurl", Kind.URL),
    ("url.<base>.insteadOf", Kind.URL_SUB),
    ("url.<base>.pushInsteadOf", Kind.URL_SUB),
    ("interactive.diffFilter", Kind.SCRIPT),
    ("imap.tunnel", Kind.SCRIPT),
    ("trailer.<key>.command", Kind.SCRIPT),
    ("trailer.<key>.cmd", Kind.SHELL),
    ("gc.recentObjectsHook", Kind.SCRIPT),
    ("hook.<name>.command", Kind.SHELL),
    ("submodule.<name>.update", Kind.BANG),
    ("difftool.<tool>.cmd", Kind.SCRIPT),
    ("difftool.<tool>.path", Kind.PROGRAM),
    ("mergetool.<tool>.cmd", Kind.SCRIPT),
    ("mergetool.<tool>.path", Kind.PROGRAM),
    ("man.<tool>.cmd", Kind.SCRIPT),
    ("man.<tool>.path", Kind.PROGRAM),
    ("browser.<tool>.cmd", Kind.SCRIPT),
    ("browser.<tool>.path", Kind.PROGRAM),
    ("guitool.<name>.cmd", Kind.SCRIPT),
    ("instaweb.httpd", Kind.SCRIPT),
    ("sendemail.toCmd", Kind.SHELL),
    ("sendemail.ccCmd", Kind.SHELL),
    ("sendemail.headerCmd", Kind.SHELL),
    ("sendemail.sendmailCmd", Kind.SHELL),
    ("sendemail.smtpServer", Kind.SMTP),
    ("sendemail.<identity>.toCmd", Kind.SHELL),
    ("sendemail.<identity>.ccCmd", Kind.SHELL),
    ("sendemail.<identity>.headerCmd", Kind.SHELL),
    ("sendemail.<identity>.sendmailCmd", Kind.SHELL),
    ("sendemail.<identity>.smtpServer", Kind.SMTP),
    ("init.templateDir", Kind.PATH),  # templates hold hooks
    ("include.path", Kind.PATH),
    ("includeIf.<condition>.path", Kind.PATH),
    ("daemon.accessHook", Kind.SHELL),
)


def _index() -> dict[tuple[str, bool, str], tuple[Kind, str]]:
    table: dict[tuple[str, bool, str], tuple[Kind, str]] = {}
    for spelled, kind in _KEYS:
        parts = spelled.split(".")
        sub = len(parts) == 3
        table[(parts[0].lower(), sub, parts[-1].lower())] = (kind, spelled)
    return table


KEYS = _index()


def key_kind(key: str) -> tuple[Kind, str] | None:
    """How a canonical key (section and variable lowercased) hands a command over, and its
    documented spelling; None when it runs nothing."""
    section, _, rest = key.partition(".")
    sub, _, name = rest.rpartition(".")
    section = section.lower()
    name = name.lower()
    found = KEYS.get((section, bool(sub), name)) or KEYS.get((section, bool(sub), "*"))
    if found is None and sub and section == "alias":  # `[alias "x y"]` holds only `command`
        return None
    return found


# Environment variables git reads as commands: name -> (kind, what it stands for).
ENVIRONMENT: dict[str, tuple[Kind, str]] = {
    "GIT_SSH_COMMAND": (Kind.SHELL, "core.sshCommand, from GIT_SSH_COMMAND"),
    "GIT_SSH": (Kind.PROGRAM, "the ssh program, from GIT_SSH"),
    "GIT_EDITOR": (Kind.SHELL, "core.editor, from GIT_EDITOR"),
    "GIT_SEQUENCE_EDITOR": (Kind.SHELL, "sequence.editor, from GIT_SEQUENCE_EDITOR"),
    "VISUAL": (Kind.SHELL, "the editor, from VISUAL"),
    "EDITOR": (Kind.SHELL, "the editor, from EDITOR"),
    "GIT_PAGER": (Kind.SCRIPT, "core.pager, from GIT_PAGER"),
    "PAGER": (Kind.SCRIPT, "the pager, from PAGER"),
    "GIT_EXTERNAL_DIFF": (Kind.SHELL, "diff.external, from GIT_EXTERNAL_DIFF"),
    "GIT_ASKPASS": (Kind.PROGRAM, "core.askPass, from GIT_ASKPASS"),
    "SSH_ASKPASS": (Kind.PROGRAM, "the password prompt, from SSH_ASKPASS"),
    "GIT_PROXY_COMMAND": (Kind.PROXY, "core.gitProxy, from GIT_PROXY_COMMAND"),
    "GIT_TEST_FSMONITOR": (Kind.MONITOR, "core.fsmonitor, from GIT_TEST_FSMONITOR"),
    "GIT_EXEC_PATH": (Kind.PATH, "GIT_EXEC_PATH, the directory of git's programs"),
    "GIT_TEMPLATE_DIR": (Kind.PATH, "GIT_TEMPLATE_DIR, templates holding hooks"),
    "GIT_CONFIG_GLOBAL": (Kind.PATH, "GIT_CONFIG_GLOBAL, a configuration file"),
    "GIT_CONFIG_SYSTEM": (Kind.PATH, "GIT_CONFIG_SYSTEM, a configuration file"),
    "GIT_CONFIG": (Kind.PATH, "GIT_CONFIG, a configuration file"),
    "HOME": (Kind.PATH, "HOME, where git reads ~/.gitconfig"),
    "XDG_CONFIG_HOME": (Kind.PATH, "XDG_CONFIG_HOME, where git reads git/config"),
}

# Values that name no file or directory (a configuration read from nowhere).
NOWHERE = frozenset({"", "/dev/null"})

# Options of git's subcommands whose value runs: subcommand -> option -> kind. Long options
# take `--opt=V` or `--opt V` (and git accepts unique abbreviations); a short one `-xV`, `-x V`,
# last in a cluster.
OPTIONS: dict[str, dict[str, Kind]] = {
    "clone": {"--upload-pack": Kind.SHELL, "-u": Kind.SHELL, "--template": Kind.PATH},
    "init": {"--template": Kind.PATH},
    "fetch": {"--upload-pack": Kind.SHELL},
    "pull": {"--upload-pack": Kind.SHELL},
    "ls-remote": {"--upload-pack": Kind.SHELL, "--exec": Kind.SHELL, "-u": Kind.SHELL},
    "fetch-pack": {"--upload-pack": Kind.SHELL, "--exec": Kind.SHELL, "-u": Kind.SHELL},
    "archive": {"--exec": Kind.SHELL},
    "push": {"--receive-pack": Kind.SHELL, "--exec": Kind.SHELL},
    "send-pack": {"--receive-pack": Kind.SHELL, "--exec": Kind.SHELL},
    "rebase": {"--exec": Kind.SCRIPT, "-x": Kind.SCRIPT},
    "difftool": {"--extcmd": Kind.SCRIPT, "-x": Kind.SCRIPT},
    "grep": {"--open-files-in-pager": Kind.SHELL, "-O": Kind.SHELL},
    "send-email": {"--to-cmd": Kind.SHELL, "--cc-cmd": Kind.SHELL, "--header-cmd": Kind.SHELL,
                   "--sendmail-cmd": Kind.SHELL, "--smtp-server": Kind.SMTP},
    "daemon": {"--access-hook": Kind.SHELL},
    "instaweb": {"--httpd": Kind.SCRIPT, "-d": Kind.SCRIPT},
    "filter-branch": {f"--{f}-filter": Kind.SCRIPT
                      for f in ("env", "tree", "index", "parent", "msg", "commit", "tag-name")}
                     | {"--setup": Kind.SCRIPT},
}  # fmt: skip
# Options whose value is optional and only glued (`-O`, `-OCMD`, `--open-files-in-pager=CMD`).
GLUED_ONLY = frozenset({("grep", "-O"), ("grep", "--open-files-in-pager")})
# Short options of those subcommands that take a value (so that a cluster ends there).
SHORT_VALUED: dict[str, str] = {"clone": "obucj", "rebase": "sXxCS", "difftool": "xtX",
                                "grep": "OeABCm", "ls-remote": "u", "fetch-pack": "u",
                                "instaweb": "dpb"}  # fmt: skip
# Subcommands that run their remaining words as a command: how they hand it over.
RUNS_REST: dict[tuple[str, str], str] = {
    ("submodule", "foreach"): "git submodule foreach",
    ("bisect", "run"): "git bisect run",
}

# git's own commands, those of git 2.20 and every later version (an alias of one of these
# names is ignored by git; a command newer than that, `switch` or `refs`, may still be an alias
# to an older git, so its alias is judged).
COMMANDS = frozenset(
    """add am annotate apply archive bisect blame branch bundle cat-file check-attr
    check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick
    citool clean clone column commit commit-tree config count-objects credential
    credential-cache credential-cache--daemon credential-store daemon describe diff
    diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack
    filter-branch fmt-merge-msg for-each-ref format-patch fsck fsck-objects gc
    get-tar-commit-id grep gui hash-object help http-backend http-fetch http-push imap-send
    index-pack init init-db instaweb interpret-trailers log ls-files ls-remote ls-tree
    mailinfo mailsplit merge merge-base merge-file merge-index merge-octopus merge-one-file
    merge-ours merge-recursive merge-resolve merge-subtree merge-tree mergetool mktag mktree
    mv name-rev notes p4 pack-objects pack-refs patch-id prune prune-packed pull push
    quiltimport read-tree rebase receive-pack reflog remote remote-ext remote-fd remote-ftp
    remote-ftps remote-http remote-https repack replace request-pull rerere reset rev-list
    rev-parse revert rm send-email send-pack shortlog show show-branch show-index show-ref
    stage stash status stripspace submodule submodule--helper symbolic-ref tag unpack-file
    unpack-objects update-index update-ref update-server-info upload-archive
    upload-archive--writer upload-pack var verify-commit verify-pack verify-tag version
    web--browse worktree write-tree""".split()  # noqa: SIM905
)
