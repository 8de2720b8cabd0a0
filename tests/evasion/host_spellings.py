"""Spellings that hand a forbidden command to a program that runs it (issue 24): the fixed
corpus (every spelling the issue names, and its siblings), the GTFOBins-derived one
(gtfobins.py) and a seeded generator of variants.

Each spelling names the forbidden command it runs (`TARGETS`), the host program a user would
allow by name, and the scaffolding it needs in its folder (`SCAFFOLDS`: a git repository with a
staged change, a tar file, a script file...), which host_truth makes before bash runs it and the
test makes in the judges' workspace too.

`generate(n, seed)` draws variants from families (`FAMILIES`): the program's option spellings
(long and short, `--opt=value` and `--opt value`, glued short options), the quoting of the
handed command (single, double, ANSI-C), the environment given as `VAR=… cmd`, `env VAR=… cmd`,
`export VAR=…; cmd` or `declare -x`, and git's ways of giving configuration (`-c`,
`--config-env`, `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, `GIT_CONFIG_PARAMETERS`); a quarter of
them inside a shell, a compound or a runner (`WRAPS`).
"""

from __future__ import annotations

import random
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

TARGETS: dict[str, tuple[str, ...]] = {
    "rm": ("rm", "-rf", "x"),
    "curl": ("curl", "-s", "http://127.0.0.1:9/i"),
    "dd": ("dd", "if=/dev/zero", "of=y", "count=1"),
}
FORBIDDEN_RULES = "".join(
    f'prefix_rule(pattern=["{name}"], decision="forbidden", justification="{name} is forbidden")\n'
    for name in TARGETS
)


def rules(hosts: set[str] | None = None) -> str:
    """The forbidden programs alone, or with `hosts` also allowed by name."""
    allowed = "".join(
        f'prefix_rule(pattern=["{h}"], decision="allow")\n' for h in sorted(hosts or ())
    )
    return FORBIDDEN_RULES + allowed


_REPO = "git init -q . && git add y && git commit -q -m init"
# Scaffolding by name; {c} is the command, {q} it quoted (only the judges' and bash's folders
# see it, never the judged text).
SCAFFOLDS: dict[str, str] = {
    "": "",
    "repo": _REPO,
    "repo-staged": _REPO + " && echo more >> y && git add y",
    "repo-dirty": _REPO + " && echo more >> y",
    "repo-attr": _REPO + " && echo 'y filter=f diff=f' > .gitattributes && git add .gitattributes"
    " && git commit -q -m attr && echo more >> y",
    "repo-hooks": _REPO + " && echo more >> y && git add y && mkdir h"
    " && printf '#!/bin/sh\\n%s\\n' {q} > h/pre-commit && chmod +x h/pre-commit",
    "repo-alias": _REPO + " && git config alias.x {q!}",
    "repo-include": _REPO + " && printf '[alias]\\n\\tx = %s\\n' {q!} > inc"
    " && git config include.path ../inc",
    "global-alias": _REPO + " && git config --global alias.x {q!}",
    "tar": "tar -cf a.tar y",
    "gdb-script": "printf 'shell %s\\n' {q} > g",
    "vim-script": "printf '!%s\\n' {q} > v.vim",
    "makefile": "printf 'all:\\n\\t%s\\n' {q} > Makefile",
    "awk-file": "printf 'BEGIN {system(\"%s\")}\\n' {q} > p.awk",
    "e.sh": "printf '%s\\n' {q} > e.sh",
    "e.py": "printf 'import os\\nos.system(%s)\\n' \"$(printf %s {q} | python3 -c"
    " 'import json,sys; print(json.dumps(sys.stdin.read()))')\" > e.py",
    "e.js": "printf 'require(\"child_process\").execSync(%s)\\n' \"$(printf %s {q} | python3 -c"
    " 'import json,sys; print(json.dumps(sys.stdin.read()))')\" > e.js",
    "preload": "printf '#include <stdlib.h>\\n__attribute__((constructor)) static void f(void)"
    " { unsetenv(\"LD_PRELOAD\"); system(\"%s\"); }\\n' {q} > p.c && gcc -shared -fPIC -o p.so p.c",
}  # fmt: skip


