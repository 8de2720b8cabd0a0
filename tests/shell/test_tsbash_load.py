"""tsbash loads tree-sitter-bash's compiled grammar without the package's `__init__`."""

from __future__ import annotations

import subprocess
import sys

import tree_sitter_bash
from tree_sitter import Language

from shellgate.shell import tsbash


def test_the_grammar_is_the_installed_packages() -> None:
    ours, theirs = tsbash._LANGUAGE, Language(tree_sitter_bash.language())
    assert (ours.name, ours.abi_version, ours.semantic_version) == (
        theirs.name,
        theirs.abi_version,
        theirs.semantic_version,
    )
    assert ours.node_kind_count == theirs.node_kind_count
    assert ours.parse_state_count == theirs.parse_state_count
    assert [ours.node_kind_for_id(i) for i in range(ours.node_kind_count)] == [
        theirs.node_kind_for_id(i) for i in range(theirs.node_kind_count)
    ]


def test_splitting_a_script_imports_no_resource_machinery() -> None:
    code = (
        "import sys\n"
        "from shellgate.shell.split import try_parse_word_only_commands_sequence as split\n"
        "assert split('git status && ls -la | wc -l') == "
        "[['git', 'status'], ['ls', '-la'], ['wc', '-l']]\n"
        "print(sorted({'importlib.resources', 'tempfile', 'shutil'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
