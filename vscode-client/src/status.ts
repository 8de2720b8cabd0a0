// The status bar item: approval policy, sandbox mode and how many rules the server loaded.
// Clicking it changes the policy or the mode.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as settings from './settings';

export interface ServerStatus { rules?: number; files?: string[] }

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('shellgate.status', vscode.StatusBarAlignment.Left, 50);
  private rules: number | undefined;
  private running = false;

  constructor() {
    this.item.name = 'ShellGate';
    this.item.command = 'shellgate.changePolicy';
    this.render();
    this.item.show();
  }

  setRunning(running: boolean): void { this.running = running; this.render(); }

  /** Asks the server for its counts (`shellgate/status`); an older server simply has none. */
  async refresh(client: LanguageClient | undefined): Promise<void> {
    this.rules = undefined;
    if (client) {
      try {
        const st = (await client.sendRequest('shellgate/status', {})) as ServerStatus | null;
        this.rules = typeof st?.rules === 'number' ? st.rules : undefined;
      } catch { /* no such request */ }
    }
    this.render();
  }

  setRules(n: number | undefined): void { this.rules = n; this.render(); }

  render(): void {
    const s = settings.read();
    const count = this.rules === undefined ? '' : ` · ${this.rules} rule${this.rules === 1 ? '' : 's'}`;
    this.item.text = `${this.running ? '$(shield)' : '$(circle-slash)'} ${s.approvalPolicy} · ${s.sandboxMode}${count}`;
    this.item.tooltip = new vscode.MarkdownString(
      `**ShellGate** ${this.running ? 'server running' : 'server not running'}\n\n` +
      `- approval policy: \`${s.approvalPolicy}\`\n- sandbox: \`${s.sandboxMode}\`\n` +
      `- rules loaded: ${this.rules ?? 'unknown'}\n\nClick to change the policy or the sandbox mode.`,
    );
  }

  dispose(): void { this.item.dispose(); }
}

/** Quick pick: which setting, then which value; written to the workspace when one is open. */
export async function changePolicy(): Promise<void> {
  const s = settings.read();
  const what = await vscode.window.showQuickPick(
    [
      { label: 'Approval policy', description: s.approvalPolicy, key: 'approvalPolicy', values: settings.POLICIES },
      { label: 'Sandbox mode', description: s.sandboxMode, key: 'sandboxMode', values: settings.SANDBOX_MODES },
    ],
    { title: 'ShellGate: change…' },
  );
  if (!what) return;
  const current = what.key === 'approvalPolicy' ? s.approvalPolicy : s.sandboxMode;
  const value = await vscode.window.showQuickPick(
    what.values.map((v) => ({ label: v, description: v === current ? 'current' : undefined })),
    { title: `ShellGate: ${what.label.toLowerCase()}` },
  );
  if (!value) return;
  const target = vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration(settings.SECTION).update(what.key, value.label, target);
}