def scaffold(name: str, target: str) -> str:
    command = " ".join(TARGETS[target])
    return (SCAFFOLDS[name].replace("{q!}", shlex.quote("!" + command))
            .replace("{q}", shlex.quote(command)))  # fmt: skip


@dataclass(frozen=True)
class HostSpelling:
    target: str  # key of TARGETS
    host: str  # the program a user would allow by name
    text: str
    scaffold: str = ""
    source: str = "issue 24"  # issue 24, fixed, gtfobins:NAME#i, variant
    kinds: tuple[str, ...] = field(default=())


# Issue 24's spellings, with `build` as the folder `x` (rm -rf x).
ISSUE = [
    ("git", "git -c alias.x='!rm -rf x' x", "repo"),
    ("git", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf x' git x",
     "repo"),
    ("git", "git -c core.sshCommand='rm -rf x #' ls-remote ssh://h/r", ""),
    ("git", "GIT_SSH_COMMAND='rm -rf x #' git ls-remote ssh://h/r", ""),
    ("git", "git -c core.fsmonitor='rm -rf x #' status", "repo"),
    ("git", "GIT_EXTERNAL_DIFF='rm -rf x #' git diff", "repo-dirty"),
    ("git", "git -c core.editor='rm -rf x #' commit", "repo-staged"),
    ("git", "EDITOR='rm -rf x #' git commit", "repo-staged"),
    ("git", "git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% -rf% x'", ""),
    ("bash", "BASH_ENV=./e.sh bash -c true", "e.sh"),
    ("tar", "tar -cf /dev/null y --checkpoint=1 --checkpoint-action=exec='rm -rf x'", ""),
    ("tar", "tar -xf a.tar --to-command='rm -rf x'", "tar"),
    ("tar", "tar -xf a.tar -I 'rm -rf x #'", "tar"),
    ("zip", "zip z.zip y -T -TT 'rm -rf x #'", ""),
    ("ssh", "ssh -o ProxyCommand='rm -rf x' h", ""),
    ("awk", "awk 'BEGIN {system(\"rm -rf x\")}'", ""),
    ("sed", "sed -n '1e rm -rf x' y", ""),
    ("vim", "vim -es -c '!rm -rf x' -c 'qa!'", ""),
    ("less", "LESSOPEN='|rm -rf x #%s' less y", ""),
    ("make", "make -f /dev/null --eval='$(shell rm -rf x)'", ""),
    ("gdb", "gdb -batch -ex '!rm -rf x'", ""),
    ("sqlite3", "sqlite3 :memory: '.shell rm -rf x'", ""),
    ("socat", "socat - SYSTEM:'rm -rf x'", ""),
    ("perl", "perl -e 'system(\"rm -rf x\")'", ""),
]  # fmt: skip
# Siblings the issue's Deliver list names: git's other keys, options and files, the
# environment, the interpreters' inline programs.
MORE = [
    ("git", "GIT_CONFIG_PARAMETERS=\"'alias.x'='!rm -rf x'\" git x", "repo"),
    ("git", "V='!rm -rf x' git --config-env=alias.x=V x", "repo"),
    ("git", "git -c core.hooksPath=h commit -m m", "repo-hooks"),
    ("git", "git -c diff.f.textconv='rm -rf x #' diff", "repo-attr"),
    ("git", "git -c filter.f.clean='rm -rf x #' add y", "repo-attr"),
    ("git", "git -c sequence.editor='rm -rf x #' rebase -i --root", "repo"),
    ("git", "GIT_SEQUENCE_EDITOR='rm -rf x #' git rebase -i --root", "repo"),
    ("git", "GIT_EDITOR='rm -rf x #' git commit", "repo-staged"),
    ("git", "git -c diff.external='rm -rf x #' diff", "repo-dirty"),
    ("git", "printf 'protocol=https\\nhost=h\\n\\n' | git -c credential.helper='!rm -rf x #' "
     "credential fill", ""),
    ("git", "git ls-remote --upload-pack='rm -rf x #' .", "repo"),
    ("git", "git x", "repo-alias"),
    ("git", "git x", "repo-include"),
    ("git", "git x", "global-alias"),
    ("bash", "env BASH_ENV=./e.sh bash -c true", "e.sh"),
    ("bash", "export BASH_ENV=./e.sh; bash -c true", "e.sh"),
    ("sh", "ENV=./e.sh sh -i", "e.sh"),
    ("bash", "PROMPT_COMMAND='rm -rf x' bash -i", ""),
    ("bash", "env 'BASH_FUNC_true%%=() { rm -rf x; }' bash -c true", ""),
    ("ls", "LD_PRELOAD=./p.so ls", "preload"),
    ("perl", "PERL5OPT=-d PERL5DB='system(\"rm -rf x\")' perl /dev/null", ""),
    ("node", "NODE_OPTIONS='--require ./e.js' node -e 1", "e.js"),
    ("python3", "PYTHONSTARTUP=./e.py python3 -i", "e.py"),
    ("python3", "python3 -c 'import os; os.system(\"rm -rf x\")'", ""),
    ("python3", "python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"x\"])'", ""),
    ("node", "node -e 'require(\"child_process\").execSync(\"rm -rf x\")'", ""),
    ("ruby", "ruby -e 'system(\"rm -rf x\")'", ""),
    ("awk", "awk 'BEGIN {print | \"rm -rf x\"}'", ""),
    ("awk", "awk 'BEGIN {\"rm -rf x\" | getline}'", ""),
    ("sed", "sed 's/.*/rm -rf x/e' y", ""),
    ("busybox", "busybox sh -c 'rm -rf x'", ""),
    ("split", "split --filter='rm -rf x' y", ""),
    ("rsync", "rsync -e 'rm -rf x #' y h:y", ""),
    ("tmux", "tmux -c 'rm -rf x'", ""),
    ("git", "git rebase -x 'rm -rf x' --root", "repo"),
    ("git", "git grep -O'rm -rf x #' keep", "repo"),
    ("git", "git difftool -y --extcmd='rm -rf x #'", "repo-dirty"),
    ("git", "git -c difftool.t.cmd='rm -rf x #' difftool -y --tool=t", "repo-dirty"),
    ("git", "git -c diff.f.command='rm -rf x #' diff", "repo-attr"),
    ("git", "git -c filter.f.smudge='rm -rf x #' checkout -f HEAD -- y", "repo-attr"),
    ("git", "git -c filter.f.process='rm -rf x #' add y", "repo-attr"),
    ("git", "git archive --remote=. --exec='rm -rf x #' HEAD", "repo"),
    ("git", "git clone -q --upload-pack='rm -rf x #' . c", "repo"),
    ("git", "git -c remote.o.url=. -c remote.o.uploadpack='rm -rf x #' fetch o", "repo"),
    ("env", "env -S 'rm -rf x'", ""),
    ("script", "script -qc 'rm -rf x' /dev/null", ""),
    # a file the script writes, then has a program run
    ("make", "printf 'all:\\n\\trm -rf x\\n' > Makefile; make", ""),
    ("awk", "echo 'BEGIN {system(\"rm -rf x\")}' > p.awk && awk -f p.awk", ""),
    ("bash", "printf 'rm -rf x\\n' > s.sh; bash s.sh", ""),
    ("python3", "printf 'import os\\nos.system(\"rm -rf x\")\\n' > t.py; python3 t.py", ""),
    ("git", "git config alias.x '!rm -rf x' && git x", "repo"),
    ("git", "printf '[alias]\\n\\tx = !rm -rf x\\n' >> .git/config; git x", "repo"),
    ("git", "git config --global alias.x '!rm -rf x'; git x", "repo"),
    # read from a file that was there before: decided at run time, asked
    ("gdb", "gdb -batch -x g", "gdb-script"),
    ("vim", "vim -es -S v.vim -c 'qa!'", "vim-script"),
    ("make", "make", "makefile"),
    ("awk", "awk -f p.awk", "awk-file"),
]  # fmt: skip


