"""The table: programs that run commands or load code, and through what (data, not code).

One row a program, the way GTFOBins keeps one entry a program: the options through which it is
handed a command and how (`shell`: shell source, as `sh -c` takes it; `argv`: a program it
executes; `file`: a file of commands it reads; `code`: inline code in a language; `commands`:
its own command language, where an escape runs shell source), the operands it runs (`rest`:
a runner's command), and its own environment variables. A spelling `--opt=pre=` takes the
value after `pre=` only (`--checkpoint-action=exec=CMD`); `-o:Key` is `-o Key=VALUE` or
`-o 'Key VALUE'` (ssh's options, compared without case). Options that take a value but hand
nothing go in `valued`, so that operands are found.

Rows come from GTFOBins (every program with a `shell` or `command` function; commit below),
each program's manual, and issue 24. `tests/shell/programs/gtfobins.yaml` keeps the entries
used, with their commit.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

GTFOBINS_COMMIT = "7382261ef936e35896ba70e7a6b833352ffb9a22"  # GTFOBins/GTFOBins.github.io


class Hand(Enum):
    """How a command is handed over."""

    SHELL = "shell"  # shell source, read as `sh -c` reads it
    ARGV = "argv"  # a program executed (the value is its path or name)
    FILE = "file"  # a file of commands or code, read at run time
    CODE = "code"  # inline code in a language (`language`): the language's reader
    COMMANDS = "commands"  # the program's own command language, with escapes to the shell
    RUNTIME = "runtime"  # code or commands decided at run time (a library loaded, ...)


@dataclass(frozen=True)
class Way:
    """One option (or variable) and how its value is handed over."""

    hand: Hand
    language: str = ""  # CODE/COMMANDS: the reader's key ("perl", "vim", ...)
    prefix: str = ""  # the value counts only after this prefix (`exec=`)
    key: str = ""  # `-o KEY=VALUE`: the key, compared without case


@dataclass(frozen=True)
class Rest:
    """A runner's command: the operands after `after` (a subcommand) and `skip` positional
    operands, run as an argv (or joined into shell source when `shell`)."""

    skip: int = 0
    after: tuple[str, ...] = ()
    shell: bool = False
    run: tuple[str, ...] = ()  # the program that runs them (`capsh -- ARGS` runs bash ARGS)
    maybe_skip: bool = False  # the positional operand is optional (`setarch [ARCH] CMD`)
    directory: str = ""  # the command is looked up there (`service NAME`: /etc/init.d/NAME)


@dataclass(frozen=True)
class Program:
    options: Mapping[str, tuple[Way, ...]]
    valued: frozenset[str] = frozenset()
    rest: Rest | None = None
    operands: Way | None = None  # each operand (after `skip`) read this way
    skip: int = 0
    env: Mapping[str, Way] = field(default_factory=dict)
    source: str = "GTFOBins"
    whole: bool = False  # single-dash options are whole words (`gdb -nx -ex CMD`), never glued


# name -> the row as written; a Program is built when a command of that name is first read
# (the hook reads a few commands a process: building every row would cost more than it reads)
SPECS: dict[str, dict[str, Any]] = {}


def _row(names: str, **spec: Any) -> None:
    for name in names.split():
        SPECS[name] = spec


@functools.cache
def row(name: str) -> Program | None:
    """The table's row for the program `name`, if any."""
    spec = SPECS.get(name)
    return None if spec is None else _build(**spec)


def _build(
    *,
    shell: str = "",
    argv: str = "",
    file: str = "",
    code: str = "",
    commands: str = "",
    runtime: str = "",
    lang: str = "",
    valued: str = "",
    rest: Rest | None = None,
    operands: Hand | None = None,
    skip: int = 0,
    env: Mapping[str, Way] | None = None,
    source: str = "GTFOBins",
    whole: bool = False,
) -> Program:
    options: dict[str, tuple[Way, ...]] = {}
    for spellings, hand in ((shell, Hand.SHELL), (argv, Hand.ARGV), (file, Hand.FILE),
                            (code, Hand.CODE), (commands, Hand.COMMANDS),
                            (runtime, Hand.RUNTIME)):  # fmt: skip
        for spelling in spellings.split():
            name, prefix, key = spelling, "", ""
            if ":" in spelling[1:]:
                name, key = spelling.split(":", 1)
            elif "=" in spelling:
                name, prefix = spelling.split("=", 1)
            way = Way(hand, lang if hand in (Hand.CODE, Hand.COMMANDS) else "", prefix, key)
            if way not in options.get(name, ()):
                options[name] = (*options.get(name, ()), way)
    return Program(
        options,
        frozenset(valued.split()),
        rest,
        Way(operands, lang) if operands is not None else None,
        skip,
        env or {},
        source,
        whole,
    )


