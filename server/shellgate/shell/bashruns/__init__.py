"""What bash runs for a script or an argv, read in four stages (`shell.bash_runs` is the front):

- `commands`: tree-sitter's tree of a script, walked for each command and its words;
- `words`: bash's word expansion of one word (quoting, `$'...'`, braces, $IFS splitting);
- `misreadings`: where tree-sitter's tree differs from what bash reads, and how it is mended;
- `stdin`: the literal text a command reads on its input, for a shell that reads it;
- `runners`: an argv read for the commands it runs in turn (shells, `eval`, wrappers, ...).

`run` holds what they share: a `Run`, the bounds, and the reading's state.
"""