def fixed() -> list[HostSpelling]:
    return [HostSpelling("rm", h, t, s, "issue 24") for h, t, s in ISSUE] + [
        HostSpelling("rm", h, t, s, "fixed") for h, t, s in MORE
    ]


# --- the generator ------------------------------------------------------------------------


def _single(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def _double(s: str) -> str:
    return '"' + re.sub(r'([\\"$`])', r"\\\1", s) + '"'


def _ansi(s: str) -> str:
    return "$'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


QUOTES: dict[str, Callable[[str], str]] = {"single": _single, "double": _double, "ansi-c": _ansi}
_WORD = re.compile(r"⟨(.*?)⟩", re.S)


def render(template: str, target: str, quote: Callable[[str], str]) -> str:
    """`template` with the target's command in it; each ⟨word⟩ quoted by `quote`."""
    argv = TARGETS[target]
    c = " ".join(argv)
    text = (template.replace("{h}", c + " #").replace("{c}", c)
            .replace("{py}", repr(list(argv)).replace("'", '"'))
            .replace("{js}", repr(list(argv[1:])).replace("'", '"'))
            .replace("{prog}", argv[0]).replace("{commas}", ",".join(argv)))  # fmt: skip
    return _WORD.sub(lambda m: quote(m.group(1)), text)


# (host, scaffold, [(kinds, template)]): the option spellings of each program.
OPTIONS: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("tar", "", [
        ("long=", "tar -cf /dev/null y --checkpoint=1 --checkpoint-action=⟨exec={c}⟩"),
        ("long-space", "tar -cf /dev/null y --checkpoint=1 --checkpoint-action ⟨exec={c}⟩"),
        ("old-style", "tar cf /dev/null y --checkpoint=1 --checkpoint-action=exec=⟨{c}⟩"),
        ("options-first", "tar --checkpoint=1 --checkpoint-action=⟨exec={c}⟩ --create "
         "--file=/dev/null y")]),
    ("tar", "tar", [
        ("long=", "tar -xf a.tar --to-command=⟨{c}⟩"),
        ("long-space", "tar -xf a.tar --to-command ⟨{c}⟩"),
        ("old-style", "tar xf a.tar --to-command=⟨{c}⟩"),
        ("long-all", "tar --extract --file=a.tar --to-command ⟨{c}⟩"),
        ("short", "tar -xf a.tar -I ⟨{h}⟩"),
        ("short-glued", "tar -xf a.tar -I⟨{h}⟩"),
        ("long=", "tar -xf a.tar --use-compress-program=⟨{h}⟩"),
        ("long-space", "tar -x -f a.tar --use-compress-program ⟨{h}⟩")]),
    ("zip", "", [
        ("short", "zip z.zip y -T -TT ⟨{h}⟩"),
        ("long-space", "zip z.zip y -T --unzip-command ⟨{h}⟩"),
        ("long=", "zip z.zip y --test --unzip-command=⟨{h}⟩"),
        ("options-first", "zip -T -TT ⟨{h}⟩ z.zip y")]),
    ("ssh", "", [
        ("short", "ssh -o ProxyCommand=⟨{c}⟩ h"),
        ("short-glued", "ssh -oProxyCommand=⟨{c}⟩ h"),
        ("one-word", "ssh -o ⟨ProxyCommand={c}⟩ h"),
        ("space-form", "ssh -o ⟨ProxyCommand {c}⟩ h")]),
    ("scp", "", [("short", "scp -o ProxyCommand=⟨{c}⟩ y h:")]),
    ("sftp", "", [("short", "sftp -o ProxyCommand=⟨{c}⟩ h")]),
    ("rsync", "", [
        ("short", "rsync -e ⟨{h}⟩ y h:y"),
        ("long=", "rsync --rsh=⟨{h}⟩ y h:y"),
        ("long-space", "rsync --rsh ⟨{h}⟩ y h:y")]),
    ("awk", "", [
        ("system", "awk ⟨BEGIN {system(\"{c}\")}⟩"),
        ("print-pipe", "awk ⟨BEGIN {print | \"{c}\"}⟩"),
        ("getline", "awk ⟨BEGIN {\"{c}\" | getline}⟩"),
        ("system", "awk ⟨{system(\"{c}\")}⟩ y")]),
    ("gawk", "", [
        ("system", "gawk ⟨BEGIN {system(\"{c}\")}⟩"),
        ("long-space", "gawk --source ⟨BEGIN {system(\"{c}\")}⟩"),
        ("short", "gawk -e ⟨BEGIN {system(\"{c}\")}⟩")]),
    ("mawk", "", [("system", "mawk ⟨BEGIN {system(\"{c}\")}⟩")]),
    ("busybox", "", [
        ("system", "busybox awk ⟨BEGIN {system(\"{c}\")}⟩"),
        ("sh-c", "busybox sh -c ⟨{c}⟩")]),
    ("sed", "", [
        ("e-command", "sed -n ⟨1e {c}⟩ y"),
        ("e-command", "sed ⟨1e {c}⟩ y"),
        ("short", "sed -e ⟨1e {c}⟩ y"),
        ("short-glued", "sed -ne ⟨1e {c}⟩ y"),
        ("long=", "sed --expression=⟨1e {c}⟩ y"),
        ("s-e-flag", "sed ⟨s|.*|{c}|e⟩ y")]),
    ("vim", "", [
        ("short", "vim -es -c ⟨!{c}⟩ -c ⟨qa!⟩"),
        ("plus", "vim -es +⟨!{c}⟩ +⟨qa!⟩"),
        ("split-flags", "vim -E -s -c ⟨:!{c}⟩ -c ⟨:qa!⟩"),
        ("cmd", "vim -es --cmd ⟨!{c}⟩ -c ⟨qa!⟩")]),
    ("vi", "", [("short", "vi -es -c ⟨!{c}⟩ -c ⟨qa!⟩")]),
    ("ex", "", [("short", "ex -s -c ⟨!{c}⟩ -c ⟨qa!⟩")]),
    ("make", "", [
        ("long=", "make -f /dev/null --eval=⟨$(shell {c})⟩"),
        ("long-space", "make -f /dev/null --eval ⟨$(shell {c})⟩"),
        ("short", "make -f /dev/null -E ⟨$(shell {c})⟩"),
        ("long-all", "make --file=/dev/null --eval=⟨$(shell {c})⟩")]),
    ("gdb", "", [
        ("short", "gdb -batch -ex ⟨!{c}⟩"),
        ("long=", "gdb --batch --eval-command=⟨!{c}⟩"),
        ("shell-command", "gdb -nx -batch -ex ⟨shell {c}⟩")]),
    ("sqlite3", "", [
        ("dot-shell", "sqlite3 :memory: ⟨.shell {c}⟩"),
        ("dot-system", "sqlite3 :memory: ⟨.system {c}⟩"),
        ("cmd", "sqlite3 -cmd ⟨.shell {c}⟩ :memory: .quit")]),
    ("socat", "", [
        ("system", "socat - SYSTEM:⟨{c}⟩"),
        ("system-lower", "socat -u system:⟨{c}⟩ -"),
        ("exec", "socat - EXEC:⟨{c}⟩")]),
    ("perl", "", [
        ("system", "perl -e ⟨system(\"{c}\")⟩"),
        ("exec", "perl -e ⟨exec \"{c}\"⟩"),
        ("backticks", "perl -e ⟨`{c}`⟩"),
        ("qx", "perl -e ⟨qx{{c}}⟩"),
        ("piped-open", "perl -e ⟨open(my $f, \"{c} |\"); <$f>⟩"),
        ("short-glued", "perl -we ⟨system(\"{c}\")⟩"),
        ("system-list", "perl -E ⟨system(qw({c}))⟩")]),
    ("python3", "", [
        ("os.system", "python3 -c ⟨import os; os.system(\"{c}\")⟩"),
        ("subprocess-shell", "python3 -c ⟨import subprocess; subprocess.run(\"{c}\", shell=True)⟩"),
        ("os.popen", "python3 -c ⟨import os; os.popen(\"{c}\").read()⟩"),
        ("subprocess-argv", "python3 -c ⟨import subprocess; subprocess.call({py})⟩"),
        ("os.exec", "python3 -c ⟨import os; os.execvp(\"{prog}\", {py})⟩"),
        ("os.spawn", "python3 -c ⟨import os; os.spawnvp(os.P_WAIT, \"{prog}\", {py})⟩")]),
    ("node", "", [
        ("execSync", "node -e ⟨require(\"child_process\").execSync(\"{c}\")⟩"),
        ("spawnSync", "node -e ⟨require(\"child_process\").spawnSync(\"{prog}\", {js})⟩"),
        ("execFileSync", "node --eval ⟨require(\"child_process\").execFileSync(\"{prog}\", {js})⟩"),
        ("exec", "node -e ⟨require(\"child_process\").exec(\"{c}\")⟩")]),
    ("ruby", "", [
        ("system", "ruby -e ⟨system(\"{c}\")⟩"),
        ("backticks", "ruby -e ⟨`{c}`⟩"),
        ("exec", "ruby -e ⟨exec \"{c}\"⟩"),
        ("popen", "ruby -e ⟨IO.popen(\"{c}\").read⟩")]),
    ("php", "", [
        ("system", "php -r ⟨system(\"{c}\");⟩"),
        ("shell_exec", "php -r ⟨echo shell_exec(\"{c}\");⟩")]),
    ("lua5.4", "", [("os.execute", "lua5.4 -e ⟨os.execute(\"{c}\")⟩")]),
    ("split", "", [
        ("long=", "split --filter=⟨{c}⟩ y"),
        ("long-space", "split --filter ⟨{c}⟩ y")]),
    ("m4", "", [("esyscmd", "echo ⟨esyscmd({c})⟩ | m4"), ("syscmd", "echo ⟨syscmd({c})⟩ | m4")]),
    ("tmux", "", [("short", "tmux -c ⟨{c}⟩")]),
    ("find", "", [
        ("exec", "find y -exec {c} \\;"),
        ("execdir", "find y -execdir {c} \\;")]),
    ("rpm", "", [("long", "rpm --eval ⟨%({c})⟩"), ("short", "rpm -E ⟨%({c})⟩")]),
    ("gnuplot", "", [("system", "gnuplot -e ⟨system(\"{c}\")⟩")]),
    ("dc", "", [("bang", "dc -e ⟨!{c}⟩")]),
    ("git", "repo", [
        ("rebase-exec", "git rebase -x ⟨{c}⟩ --root"),
        ("rebase-exec", "git rebase --exec=⟨{c}⟩ --root"),
        ("grep-pager", "git grep -O⟨{h}⟩ keep"),
        ("grep-pager", "git grep --open-files-in-pager=⟨{h}⟩ keep"),
        ("archive-exec", "git archive --remote=. --exec=⟨{h}⟩ HEAD"),
        ("upload-pack", "git clone -q --upload-pack=⟨{h}⟩ . c"),
        ("upload-pack", "git ls-remote --upload-pack ⟨{h}⟩ ."),
        ("upload-pack", "git fetch --upload-pack=⟨{h}⟩ ."),
        ("upload-pack", "git pull -q -u ⟨{h}⟩ . HEAD")]),
    ("git", "repo-dirty", [
        ("difftool-extcmd", "git difftool -y -x ⟨{h}⟩"),
        ("difftool-extcmd", "git difftool -y --extcmd=⟨{h}⟩")]),
    ("env", "", [("split-string", "env -S ⟨{c}⟩"), ("split-string", "env --split-string=⟨{c}⟩")]),
    ("script", "", [
        ("short-glued", "script -qc ⟨{c}⟩ /dev/null"),
        ("long=", "script -q --command=⟨{c}⟩ /dev/null")]),
]  # fmt: skip

