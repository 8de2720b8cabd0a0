// Which `.rules` files are Codex rules (pure: unit-tested without VS Code).
import * as path from 'path';

// Same test as the manifest's `firstLine` (keep the two in step).
export const FIRST_LINE = /^\s*(prefix_rule|network_rule|host_executable)\s*\(|^#.*\b([Cc]odex|execpolicy|prefix_rule|network_rule)\b/;

export function looksLikeCodexRules(firstLine: string): boolean {
  return FIRST_LINE.test(firstLine);
}

export function isCodexRulesPath(fsPath: string, codexHome: string): boolean {
  if (!fsPath.endsWith('.rules')) return false;
  const dir = path.dirname(fsPath);
  const userRules = path.join(codexHome, 'rules');
  return dir === userRules || dir.startsWith(userRules + path.sep) || /[\\/]\.codex[\\/]rules([\\/]|$)/.test(dir);
}
