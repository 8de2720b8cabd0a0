// A rendered Markdown view for Explain and a question's details: VS Code's own Markdown engine
// (the built-in extension's `markdown.api.render`) in a webview of ours. The Markdown preview
// would do, but its engine drops `file:` links; here a rule's link becomes a command link that
// opens the rules file at that line, and only that command may run from the page.
import * as vscode from 'vscode';
import { commandLinks, linked } from './viewmodel';

export class MarkdownViews implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  async show(title: string, markdown: string): Promise<void> {
    const body = linked(String(await vscode.commands.executeCommand('markdown.api.render', commandLinks(markdown))));
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('shellgate.explain', title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: false, enableCommandUris: ['shellgate.openAt'], localResourceRoots: [],
      });
      this.panel.onDidDispose(() => { this.panel = undefined; });
    }
    this.panel.title = title;
    this.panel.webview.html = page(title, body);
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }

  dispose(): void { this.panel?.dispose(); }
}

function page(title: string, body: string): string {
  const esc = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${esc}</title>
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 16px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { border: 1px solid var(--vscode-panel-border); padding: 3px 8px; text-align: left; vertical-align: top; }
code, pre { font-family: var(--vscode-editor-font-family); } pre { background: var(--vscode-textCodeBlock-background); padding: 8px; overflow-x: auto; }
a { color: var(--vscode-textLink-foreground); } summary { cursor: pointer; margin: 8px 0; }
</style></head><body>${body}</body></html>`;
}