# (host, scaffold, variables, command): variables the program runs the command from.
ENVIRONMENT: list[tuple[str, str, dict[str, str], str]] = [
    ("git", "", {"GIT_SSH_COMMAND": "{h}"}, "git ls-remote ssh://h/r"),
    ("git", "repo-dirty", {"GIT_EXTERNAL_DIFF": "{h}"}, "git diff"),
    ("git", "repo-staged", {"GIT_EDITOR": "{h}"}, "git commit"),
    ("git", "repo-staged", {"EDITOR": "{h}"}, "git commit"),
    ("git", "repo-staged", {"VISUAL": "{h}"}, "git commit"),
    ("git", "repo", {"GIT_SEQUENCE_EDITOR": "{h}"}, "git rebase -i --root"),
    ("less", "", {"LESSOPEN": "|{h}%s"}, "less y"),
    ("bash", "e.sh", {"BASH_ENV": "./e.sh"}, "bash -c true"),
    ("sh", "e.sh", {"ENV": "./e.sh"}, "sh -i"),
    ("bash", "", {"PROMPT_COMMAND": "{c}"}, "bash -i"),
    ("perl", "", {"PERL5OPT": "-d", "PERL5DB": 'system("{c}")'}, "perl /dev/null"),
    ("node", "e.js", {"NODE_OPTIONS": "--require ./e.js"}, "node -e 1"),
    ("python3", "e.py", {"PYTHONSTARTUP": "./e.py"}, "python3 -i"),
    ("rsync", "", {"RSYNC_RSH": "{h}"}, "rsync y h:y"),
]
ENV_FORMS = ("assign", "env", "export", "declare")

