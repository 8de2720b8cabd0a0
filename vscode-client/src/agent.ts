// Ask Agent…: a task for the server's embedded agent (LSP command `shellgate.agent.start`).
// The model's text and each command's output stream into the "ShellGate: Agent" channel from
// `shellgate/agent/event` notifications; approvals arrive as `shellgate/approve` dialogs; the
// work-done progress (drawn by the client) carries Cancel. After "No, and tell the agent what to
// do differently" (status `aborted`) an input box takes the user's words for the next turn.
/* eslint-disable @typescript-eslint/no-explicit-any */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { clean } from './approvaltext';
import * as settings from './settings';

export interface AgentResult {
  threadId: string;
  status: 'completed' | 'interrupted' | 'aborted' | 'max_turns' | 'budget' | 'failed' | string;
  finalText?: string | null;
  message?: string | null;
  modelCalls?: number;
  transcript?: string;
}

export class AgentView {
  private threadId: string | undefined;
  private running: string | undefined; // the thread of the task in flight, from its events

  constructor(readonly out: vscode.OutputChannel) {}

  /** One `shellgate/agent/event`: Codex app-server items, drawn as a terminal would. */
  onEvent(e: { threadId?: string; method: string; params: any }): void {
    if (e.threadId) this.running = e.threadId;
    const p = e.params ?? {};
    switch (e.method) {
      case 'item/agentMessage/delta': this.out.append(clean(String(p.delta ?? ''), 100000)); break;
      case 'item/commandExecution/outputDelta': this.out.append(clean(String(p.delta ?? ''), 100000)); break;
      case 'item/started':
        if (p.item?.type === 'commandExecution') {
          this.out.appendLine(`\n$ ${clean(String(p.item.command))}    (in ${clean(String(p.item.cwd ?? ''))})`);
          if (p.item.justification) this.out.appendLine(`  the model says: ${clean(String(p.item.justification))}`);
        }
        break;
      case 'item/completed':
        if (p.item?.type === 'commandExecution') {
          const i = p.item;
          this.out.appendLine(`\n[${i.status}${i.exitCode !== null && i.exitCode !== undefined ? `, exit ${i.exitCode}` : ''}` +
            `${i.reason ? `: ${clean(String(i.reason))}` : ''}]`);
        } else if (p.item?.type === 'agentMessage') {
          this.out.appendLine('');
        } else if (p.item?.type === 'invalidToolCall') {
          this.out.appendLine(`\n[invalid tool call, not run: ${clean(String(p.item.error ?? ''))}]`);
        }
        break;
      default: break;
    }
  }

  /** Runs one turn under a cancellable notification: the client draws the server's own
   * work-done progress in the status bar, where VS Code offers no Cancel button. */
  ask(client: LanguageClient, task: string, continueThread = false): Thenable<AgentResult> {
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'ShellGate agent', cancellable: true },
      (progress, token) => {
        progress.report({ message: task.slice(0, 100) });
        token.onCancellationRequested(() => { void this.cancel(client); });
        return this.turn(client, task, continueThread);
      },
    );
  }

  private async turn(client: LanguageClient, task: string, continueThread: boolean): Promise<AgentResult> {
    const s = settings.read();
    this.running = continueThread ? this.threadId : undefined;
    this.out.show(true);
    this.out.appendLine(`\n> ${task}`);
    const result = (await client.sendRequest('workspace/executeCommand', {
      command: 'shellgate.agent.start',
      arguments: [{
        task,
        threadId: continueThread ? this.threadId : undefined,
        cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
        modelUrl: s.agent.modelUrl || undefined,
        model: s.agent.model || undefined,
        wireApi: s.agent.wireApi,
        apiKeyEnv: s.agent.apiKeyEnv || undefined,
        approvalPolicy: s.approvalPolicy,
        sandbox: s.sandboxMode,
      }],
    })) as AgentResult;
    this.threadId = result.threadId;
    this.running = undefined;
    this.out.appendLine(`[task ${result.status}${result.message ? `: ${clean(result.message)}` : ''}` +
      `${result.modelCalls !== undefined ? `; ${result.modelCalls} model calls` : ''}]`);
    if (result.transcript) this.out.appendLine(`[transcript: ${result.transcript}]`);
    return result;
  }

  /** Stops the task in flight (its thread when its events named it, else every running task). */
  async cancel(client: LanguageClient): Promise<void> {
    await client.sendRequest('workspace/executeCommand', {
      command: 'shellgate.agent.cancel', arguments: [this.running ? { threadId: this.running } : {}],
    });
  }
}

/** Runs a task, and after an `aborted` turn asks what to do differently and continues. */
export async function askAgent(client: LanguageClient, view: AgentView, task: string): Promise<void> {
  let result = await view.ask(client, task);
  while (result.status === 'aborted') {
    const words = await vscode.window.showInputBox({
      title: 'ShellGate: tell the agent what to do differently',
      prompt: 'The command was not run. Your words go to the agent as the next message (Escape: stop here).',
      ignoreFocusOut: true,
    });
    if (!words?.trim()) return;
    result = await view.ask(client, words.trim(), true);
  }
  if (result.status === 'failed' || result.status === 'max_turns' || result.status === 'budget') {
    void vscode.window.showWarningMessage(`ShellGate agent: ${result.status}${result.message ? `: ${result.message}` : ''}`);
  }
}
