// Rule coverage from past commands: the server's code lens on each rule runs
// `shellgate.showPastCommands`; a saved edit that changes past decisions arrives as
// `shellgate/pastDecisionsChanged`. Both only show what the server computed.
import * as vscode from 'vscode';

export interface PastCommands { rule: string; commands: string[] }
export interface DecisionChange { command: string; count: number; before: string; after: string }
export interface PastDecisionsChanged { summary: string; changes: DecisionChange[] }

const LABEL: Record<string, string> = { allow: 'allow', prompt: 'ask', forbidden: 'forbidden' };

export async function showPastCommands(arg: PastCommands): Promise<void> {
  if (!arg?.commands?.length) {
    void vscode.window.showInformationMessage(`ShellGate: ${arg?.rule ?? 'this rule'} matched no past command.`);
    return;
  }
  await vscode.window.showQuickPick(arg.commands.map((c) => ({ label: c })), {
    title: `Past commands matched by ${arg.rule}`, placeHolder: 'the most frequent first',
  });
}

export async function onPastDecisionsChanged(p: PastDecisionsChanged): Promise<void> {
  const pick = await vscode.window.showInformationMessage(`ShellGate: ${p.summary}`, 'Show the list');
  if (pick !== 'Show the list') return;
  await vscode.window.showQuickPick(p.changes.map((c) => ({
    label: c.command,
    description: `${LABEL[c.before] ?? c.before} → ${LABEL[c.after] ?? c.after}`,
    detail: c.count > 1 ? `${c.count} times` : undefined,
  })), { title: 'Past decisions this edit changes' });
}