# (scaffold, key, value, git's words after its options)
GIT_CONFIG: list[tuple[str, str, str, str]] = [
    ("repo", "alias.x", "!{c}", "x"),
    ("repo", "alias.st", "!{h}", "st"),
    ("", "core.sshCommand", "{h}", "ls-remote ssh://h/r"),
    ("repo", "core.fsmonitor", "{h}", "status"),
    ("repo-staged", "core.editor", "{h}", "commit"),
    ("repo", "sequence.editor", "{h}", "rebase -i --root"),
    ("repo-dirty", "diff.external", "{h}", "diff"),
    ("repo-attr", "diff.f.textconv", "{h}", "diff"),
    ("repo-attr", "filter.f.clean", "{h}", "add y"),
    ("repo-hooks", "core.hooksPath", "h", "commit -m m"),
    ("repo-attr", "diff.f.command", "{h}", "diff"),
    ("repo-attr", "filter.f.smudge", "{h}", "checkout -f HEAD -- y"),
    ("repo-attr", "filter.f.process", "{h}", "add y"),
    ("repo-dirty", "difftool.t.cmd", "{h}", "difftool -y --tool=t"),
]
GIT_WAYS = ("-c", "--config-env", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS")
GIT_LEAD = ("", "--no-pager ", "-C . ")


def _env(form: str, pairs: list[tuple[str, str]], command: str) -> str:
    words = " ".join(f"{k}={v}" for k, v in pairs)
    if form == "assign":
        return f"{words} {command}"
    if form == "env":
        return f"env {words} {command}"
    return f"{'export' if form == 'export' else 'declare -x'} {words}; {command}"


def _option(rng: random.Random, target: str) -> HostSpelling:
    host, scaf, templates = rng.choice(OPTIONS)
    kind, template = rng.choice(templates)
    style = rng.choice(sorted(QUOTES))
    text = render(template, target, QUOTES[style])
    return HostSpelling(target, host, text, scaf, "variant", (f"{host}:{kind}", style))


def _environment(rng: random.Random, target: str) -> HostSpelling:
    host, scaf, variables, command = rng.choice(ENVIRONMENT)
    style, form = rng.choice(sorted(QUOTES)), rng.choice(ENV_FORMS)
    pairs = [(k, QUOTES[style](render(v, target, _single))) for k, v in variables.items()]
    return HostSpelling(target, host, _env(form, pairs, command), scaf, "variant",
                        (f"env:{next(iter(variables))}", f"env-{form}", style))  # fmt: skip


def _git(rng: random.Random, target: str) -> HostSpelling:
    scaf, key, value, words = rng.choice(GIT_CONFIG)
    way, style, lead = rng.choice(GIT_WAYS), rng.choice(sorted(QUOTES)), rng.choice(GIT_LEAD)
    value = render(value, target, _single)
    q = QUOTES[style]
    form = rng.choice(ENV_FORMS)
    if way == "-c":
        option = rng.choice([f"-c {q(f'{key}={value}')}", f"-c {key}={q(value)}"])
        text = f"git {lead}{option} {words}"
    elif way == "--config-env":
        glue = rng.choice(["=", " "])
        text = _env(form, [("V", q(value))], f"git {lead}--config-env{glue}{key}=V {words}")
    elif way == "GIT_CONFIG_COUNT":
        pairs = [("GIT_CONFIG_COUNT", "1"), ("GIT_CONFIG_KEY_0", key),
                 ("GIT_CONFIG_VALUE_0", q(value))]  # fmt: skip
        text = _env(form, pairs, f"git {lead}{words}")
    else:
        param = "'" + key + "'='" + value.replace("'", "'\\''") + "'"
        text = _env(form, [("GIT_CONFIG_PARAMETERS", q(param))], f"git {lead}{words}")
    kinds = (f"git:{key}", f"git-{way}", style) + ((f"env-{form}",) if way != "-c" else ())
    return HostSpelling(target, "git", text, scaf, "variant", kinds)


# Around a spelling: a shell handed it, a compound, a runner (these need one simple command).
WRAPS: dict[str, Callable[[str], str]] = {
    "sh-c": lambda t: f"sh -c {shlex.quote(t)}",
    "bash-c": lambda t: f"bash -c {shlex.quote(t)}",
    "subshell": lambda t: f"( {t} )",
    "group": lambda t: f"{{ {t}; }}",
    "if": lambda t: f"if true; then {t}; fi",
    "pipeline": lambda t: f"{t} | cat",
    "herestring": lambda t: f"bash <<< {shlex.quote(t)}",
    "timeout": lambda t: f"timeout 10 {t}",
    "nice": lambda t: f"nice -n 1 {t}",
    "env": lambda t: f"env A=1 {t}",
}
RUNNERS = frozenset({"timeout", "nice", "env"})


def _wrap(rng: random.Random, s: HostSpelling) -> HostSpelling:
    simple = not re.search(r"[;|&\n]|^\w+=|^(export|declare) ", s.text)
    kind = rng.choice([k for k in sorted(WRAPS) if simple or k not in RUNNERS])
    return HostSpelling(s.target, s.host, WRAPS[kind](s.text), s.scaffold, s.source,
                        (*s.kinds, f"wrap:{kind}"))  # fmt: skip


FAMILIES: dict[str, Callable[[random.Random, str], HostSpelling]] = {
    "options": _option,
    "environment": _environment,
    "git-config": _git,
}
_WEIGHTS = {"options": 5, "environment": 2, "git-config": 3}


def generate(n: int, seed: int) -> list[HostSpelling]:
    """`n` variants drawn from the families (duplicates dropped); `rm` mostly, `curl` and
    `dd` too."""
    rng = random.Random(seed)
    out: dict[str, HostSpelling] = {}
    for _ in range(n * 20):
        if len(out) >= n:
            break
        family = rng.choices(sorted(_WEIGHTS), [_WEIGHTS[f] for f in sorted(_WEIGHTS)])[0]
        target = rng.choices(sorted(TARGETS), [1, 1, 4])[0]  # curl, dd, rm
        s = FAMILIES[family](rng, target)
        if rng.random() < 0.25:
            s = _wrap(rng, s)
        out.setdefault(s.text, s)
    return list(out.values())
