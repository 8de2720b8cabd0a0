"""A file the script writes, then has a program run: its literal text is read as the program
reads it; written any other way, the run is asked."""

from __future__ import annotations

import pytest

from shellgate.shell.bash_runs import bash_runs


def _handed(script: str) -> list[tuple[tuple[str, ...], str | None]]:
    return [(r.words, r.unknowable) for r in bash_runs(script) if r.handed is not None]


@pytest.mark.parametrize(
    "script",
    [
        "echo 'rm -rf x' > s.sh; bash s.sh",
        "echo 'rm -rf x' >s.sh\nchmod +x s.sh\n./s.sh",
        "printf 'rm -rf x\\n' > ./s.sh && sh ./s.sh",
        "cat > s.sh <<'EOF'\nset -e\nrm -rf x\nEOF\nbash s.sh",
        "echo 'rm -rf x' | tee s.sh; source s.sh",
        "echo 'rm -rf x' > a.sh; cp a.sh b.sh; bash b.sh",
        "cat > x.py <<'EOF'\nimport os\nos.system('rm -rf x')\nEOF\npython3 x.py",
        "echo '#!/usr/bin/env python3' > x; echo 'import os; os.system(\"rm -rf x\")' >> x; ./x",
        "echo 'system(\"rm -rf x\")' > x.pl; perl x.pl",
        "echo 'BEGIN {system(\"rm -rf x\")}' > p.awk; awk -f p.awk",
        "printf 'all:\\n\\trm -rf x\\n' > Makefile; make",
        "echo 'execute_process(COMMAND rm -rf x)' > CMakeLists.txt; cmake .",
        "echo '{\"scripts\": {\"test\": \"rm -rf x\"}}' > package.json; npm test",
        "echo 'rm -rf x' > .git/hooks/pre-commit; git commit -m x",
        "printf '[alias]\\n\\tx = !rm -rf x\\n' >> .git/config && git x",
    ],
)
def test_a_file_written_then_run_is_read(script: str) -> None:
    assert (("rm", "-rf", "x"), None) in _handed(script), bash_runs(script)


@pytest.mark.parametrize(
    "script",
    ["curl -s u > s.sh; bash s.sh", "echo \"$X\" > s.sh; ./s.sh", "cp \"$F\" s.sh; bash s.sh"],
)
def test_a_file_written_at_run_time_then_run_is_asked(script: str) -> None:
    found = _handed(script)
    assert found and all(why for _, why in found), bash_runs(script)


@pytest.mark.parametrize(
    "script",
    ["echo hi > out.txt; make test", "echo 'x' > notes.md; git commit -am x",
     "python3 x.py", "echo 'print(1)' > x.py; python3 x.py"],  # fmt: skip
)
def test_other_files_hand_nothing(script: str) -> None:
    assert not [w for w, _ in _handed(script) if w[:1] == ("rm",)], bash_runs(script)
    assert all(why is None for _, why in _handed(script))
