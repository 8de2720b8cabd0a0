// Explain Command… / Explain Command at Cursor: asks the server (`shellgate/explain`) for the
// whole decision chain and shows the trace in a read-only editor tab.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as settings from './settings';

export const SCHEME = 'shellgate-explain';

/** Read-only documents holding rendered traces, addressed by `shellgate-explain:` URIs. */
export class TraceDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private counter = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  async show(title: string, text: string): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(this.put(title, text, ''));
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  private put(title: string, text: string, ext: string): vscode.Uri {
    this.counter += 1;
    const name = title.replace(/[\\/:*?"<>|#\s]+/g, ' ').trim().slice(0, 60) || 'trace';
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${name}${ext}`, query: String(this.counter) });
    this.texts.set(uri.toString(), text);
    return uri;
  }
}

export interface ExplainParams {
  command: string | string[]; // a script (run as bash -lc) or an argv
  cwd?: string;
  approvalPolicy: string;
  sandbox: string;
  uri?: string; // the rules document in view: a draft there is explained with it, labelled
}

export async function explain(client: LanguageClient, command: string | string[]): Promise<unknown> {
  const s = settings.read();
  const params: ExplainParams = {
    command,
    cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    approvalPolicy: s.approvalPolicy,
    sandbox: s.sandboxMode,
  };
  const doc = vscode.window.activeTextEditor?.document;
  if (doc?.languageId === 'codex-rules') params.uri = doc.uri.toString();
  return client.sendRequest('shellgate/explain', params);
}