SH, ARGV, FILE, RUNTIME = Way(Hand.SHELL), Way(Hand.ARGV), Way(Hand.FILE), Way(Hand.RUNTIME)

# --- options that take shell source or a program --------------------------------------------
_row("tar gtar", shell="--to-command --checkpoint-action=exec= -I --use-compress-program "
     "-F --info-script --new-volume-script --rsh-command", source="GTFOBins, tar(1)",
     valued="-f --file -C --directory -T --files-from -X --exclude-from -b -g -H -K -L -N -V "
     "--format --owner --group --mode --mtime --transform --xform --exclude")  # fmt: skip
_row("zip", shell="-TT --unzip-command", valued="-b -n -t -tt -x -i -O")
_row("ssh slogin", shell="-o:ProxyCommand -o:LocalCommand -o:KnownHostsCommand "
     "-o:RemoteCommand", valued="-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w "
     "-B", rest=Rest(skip=1, shell=True), source="GTFOBins, ssh_config(5)")  # fmt: skip
_row("scp sftp", shell="-o:ProxyCommand -o:LocalCommand -o:KnownHostsCommand", argv="-S",
     valued="-c -D -F -i -J -l -o -P -X -B -b -R -s")  # fmt: skip
_row("sshfs", shell="-o:ssh_command -o:ProxyCommand", argv="-o:ssh_program", valued="-o -p -F")
_row("check_by_ssh", shell="-o:ProxyCommand -C --command",
     valued="-H -p -t -l -i -o -O -n -s -E -F -S")  # fmt: skip
_row(
    "rsync",
    shell="-e --rsh --rsync-path",
    env={"RSYNC_RSH": SH, "RSYNC_CONNECT_PROG": SH},
    valued="-f --filter -B -T --temp-dir -M "
    "--exclude --include --exclude-from --include-from --files-from --chown --chmod",
)
_row("borg", shell="--rsh")
_row("cpio", shell="--rsh-command", valued="-F -E -H -I -O -R -M -C --file --format")
_row("sshuttle", shell="-e --ssh-cmd", valued="-r --remote -x --exclude -H")
_row("apt-get apt apt-cache aptitude", shell="-o:APT::Update::Pre-Invoke "
     "-o:APT::Update::Post-Invoke -o:APT::Update::Post-Invoke-Success "
     "-o:DPkg::Pre-Invoke -o:DPkg::Post-Invoke -o:DPkg::Pre-Install-Pkgs -o:Dpkg::Pre-Invoke "
     "-o:Dpkg::Post-Invoke -o:APT::Install::Pre-Invoke -o:APT::Install::Post-Invoke",
     file="-c --config-file", valued="-t -a")  # fmt: skip
_row(
    "aria2c",
    argv="--on-download-error --on-download-complete --on-download-start "
    "--on-download-pause --on-download-stop --on-bt-download-complete",
    valued="-d -o -i",
)
_row("certbot", shell="--pre-hook --post-hook --deploy-hook --renew-hook --manual-auth-hook "
     "--manual-cleanup-hook", valued="-d -m --email --logs-dir --work-dir --config-dir "
     "--webroot-path -w --cert-name")  # fmt: skip
_row("dnsmasq", shell="--conf-script --dhcp-script", file="-C --conf-file")
_row("dmsetup", shell="--exec")
_row("enscript", shell="-I --filter", valued="-o -p --output -M -f -F -t -b")
_row(
    "latexmk",
    shell="-pdflatex= -latex= -lualatex= -xelatex= -e -dvipdf= -ps2pdf= "
    "-pdflatex -latex -lualatex -xelatex -dvipdf -ps2pdf",
    file="-r",
)
_row("man", shell="-H --html -P --pager", valued="-M -S -s -L -m -C -R -E -p")
_row("openvpn", shell="--up --down --ipchange --route-up --route-pre-down --tls-verify "
     "--client-connect --client-disconnect --learn-address --auth-user-pass-verify",
     file="--config")  # fmt: skip
