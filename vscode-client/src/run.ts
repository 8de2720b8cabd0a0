// Run Command…: runs a command through the server's orchestrator (LSP command
// `shellgate.runCommand`): rules, approval policy, the approval dialog when needed, the sandbox.
// The output and the outcome go to the "ShellGate: Run" output channel.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as settings from './settings';

export interface RunResult {
  status: 'completed' | 'forbidden' | 'denied' | 'aborted' | 'sandbox-error' | string;
  exitCode: number | null;
  output: string;
  reason?: string | null;
  notes?: string[];
}

export async function runCommand(client: LanguageClient, command: string, out: vscode.OutputChannel): Promise<RunResult> {
  const s = settings.read();
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  out.show(true);
  out.appendLine(`$ ${command}    (in ${cwd ?? 'the server\'s directory'}; ${s.approvalPolicy}, ${s.sandboxMode})`);
  const result = (await client.sendRequest('workspace/executeCommand', {
    command: 'shellgate.runCommand',
    arguments: [{ command, cwd, approvalPolicy: s.approvalPolicy, sandbox: s.sandboxMode, approvalTimeout: s.approvalTimeoutSeconds }],
  })) as RunResult;
  out.appendLine(renderRun(result));
  return result;
}

export function renderRun(r: RunResult): string {
  const body = r.output ?? '';
  const outcome = r.status === 'completed' ? `exit ${r.exitCode}` : r.status;
  const lines = [`${body}${body && !body.endsWith('\n') ? '\n' : ''}[${outcome}${r.reason ? `: ${r.reason}` : ''}]`];
  for (const n of r.notes ?? []) lines.push(`[note: ${n}]`);
  return lines.join('\n');
}
