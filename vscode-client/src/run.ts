// Run Command…: runs a command through the server's orchestrator (`shellgate.runCommand`):
// rules, approval policy, an approval dialog when needed, the sandbox. Output goes to the
// "ShellGate: Run" output channel.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as settings from './settings';

export interface RunResult {
  status?: string;
  exitCode?: number | null;
  output?: string;
  stdout?: string;
  stderr?: string;
  message?: string;
  reason?: string;
}

export async function runCommand(client: LanguageClient, command: string, out: vscode.OutputChannel): Promise<RunResult> {
  const s = settings.read();
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  out.show(true);
  out.appendLine(`$ ${command}    (cwd ${cwd ?? '?'}, ${s.approvalPolicy}, ${s.sandboxMode})`);
  const result = (await client.sendRequest('workspace/executeCommand', {
    command: 'shellgate.runCommand',
    arguments: [{ command, cwd, approvalPolicy: s.approvalPolicy, sandbox: s.sandboxMode }],
  })) as RunResult | null;
  out.appendLine(renderRun(result));
  return result ?? {};
}

export function renderRun(r: RunResult | null): string {
  if (!r) return '[no result]';
  const body = r.output ?? [r.stdout, r.stderr].filter(Boolean).join('');
  const tail = [`[${r.status ?? 'done'}`];
  if (r.exitCode !== undefined && r.exitCode !== null) tail.push(`exit ${r.exitCode}`);
  if (r.message ?? r.reason) tail.push(String(r.message ?? r.reason));
  return `${body ?? ''}${body && !body.endsWith('\n') ? '\n' : ''}${tail.join(', ')}]`;
}