_row("pip pip3", shell="--editor")
_row("plymouth", shell="--command")
_row("restic", shell="--password-command", env={"RESTIC_PASSWORD_COMMAND": SH},
     valued="-r --repo -p --password-file")  # fmt: skip
_row("scrot", shell="-e --exec", valued="-d --delay -q --quality")
_row("split", shell="--filter", valued="-a -b -C -l -n -t --additional-suffix")
_row("yt-dlp youtube-dl", shell="--exec --exec-before-download", valued="-o -f")
_row("zic", argv="-y", valued="-d -l -p -L -b")
_row("tcpdump", argv="-z", valued="-i -w -W -G -C -c -s -r -F -E -y -Z -B -j -M -T -V")
_row("wget", argv="--use-askpass", valued="-O -o -a -e -i -P -t -T -U --execute")
_row("agetty getty", argv="-l --login-program", valued="-o --login-options -f -H -I -t")
_row("dhclient", argv="-sf", valued="-cf -lf -pf -e")
_row("gcc cc c89 c99 g++ clang", argv="-wrapper", valued="-o -x -MF -MT -MQ -include", whole=True)
_row("csvtool", valued="-t -u -o", rest=Rest(after=("call",), shell=True))
_row("gem", shell="-e --editor")
_row("check_ssl_cert", argv="--grep-bin --openssl --curl-bin --file-bin", valued="-H --host")
_row("cdist", shell="-s --shell")
_row("xdg-user-dir", operands=Hand.SHELL)  # its operand lands in the shell's `eval`
_row("perlbug", shell="-e --editor", valued="-s -r -c -b -f -F -S -C -a")
_row("mail mailx bsd-mailx s-nail", commands="--exec -E", lang="mail",
     valued="-s -c -b -r -f -a")  # fmt: skip
_row("fzf", commands="--bind", lang="fzf")
_row("busctl", runtime="--address")
_row("sysctl", commands="-w", operands=Hand.COMMANDS, lang="sysctl")
_row("tmux tmate", shell="-c", valued="-f -L -S -T")
_row("genie", shell="-c")
_row("dc", commands="-e --expression", file="-f --file", lang="dc")
_row("lftp", commands="-c -e", file="-f", lang="lftp")
_row("mysql mariadb", commands="-e --execute", lang="mysql",
     valued="-u -p -h -P -D -S --user --host --port --database")  # fmt: skip
_row("psql", commands="-c --command", file="-f --file", lang="psql",
     valued="-U -h -p -d --username --host --port --dbname -v --set")  # fmt: skip
_row("sqlite3 sqlite", commands="-cmd", operands=Hand.COMMANDS, skip=1, lang="sqlite3",
     file="-init")  # fmt: skip
_row("socat", operands=Hand.COMMANDS, lang="socat")
_row(
    "make gmake",
    commands="--eval -E",
    lang="make",
    file="-f --file --makefile",
    valued="-C --directory -I --include-dir -j --jobs -l -o -W",
)
_row("hg", commands="--config", lang="hg", valued="-R --repository --cwd")
_row("rpm rpmdb rpmquery rpmverify rpmbuild", commands="--eval -E", shell="--pipe",
     lang="rpm", valued="--define -D --root --dbpath")  # fmt: skip
_row("ansible-playbook", file="")  # its playbook is code in a file: out of reach
_row("gdb", commands="-ex --eval-command -iex --init-eval-command", lang="gdb",
     file="-x --command -ix --init-command", valued="-p --pid -d --directory -cd -s -e -se",
     rest=Rest(after=("--args",)), whole=True)  # fmt: skip
_row("vim vi nvim ex view vimdiff rvim rview gvim evim", commands="-c --cmd", lang="vim",
     file="-S -u", valued="-t -q -w -W -T -i -r")  # fmt: skip
_row("emacs", code="--eval -eval --execute", file="-l --load -f --funcall --script -x",
     lang="elisp")  # fmt: skip
_row("crash", env={"CRASHPAGER": SH})
_row("autoconf autoheader autoreconf autom4te autoscan autoupdate ifnames", env={"AUTOM4TE": ARGV})
_row("systemctl journalctl loginctl coredumpctl", env={"SYSTEMD_EDITOR": SH, "SYSTEMD_PAGER": SH})
_row("nroff groff troff", env={"GROFF_BIN_PATH": RUNTIME})
_row("less more", env={"LESSOPEN": SH, "LESSCLOSE": SH})
_row("tex latex pdflatex pdftex xelatex lualatex xetex luatex", operands=Hand.COMMANDS,
     lang="tex")  # fmt: skip
