// ShellGate for VS Code: wires the language server, the commands, the status bar and the
// approval dialog together. Logic lives in the server; this file only connects parts.
import * as path from 'path';
import * as vscode from 'vscode';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import { AgentView, askAgent } from './agent';
import { renderApprovals, type ApprovalHistory } from './approvals';
import { approvalClosed, askApproval, ApproveParams, closeAll, setDetailsView, setQuestionBoard } from './approve';
import { detailsMarkdown } from './approvaltext';
import { claim, LANGUAGE_ID } from './detect';
import { commandAt } from './cursor';
import { onPastDecisionsChanged, PastCommands, PastDecisionsChanged, showPastCommands } from './coverage';
import { explain, SCHEME, TraceDocuments } from './explain';
import { AgentGuard, governAgents, hookStatus, shellgate } from './govern';
import { registerMcpServers } from './mcp';
import { runCommand } from './run';
import { Server } from './server';
import * as settings from './settings';
import { changePolicy, StatusItem } from './status';
import { MarkdownViews } from './markdownview';
import { join, renderTrace } from './trace';
import { registerViewCommands, Views } from './views';

let server: Server | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  if (vscode.workspace.isTrusted) return activateTrusted(context);
  // Untrusted workspace: nothing runs (the interpreter could come from the workspace's settings);
  // only the warning that VS Code's agent loads no hook here, until the workspace is trusted.
  const guard = new AgentGuard(undefined);
  guard.render();
  // The views show, and say why they are empty: nothing that reads this workspace runs here.
  const views = new Views();
  views.untrusted();
  context.subscriptions.push(guard, views, vscode.workspace.onDidGrantWorkspaceTrust(() => {
    guard.dispose();
    views.dispose();
    void activateTrusted(context);
  }));
}

