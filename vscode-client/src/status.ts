// The status bar item: approval policy, sandbox mode and how many rules the server loaded.
// Clicking it changes the policy or the mode.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as settings from './settings';

/** The server's `shellgate/status` answer. */
export interface ServerStatus {
  rules?: number;
  files?: string[];
  layers?: string[];
  refused?: { path: string; line: number; column: number; message: string }[];
  unsaved?: string[]; // layer files whose unsaved edits do not run until saved
  drafts?: string[]; // open rules files outside every layer: Codex never loads them
  /** Per workspace folder with a .codex folder: whether Codex itself reads its rules. */
  codexTrust?: { root: string; status: string; codexLoads: boolean; message: string }[];
  /** Outside agents' questions queued behind the dialog on screen (also pushed as a notification). */
  approvalsWaiting?: number;
  approvalsShowing?: number;
  /** The admin's requirements (/etc/codex/requirements.toml) clamped the policy or sandbox. */
  requirements?: { approvalPolicy: string | null; sandbox: string | null; warnings: string[] } | null;
  /** Codex's auto-reviewer answers the editor's questions (approvals_reviewer = "auto_review"). */
  autoReview?: { model: string; provider: string | null; base_url: string; wire_api: string; timeout_ms: number } | null;
}

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('shellgate.status', vscode.StatusBarAlignment.Left, 50);
  private status: ServerStatus = {};
  private running = false;
  private readonly told = new Set<string>(); // folders whose Codex trust note was shown

  constructor() {
    this.item.name = 'ShellGate';
    this.item.command = 'shellgate.changePolicy';
    this.render();
    this.item.show();
  }

  setRunning(running: boolean): void { this.running = running; this.render(); }

  /** The server's `shellgate/status` notification: just the approval counts. */
  onCounts(counts: { approvalsWaiting?: number; approvalsShowing?: number }): void {
    this.status = { ...this.status, ...counts };
    this.render();
  }

  /** Asks the server what it loaded (`shellgate/status`); an older server simply has no answer. */
  async refresh(client: LanguageClient | undefined): Promise<void> {
    let status: ServerStatus = {};
    if (client) {
      try {
        status = ((await client.sendRequest('shellgate/status', {})) as ServerStatus | null) ?? {};
      } catch { /* no such request */ }
    }
    this.status = status;
    this.render();
    for (const t of status.codexTrust ?? []) {
      if (t.codexLoads || this.told.has(t.root)) continue;
      this.told.add(t.root);
      void vscode.window.showInformationMessage(
        `ShellGate: ${t.message}. Commands run from this editor use the project's rules (the workspace is trusted here); Codex itself would not.`,
      );
    }
  }

  render(): void {
    const s = settings.read();
    const { rules, files = [], layers = [], refused = [], unsaved = [], drafts = [], approvalsWaiting = 0 } = this.status;
    const count = rules === undefined ? '' : ` · ${rules} rule${rules === 1 ? '' : 's'}`;
    const waiting = approvalsWaiting > 0 ? ` · $(bell) ${approvalsWaiting} waiting` : '';
    const icon = !this.running ? '$(circle-slash)' : refused.length ? '$(warning)' : '$(shield)';
    const req = this.status.requirements;
    // what runs: the admin's fallback when the requirements disallow the settings
    const policy = req?.approvalPolicy ? `${req.approvalPolicy} (admin)` : s.approvalPolicy;
    const mode = req?.sandbox ? `${req.sandbox} (admin)` : s.sandboxMode;
    const review = this.status.autoReview;
    const reviewed = review ? ` · $(sparkle) auto-review: ${review.model}` : '';
    this.item.text = `${icon} ${policy} · ${mode}${count}${waiting}${reviewed}`;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**ShellGate**: ${this.running ? 'server running' : 'server not running'}\n\n`);
    tip.appendMarkdown(`approval policy \`${s.approvalPolicy}\`, sandbox \`${s.sandboxMode}\`\n\n`);
    if (rules !== undefined) tip.appendMarkdown(`${rules} rules run, from ${files.length} file${files.length === 1 ? '' : 's'}:\n\n`);
    files.forEach((f, i) => { tip.appendMarkdown('- '); tip.appendText(`${f} [${layers[i] ?? '?'}]`); tip.appendMarkdown('\n'); });
    if (refused.length) {
      tip.appendMarkdown('\n$(warning) **Codex refuses the rules** (it would run with none of them):\n\n');
      for (const r of refused) { tip.appendMarkdown('- '); tip.appendText(`${r.path}:${r.line}:${r.column}: ${r.message}`); tip.appendMarkdown('\n'); }
    }
    if (unsaved.length) {
      tip.appendMarkdown('\nUnsaved edits (commands run with the saved files):\n\n');
      for (const f of unsaved) { tip.appendMarkdown('- '); tip.appendText(f); tip.appendMarkdown('\n'); }
    }
    if (drafts.length) {
      tip.appendMarkdown('\nNot loaded by Codex (outside its rules folders):\n\n');
      for (const f of drafts) { tip.appendMarkdown('- '); tip.appendText(f); tip.appendMarkdown('\n'); }
    }
    if (req?.warnings.length) {
      tip.appendMarkdown('\n$(warning) **The admin\'s requirements** (/etc/codex/requirements.toml):\n\n');
      for (const w of req.warnings) { tip.appendMarkdown('- '); tip.appendText(w); tip.appendMarkdown('\n'); }
    }
    if (review) {
      tip.appendMarkdown('\n$(sparkle) **Auto-review is on**: questions go to Codex\'s reviewer, ');
      tip.appendText(`${review.model} at ${review.base_url} (${review.wire_api}, deadline ${review.timeout_ms} ms)`);
      tip.appendMarkdown(', not to you; a failed review refuses the command.\n');
    }
    if (approvalsWaiting > 0) tip.appendMarkdown(`\n${approvalsWaiting} question${approvalsWaiting === 1 ? '' : 's'} from outside agents waiting (ShellGate: Show Approvals)\n`);
    for (const t of this.status.codexTrust ?? []) {
      if (t.codexLoads) continue;
      tip.appendMarkdown('\n$(info) ');
      tip.appendText(t.message);
      tip.appendMarkdown('\n');
    }
    tip.appendMarkdown('\nClick to change the policy or the sandbox mode.');
    this.item.tooltip = tip;
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