_row("fail2ban-client", file="-c")
_row("logrotate", argv="-m --mail", file="")
_row("easyrsa", file="--vars")
_row("neofetch fastfetch", file="--config -c")
_row("minicom", file="-S --script")
_row("procmail", file="-m")
_row("rsyslogd", file="-f")
_row("runscript", operands=Hand.FILE)
_row("run-parts", operands=Hand.FILE, valued="--regex -u --umask -a --arg")
_row("kubectl", file="--kubeconfig")
_row("forge", file="--use")
_row("wg-quick", operands=Hand.FILE)
_row("virsh", operands=Hand.FILE, valued="-c --connect")
_row("gtester", operands=Hand.FILE)
_row("bpftrace", code="-e", lang="awk", operands=Hand.FILE, argv="-c", valued="-o -p")

# --- inline code ------------------------------------------------------------------------------
_row("python python2 python3 pypy pypy3", code="-c", lang="python", valued="-m -W -X -Q",
     source="python(1)")  # fmt: skip
_row("perl", code="-e -E", lang="perl", valued="-I")
_row("ruby irb", code="-e", lang="ruby", valued="-I -r -C -E")
_row("node nodejs bun deno", code="-e --eval -p --print", lang="node", valued="-r --require "
     "--import --loader --experimental-loader -C --conditions")  # fmt: skip
_row("php", code="-r", lang="php", valued="-c -d -z -f")
_row("lua luajit lua5.1 lua5.2 lua5.3 lua5.4", code="-e", lang="lua", valued="-l")
_row("R Rscript", code="-e", lang="r")
_row("julia", code="-e --eval -E --print", lang="julia")
_row("gnuplot", code="-e", lang="gnuplot")
_row("octave octave-cli", code="--eval", lang="octave")
_row("slsh", code="-e", lang="slsh")
_row("clisp", code="-x", lang="lisp")
_row("guile", code="-c -e", lang="lisp", file="-l -s")
_row("ghc ghci runghc", code="-e", lang="haskell")
_row("jrunscript jjs", code="-e", lang="js")
_row("puppet", code="-e --execute", lang="puppet")
_row("expect", code="-c", lang="tcl", file="-f")  # fmt: skip
_row("tclsh wish", operands=Hand.FILE)
_row("m4", lang="m4", code="-D --define")  # and its input (`echo 'esyscmd(CMD)' | m4`)
_row("at batch", file="-f")  # and its input (`echo CMD | at now`): commands for sh
# A program file given by an option (`awk -f`, `sed -f`, `make -f`) is read at run time, as
# `vim -S` and `gdb -x` are: people allow these programs by name as if read-only (issue 24);
# `make` with the project's own Makefile stays out of reach (a project's build file).
_row("awk gawk mawk nawk busybox-awk", lang="awk", valued="-F -v --assign --field-separator",
     file="-f --file -i --include -E --exec", code="-e --source", runtime="-l --load",
     source="GTFOBins, gawk(1)")  # fmt: skip
_row("sed gsed", lang="sed", code="-e --expression", valued="-l --line-length",
     file="-f --file", source="GTFOBins, sed(1)")  # fmt: skip

