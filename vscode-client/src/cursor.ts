// The command under the cursor (pure: unit-tested without VS Code).
/** The command under the cursor: the selection, a `# check:` comment, an example, or the line.
 * A token-list example comes back as its argv (what Codex matches), anything else as a script. */
export function commandAt(line: string, character: number, selection?: string): string | string[] | undefined {
  if (selection && selection.trim()) return selection.trim();
  const check = /^\s*#\s*check:\s*(.+?)\s*$/.exec(line);
  if (check) return check[1];
  // An example written as a token list on this line: ["git", "push", "-f"].
  for (const m of line.matchAll(/\[((?:\s*(?:"[^"]*"|'[^']*')\s*,?)+)\]/g)) {
    const start = m.index ?? 0;
    // `match = ["git status", "ls"]` lists examples, each a whole command: the string below.
    const examples = /\b(match|not_match)\s*=\s*$/.test(line.slice(0, start));
    if (!examples && character >= start && character <= start + m[0].length) {
      return [...m[1].matchAll(/"([^"]*)"|'([^']*)'/g)].map((t) => t[1] ?? t[2]);
    }
  }
  // A string literal around the cursor: "git push --force".
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'/g)) {
    const start = m.index ?? 0;
    if (character >= start && character <= start + m[0].length) return m[1] ?? m[2];
  }
  const text = line.replace(/^\s*(#|\$)\s*/, '').trim();
  return text || undefined;
}
