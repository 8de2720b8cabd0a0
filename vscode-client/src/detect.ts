// Which `.rules` files are Codex rules. Other tools use `.rules` too (udev, polkit), so the
// extension never claims the suffix: the manifest claims `.codex/rules/` and Starlark-looking
// first lines of files nobody else claims; this module adds $CODEX_HOME/rules/ (a runtime path)
// for `.rules` files VS Code left as plain text.
import * as vscode from 'vscode';
import { isCodexRulesPath, looksLikeCodexRules } from './rulesfiles';

export const LANGUAGE_ID = 'codex-rules';

/** Switches `doc` to codex-rules when it is one of ours and VS Code picked something else. */
export async function claim(doc: vscode.TextDocument, codexHome: string): Promise<boolean> {
  if (doc.languageId === LANGUAGE_ID || doc.uri.scheme !== 'file' || !doc.fileName.endsWith('.rules')) {
    return doc.languageId === LANGUAGE_ID;
  }
  // Only plain text: never take a file another extension recognised (say a udev rules language).
  if (doc.languageId !== 'plaintext') return false;
  const first = doc.lineCount > 0 ? doc.lineAt(0).text : '';
  if (isCodexRulesPath(doc.fileName, codexHome) || looksLikeCodexRules(first)) {
    await vscode.languages.setTextDocumentLanguage(doc, LANGUAGE_ID);
    return true;
  }
  return false;
}
