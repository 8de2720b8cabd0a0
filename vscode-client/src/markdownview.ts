// A rendered Markdown view for Explain and a question's details: VS Code's own Markdown engine
// (the built-in extension's `markdown.api.render`) in a webview of ours. The Markdown preview
// would do, but its engine drops `file:` links; here a rule's link becomes
// `command:shellgate.openAt?…`, and the page's one script posts a click on such a link to the
// extension, which opens the rules file at that line (nothing else can be asked from the page).
import * as vscode from 'vscode';
import { commandLinks, linked, openAtArgs } from './viewmodel';

export class MarkdownViews implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  async show(title: string, markdown: string): Promise<void> {
    const body = linked(String(await vscode.commands.executeCommand('markdown.api.render', commandLinks(markdown))));
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('shellgate.explain', title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: true, enableCommandUris: false, localResourceRoots: [],
      });
      this.panel.onDidDispose(() => { this.panel = undefined; });
      this.panel.webview.onDidReceiveMessage((m: { open?: unknown }) => {
        const args = openAtArgs(m?.open);
        if (args) void vscode.commands.executeCommand('shellgate.openAt', ...args);
      });
    }
    this.panel.title = title;
    this.panel.webview.html = page(title, body, nonce());
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }

  dispose(): void { this.panel?.dispose(); }
}

function nonce(): string {
  return Array.from({ length: 24 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
}

function page(title: string, body: string, n: string): string {
  const esc = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  // The script only forwards a click on a link to the extension: the Markdown (a model's words
  // may be in it) cannot add scripts, the policy allows this one by its nonce.
  const script = `const vscode = acquireVsCodeApi();
document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a');
  if (!a) return;
  e.preventDefault();
  const target = a.getAttribute('data-href') || a.getAttribute('href') || '';
  if (target.startsWith('command:shellgate.openAt?')) vscode.postMessage({ open: target });
});`;
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${n}'">
<script nonce="${n}">${script}</script>
<title>${esc}</title>
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 16px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { border: 1px solid var(--vscode-panel-border); padding: 3px 8px; text-align: left; vertical-align: top; }
code, pre { font-family: var(--vscode-editor-font-family); } pre { background: var(--vscode-textCodeBlock-background); padding: 8px; overflow-x: auto; }
a { color: var(--vscode-textLink-foreground); } summary { cursor: pointer; margin: 8px 0; }
</style></head><body>${body}</body></html>`;
}