async function activateTrusted(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('ShellGate', { log: true });
  const runOut = vscode.window.createOutputChannel('ShellGate: Run');
  const agent = new AgentView(vscode.window.createOutputChannel('ShellGate: Agent'));
  const status = new StatusItem();
  const traces = new TraceDocuments();
  const views = new Views();
  const rendered = new MarkdownViews();
  setQuestionBoard(views);
  setDetailsView((p) => rendered.show(`Question: ${join(p.command)}`, detailsMarkdown(p)));
  const srv = new Server(context, log, [
    (client) => client.onRequest('shellgate/approve', (p: ApproveParams, token) => askApproval(p, log, token)),
    (client) => client.onNotification('shellgate/approveClosed', (c: { id: string; message: string }) => approvalClosed(c)),
    (client) => client.onDidChangeState((e) => { if (e.newState === State.Stopped) closeAll(); }),
    (client) => client.onNotification('shellgate/pastDecisionsChanged', (p: PastDecisionsChanged) => onPastDecisionsChanged(p)),
    (client) => client.onNotification('shellgate/agent/event', (e: { threadId?: string; method: string; params: unknown }) => agent.onEvent(e)),
    (client) => client.onNotification('shellgate/status', (c: { approvalsWaiting?: number; approvalsShowing?: number }) => {
      status.onCounts(c);
      void views.refreshHistory(client); // a question came or went: the history follows
    }),
    (client) => client.onNotification('shellgate/policyChanged', () => { void views.refreshPolicy(client); }),
    (client) => client.onNotification('shellgate/historyChanged', () => { void views.refreshHistory(client); }),
  ]);
  server = srv;
  let agentsRefresh: (() => Promise<void>) | undefined;
  const refreshAgentsLater = async (): Promise<void> => { await agentsRefresh?.(); };
  context.subscriptions.push(log, runOut, agent.out, status, views, rendered, srv.onDidChangeClient((c) => {
    status.setRunning(Boolean(c));
    void status.refresh(c);
    void views.refreshPolicy(c);
    void views.refreshHistory(c);
    void refreshAgentsLater();
  }));
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(SCHEME, traces));
  registerMcpServers(context, log);
  const guard = new AgentGuard(context);
  context.subscriptions.push(guard);
  const refreshAgents = async (): Promise<void> => {
    let reviewer: string | null = null; // Codex's auto-reviewer, when it answers (the server knows)
    try {
      const st = (await srv.current?.sendRequest('shellgate/status', {})) as { autoReview?: { model: string } | null } | undefined;
      reviewer = st?.autoReview?.model ?? null;
    } catch { /* no server yet: said once it starts */ }
    try { views.setAgents(await hookStatus(context), undefined, reviewer); } catch (e) { views.setAgents(undefined, errorText(e)); }
  };
  agentsRefresh = refreshAgents;
  void guard.refresh().then(refreshAgents);

  const need = async (): Promise<LanguageClient | undefined> => {
    const client = await srv.ensure();
    if (!client) void vscode.window.showErrorMessage('ShellGate: the language server is not running (see Show Logs).');
    return client;
  };

  const explainAndShow = async (command: string | string[]): Promise<void> => {
    const client = await need();
    if (!client) return;
    try {
      const result = (await explain(client, command)) as { markdown?: string };
      const title = `Explain ${typeof command === 'string' ? command : join(command)}`;
      // rendered: the outcome, the commands with their deciding rule as a link, the trace folded
      if (typeof result?.markdown === 'string') await rendered.show(title, `# ${markdownTitle(title)}\n\n${result.markdown}`);
      else await traces.show(title, renderTrace(result));
    } catch (e) {
      void vscode.window.showErrorMessage(`ShellGate: explain failed: ${errorText(e)}`);
    }
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('shellgate.explain', async (arg?: string) => {
      const command = arg ?? await vscode.window.showInputBox({
        title: 'ShellGate: Explain Command', prompt: 'A command line (run as bash -lc) to explain',
        placeHolder: 'git push --force origin main', ignoreFocusOut: true,
      });
      if (command?.trim()) await explainAndShow(command.trim());
    }),
    vscode.commands.registerCommand('shellgate.explainAtCursor', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      const pos = editor.selection.active;
      const command = commandAt(editor.document.lineAt(pos.line).text, pos.character, editor.document.getText(editor.selection));
      if (command) await explainAndShow(command);
      else void vscode.window.showInformationMessage('ShellGate: no command at the cursor.');
    }),
    vscode.commands.registerCommand('shellgate.run', async (arg?: string) => {
      const command = arg ?? await vscode.window.showInputBox({
        title: 'ShellGate: Run Command', prompt: 'A command line to run through the rules, approvals and the sandbox',
        placeHolder: 'make test', ignoreFocusOut: true,
      });
      if (!command?.trim()) return;
      const client = await need();
      if (!client) return;
      try {
        await runCommand(client, command.trim(), runOut);
        refreshStatus();
      } catch (e) {
        runOut.appendLine(`[error: ${errorText(e)}]`);
        void vscode.window.showErrorMessage(`ShellGate: run failed: ${errorText(e)}`);
      }
    }),
    vscode.commands.registerCommand('shellgate.askAgent', async (arg?: string) => {
      const task = arg ?? await vscode.window.showInputBox({
        title: 'ShellGate: Ask Agent', prompt: 'A task for the agent: its commands pass the rules, your approval and the sandbox',
        placeHolder: 'run the tests and fix what fails', ignoreFocusOut: true,
      });
      if (!task?.trim()) return;
      const client = await need();
      if (!client) return;
      try {
        await askAgent(client, agent, task.trim());
        refreshStatus();
      } catch (e) {
        agent.out.appendLine(`[error: ${errorText(e)}]`);
        void vscode.window.showErrorMessage(`ShellGate agent: ${errorText(e)}`);
      }
    }),
    vscode.commands.registerCommand('shellgate.cancelAgent', async () => {
      const client = srv.current;
      if (client) await agent.cancel(client);
    }),
    vscode.commands.registerCommand('shellgate.changePolicy', changePolicy),
    vscode.commands.registerCommand('shellgate.restartServer', async () => {
      log.info('restart requested');
      await srv.restart();
    }),
    vscode.commands.registerCommand('shellgate.showLogs', () => log.show()),
    vscode.commands.registerCommand('shellgate.governAgents', () => governAgents(context, guard, log)),
    vscode.commands.registerCommand('shellgate.showPastCommands', (arg: PastCommands) => showPastCommands(arg)),
    ...registerViewCommands(views, {
      client: () => srv.current,
      explain: (words) => explainAndShow(words),
      showQuestion: (p) => rendered.show(`Question: ${join(p.command)}`, detailsMarkdown(p)),
      installHook: async (args) => {
        const run = await shellgate(context, args);
        log.info(`shellgate ${args.join(' ')} (exit ${run.code})\n${run.stdout}${run.stderr}`);
        if (run.code !== 0) void vscode.window.showErrorMessage(`ShellGate: \`shellgate ${args.join(' ')}\` failed: ${(run.stderr || run.stdout).trim().slice(0, 400)}`);
        else void vscode.window.showInformationMessage(`ShellGate: ${run.stdout.trim().split('\n')[0]}`);
        await guard.refresh();
        await refreshAgents();
      },
      doctor: async () => {
        const run = await shellgate(context, ['hook', 'doctor']);
        await traces.show('ShellGate hook doctor', `$ shellgate hook doctor   (exit ${run.code})\n\n${run.stdout}${run.stderr}`);
      },
    }),
    vscode.commands.registerCommand('shellgate.openUserRules', async () => {
      const file = vscode.Uri.file(path.join(settings.codexHome(settings.read()), 'rules', 'default.rules'));
      try {
        await vscode.workspace.fs.stat(file);
      } catch {
        // a new file only: an existing one is never rewritten (rules files are appended to)
        await vscode.workspace.fs.writeFile(file, Buffer.from('# Codex rules: forbidden > prompt > allow\n'));
      }
      await vscode.window.showTextDocument(file);
    }),
    vscode.commands.registerCommand('shellgate.showApprovals', async () => {
      const client = await need();
      if (!client) return;
      const history = (await client.sendRequest('shellgate/approvals', {})) as ApprovalHistory;
      await traces.show('ShellGate Approvals', renderApprovals(history));
    }),
  );

  // The status bar's rule count follows the rules: edits, saves, files on disk, amendments.
  let statusTimer: NodeJS.Timeout | undefined;
  const refreshStatus = (): void => {
    clearTimeout(statusTimer);
    statusTimer = setTimeout(() => { void status.refresh(srv.current); }, 400);
  };
  const rulesWatcher = vscode.workspace.createFileSystemWatcher('**/*.rules');
  // The Policy view asks at once (the server's push follows its own file events, later); the
  // server re-reads a file whose mtime or size changed, so the answer is the file as saved.
  const refreshPolicy = (): void => { void views.refreshPolicy(srv.current); };
  context.subscriptions.push(
    rulesWatcher, rulesWatcher.onDidChange(refreshStatus), rulesWatcher.onDidCreate(refreshStatus),
    rulesWatcher.onDidDelete(refreshStatus), rulesWatcher.onDidChange(refreshPolicy),
    rulesWatcher.onDidCreate(refreshPolicy), rulesWatcher.onDidDelete(refreshPolicy),
    vscode.workspace.onDidSaveTextDocument((d) => { if (d.languageId === LANGUAGE_ID) refreshPolicy(); }),
    vscode.workspace.onDidChangeTextDocument((e) => { if (e.document.languageId === LANGUAGE_ID) refreshStatus(); }),
    vscode.workspace.onDidOpenTextDocument((d) => { if (d.languageId === LANGUAGE_ID) refreshStatus(); }),
    vscode.workspace.onDidCloseTextDocument((d) => { if (d.languageId === LANGUAGE_ID) refreshStatus(); }),
  );

  // Restart when a setting the server reads at start changes (debounced: one restart per burst).
  let timer: NodeJS.Timeout | undefined;
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(settings.SECTION)) { status.render(); refreshStatus(); }
    if (!settings.RESTART_KEYS.some((k) => e.affectsConfiguration(k)) || !srv.current) return;
    clearTimeout(timer);
    timer = setTimeout(() => { log.info('settings changed: restarting the server'); void srv.restart(); }, 500);
  }));

  // Language claims VS Code cannot express statically, then start the server for our files.
  const onOpen = async (doc: vscode.TextDocument): Promise<void> => {
    if (await claim(doc, settings.codexHome(settings.read())) || doc.languageId === LANGUAGE_ID) void srv.ensure();
  };
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(onOpen));
  for (const doc of vscode.workspace.textDocuments) void onOpen(doc);
  // With a folder open the server runs, so that outside agents' hooks reach this window.
  if (settings.read().broker && vscode.workspace.workspaceFolders?.length) { void srv.ensure(); return; }
  const inWorkspace = await vscode.workspace.findFiles('**/.codex/rules/*.rules', '**/node_modules/**', 1);
  if (inWorkspace.length > 0) void srv.ensure();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
}

function markdownTitle(s: string): string {
  return s.replace(/[\\`*_[\]<>#|]/g, (c) => `\\${c}`).replace(/\n/g, ' ');
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