# --- runners: their operands are a command -------------------------------------------------------
for _names, _valued, _rest in (
    ("aa-exec", "-p --profile -n --namespace", Rest()),
    ("aoss", "", Rest()),
    ("choom", "-n -p", Rest()),
    ("cpulimit", "-l --limit -p --pid -e --exe -i", Rest()),
    ("distcc", "", Rest()),
    ("grc", "-c --config", Rest()),
    ("logsave", "", Rest(skip=1)),
    ("multitime", "-n -s -i -o", Rest()),
    ("perf", "-e -o -p -r -x -G -a -C", Rest(after=("stat",))),
    ("pexec", "-n -o -e -c -p -u", Rest()),
    ("rlwrap", "-a -b -c -f -H -l -p -P -s -S -t -w -z", Rest()),
    ("setarch", "", Rest(skip=1, maybe_skip=True)),
    ("linux32 linux64 i386 x86_64", "", Rest()),
    ("openvt", "-c --console -f -u -s -w -l -v", Rest()),
    ("service", "", Rest(directory="/etc/init.d/")),
    (
        "ld.so ld-linux.so.2 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1",
        "--library-path --preload --audit --argv0",
        Rest(),
    ),
    ("lxc incus", "--env --user --group --cwd", Rest(after=("exec",), skip=1)),
    ("msgfilter", "-i --input -o --output-file -D --directory -d -E -w --width", Rest()),
    ("rustup", "--toolchain", Rest(after=("run",), skip=1)),
    (
        "docker podman nerdctl",
        "-v --volume -u --user -e --env -w --workdir --name --network "
        "--mount -p --publish --entrypoint -l --label --platform --env-file -h --hostname --cpus "
        "-m --memory --device --cap-add --cap-drop --security-opt --pull --add-host --dns --tmpfs "
        "--ulimit --gpus --restart --pid --ipc --uts --userns --runtime",
        Rest(after=("run",), skip=1),
    ),
    ("setlock", "", Rest(skip=1)),
    ("softlimit", "-a -c -d -f -l -m -o -p -r -s -t", Rest()),
    ("sshpass", "-p -f -d -e -P", Rest()),
    ("ssh-agent", "-a -E -P -t", Rest()),
    ("torify", "", Rest()),
    ("ksu", "-n -l -z -Z", Rest(after=("-e",))),
    (
        "start-stop-daemon",
        "-p --pidfile -u --user -g --group -n --name -c --chuid -r --chroot "
        "-d --chdir -N --nicelevel",
        Rest(after=("-x",)),
    ),
    ("xdotool", "", Rest(after=("exec",))),
    ("npm pnpm", "-C --prefix -w --workspace", Rest(after=("exec",))),
    ("npx", "-p --package -c --call", Rest()),
    ("yarn", "--cwd", Rest(after=("exec",))),
    ("uv", "--python -p --with --directory --project", Rest(after=("run",))),
    ("cabal", "--project-file", Rest(after=("exec",))),
    ("bundle bundler", "", Rest(after=("exec",))),
    ("ip", "-n -netns", Rest(after=("netns", "exec"), skip=1)),
    ("pidstat", "-p -G -T", Rest(after=("-e",))),
    ("capsh", "", Rest(after=("--",), run=("bash",))),
    ("mosh", "--server --ssh -p --port", Rest(skip=1)),
    ("task", "", Rest(after=("execute",))),
    ("codex", "", Rest(after=("sandbox", "linux"))),
    ("firejail", "", Rest()),
    ("parallel", "-j -S --jobs", Rest()),
):
    _row(_names, valued=_valued, rest=_rest)

# --- the environment: variables that make any program run or load code ----------------------------
# BASH_FUNC_name%% (an exported function) is read by prefix; see `environment.py`.
ENVIRONMENT_TABLE: dict[str, Way] = {
    "BASH_ENV": FILE,  # bash -c / bash SCRIPT source it first
    "ENV": FILE,  # sh (interactive, posix mode) sources it
    "LD_PRELOAD": RUNTIME,
    "LD_AUDIT": RUNTIME,
    "PAGER": SH,
    "MANPAGER": SH,
    "EDITOR": SH,
    "VISUAL": SH,
    "LESSOPEN": SH,
    "LESSCLOSE": SH,
    "PERL5OPT": Way(Hand.RUNTIME, "perl5opt"),
    "PERL5DB": Way(Hand.CODE, "perl"),
    "NODE_OPTIONS": Way(Hand.RUNTIME, "node_options"),
    "PYTHONSTARTUP": FILE,
    "PROMPT_COMMAND": SH,
    "GIT_SSH_COMMAND": SH,
    "GIT_SSH": ARGV,
    "GIT_EDITOR": SH,
    "GIT_SEQUENCE_EDITOR": SH,
    "GIT_PAGER": SH,
    "GIT_EXTERNAL_DIFF": SH,
    "GIT_ASKPASS": ARGV,
    "SSH_ASKPASS": ARGV,
    "GIT_PROXY_COMMAND": ARGV,
    "GIT_EXEC_PATH": Way(Hand.RUNTIME),
    "GIT_CONFIG_GLOBAL": FILE,
    "GIT_CONFIG_SYSTEM": FILE,
    "SUDO_ASKPASS": ARGV,
}
