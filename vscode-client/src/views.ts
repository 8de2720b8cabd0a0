// ShellGate's own view container: Waiting, History, Policy and Agents. Each view is one generic
// tree over viewmodel.ts's nodes; the data is pushed (the server's notifications, the dialog's
// questions), so no view has a refresh button. Actions are package.json menus on contextValue.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { ApprovalHistory } from './approvals';
import { holding } from './approve';
import type { ApproveParams } from './approvaltext';
import type { AgentHook } from './governtext';
import { join } from './trace';
import {
  agentNodes, Decision, fromApproval, HistoryFilter, historyNodes, Node, PolicyFolder, policyNodes, Waiting,
  waitingNodes,
} from './viewmodel';

/** A tree of viewmodel nodes, replaced whole on each change. */
export class NodeTree implements vscode.TreeDataProvider<Node> {
  private roots: Node[] = [];
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(private readonly empty: string) {}

  set(nodes: Node[]): void { this.roots = nodes; this.emitter.fire(undefined); }
  get nodes(): Node[] { return this.roots; }

  getChildren(node?: Node): Node[] {
    if (node) return node.children ?? [];
    return this.roots.length ? this.roots : [{ id: 'empty', label: this.empty, icon: 'info' }];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const state = node.children?.length
      ? (node.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed)
      : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(node.label, state);
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.context;
    if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon, node.color ? new vscode.ThemeColor(node.color) : undefined);
    if (node.command) item.command = node.command;
    return item;
  }
}

/** A question waiting for an answer, and how to answer it from the view. */
interface Pending extends Waiting { answer?: (choice: string, message?: string) => void }

export class Views implements vscode.Disposable {
  readonly waiting = new NodeTree('No question is waiting.');
  readonly history = new NodeTree('No decision yet: agents governed by ShellGate show up here.');
  readonly policy = new NodeTree('No workspace folder open.');
  readonly agents = new NodeTree('Looking for agents…');
  private readonly pending = new Map<string, Pending>();
  private decisions: Decision[] = [];
  private filter: HistoryFilter = {};
  private readonly waitingView: vscode.TreeView<Node>;
  private readonly historyView: vscode.TreeView<Node>;
  private readonly disposables: vscode.Disposable[] = [];
  private ticker: NodeJS.Timeout | undefined;

  constructor() {
    this.waitingView = vscode.window.createTreeView('shellgate.waiting', { treeDataProvider: this.waiting, showCollapseAll: false });
    this.historyView = vscode.window.createTreeView('shellgate.history', { treeDataProvider: this.history, showCollapseAll: true });
    this.disposables.push(this.waitingView, this.historyView,
      vscode.window.createTreeView('shellgate.policy', { treeDataProvider: this.policy, showCollapseAll: true }),
      vscode.window.createTreeView('shellgate.agents', { treeDataProvider: this.agents }));
  }

  /** An untrusted workspace: ShellGate runs nothing here (its server is Python that could come
   * from the workspace), so each view says so and offers to manage trust. */
  untrusted(): void {
    const node = (id: string, what: string): Node => ({
      id, label: `Trust this workspace to see ${what}`, icon: 'workspace-untrusted',
      tooltip: 'ShellGate starts its language server only in a trusted workspace.',
      command: { command: 'workbench.trust.manage', title: 'Manage Workspace Trust' },
    });
    this.waiting.set([node('untrusted:waiting', 'the questions agents ask')]);
    this.history.set([node('untrusted:history', 'past decisions')]);
    this.policy.set([node('untrusted:policy', 'the rules that govern it')]);
    this.agents.set([node('untrusted:agents', 'which agents are governed')]);
  }

  // ---- Waiting: every question the dialog shows, answerable here too --------------------

  /** The dialog asks: list the question until it is answered or withdrawn. */
  asked(params: ApproveParams, answer?: (choice: string, message?: string) => void): void {
    this.pending.set(params.id, { params, askedAt: Date.now() / 1000, answer });
    this.renderWaiting();
  }

  over(id: string): void {
    if (this.pending.delete(id)) this.renderWaiting();
  }

  question(id: string): ApproveParams | undefined { return this.pending.get(id)?.params; }

  /** Answer from the view: the same answer as the dialog's (the dialog closes). */
  answer(id: string, choice: string, message?: string): boolean {
    const q = this.pending.get(id);
    if (!q?.answer) return false;
    q.answer(choice, message);
    return true;
  }

  private renderWaiting(): void {
    const list = [...this.pending.values()].sort((a, b) => a.askedAt - b.askedAt);
    this.waiting.set(waitingNodes(list, Date.now() / 1000));
    const n = list.length;
    this.waitingView.badge = n ? { value: n, tooltip: `${n} question${n === 1 ? '' : 's'} waiting for you` } : undefined;
    // how long each has waited: redrawn while any waits
    if (n && !this.ticker) this.ticker = setInterval(() => this.renderWaiting(), 5000);
    if (!n && this.ticker) { clearInterval(this.ticker); this.ticker = undefined; }
  }

  // ---- History --------------------------------------------------------------------------

  /** Every decision, from the record (`shellgate/history`, pushed as `shellgate/historyChanged`
   * when it grows); a server without it gives its questions (`shellgate/approvals`). */
  async refreshHistory(client: LanguageClient | undefined): Promise<void> {
    if (!client) return;
    try {
      const h = (await client.sendRequest('shellgate/history', {})) as { entries: Decision[] };
      this.decisions = h.entries;
    } catch {
      try {
        const h = (await client.sendRequest('shellgate/approvals', {})) as ApprovalHistory;
        this.decisions = h.entries.filter((e) => e.state !== 'deciding').map(fromApproval);
      } catch {
        return; // keep what is shown
      }
    }
    this.renderHistory();
  }

  setFilter(filter: HistoryFilter): void {
    this.filter = filter;
    this.renderHistory();
  }

  filterChoices(): { agents: [string, string][]; decisions: string[] } {
    const agents = new Map(this.decisions.map((d) => [d.agent, d.agentName]));
    return { agents: [...agents.entries()], decisions: [...new Set(this.decisions.map((d) => d.decision))] };
  }

  private renderHistory(): void {
    this.history.set(historyNodes(this.decisions, this.filter));
    const parts = [this.filter.agent, this.filter.decision].filter(Boolean);
    this.historyView.description = parts.length ? `filtered: ${parts.join(', ')}` : undefined;
  }

  // ---- Policy and Agents --------------------------------------------------------------------

  async refreshPolicy(client: LanguageClient | undefined): Promise<void> {
    if (!client) return;
    try {
      const p = (await client.sendRequest('shellgate/policy', {})) as { folders: PolicyFolder[] };
      this.policy.set(policyNodes(p.folders));
    } catch {
      // an older server has no Policy view
    }
  }

  setAgents(agents: AgentHook[] | undefined, problem?: string, reviewer?: string | null): void {
    this.agents.set(agents ? agentNodes(agents, reviewer) : [{ id: 'agents:error', label: problem ?? 'unknown', icon: 'error' }]);
  }

  dispose(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.disposables.forEach((d) => d.dispose());
  }
}

/** The views' commands (ids in package.json). */
export function registerViewCommands(views: Views, deps: {
  client: () => LanguageClient | undefined;
  explain: (command: string | string[]) => Promise<void>;
  showQuestion: (p: ApproveParams) => Promise<void>;
  installHook: (args: string[]) => Promise<void>;
  doctor: () => Promise<void>;
}): vscode.Disposable[] {
  // Held: Deny's input box hides the question's QuickPick, which would otherwise answer "no"
  // at once, without the words.
  const answer = (choice: string) => async (node?: Node) => {
    const id = node?.id.replace(/^waiting:/, '');
    if (!id) return;
    await holding(id, async () => {
      let message: string | undefined;
      if (choice === 'abort') {
        message = await vscode.window.showInputBox({
          title: 'ShellGate: Deny', prompt: 'Why, in words the agent reads (optional; Escape: deny without words)',
          ignoreFocusOut: true,
        }) ?? undefined;
      }
      const p = views.question(id);
      // a question whose choices have no "say what instead" gets a plain no
      const offered = p?.choices.some((c) => c.id === choice) ? choice : choice === 'abort' ? 'denied' : choice;
      if (!views.answer(id, offered, message?.trim() || undefined)) {
        void vscode.window.showInformationMessage('ShellGate: this question is answered in its dialog.');
      }
    });
  };
  return [
    vscode.commands.registerCommand('shellgate.openAt', async (path: string, line = 1, column = 1) => {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
      const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
      await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos) });
    }),
    vscode.commands.registerCommand('shellgate.waiting.show', async (id: string) => {
      const p = views.question(id);
      if (p) await deps.showQuestion(p);
    }),
    vscode.commands.registerCommand('shellgate.waiting.allowOnce', answer('approved')),
    vscode.commands.registerCommand('shellgate.waiting.allowSession', answer('approved_for_session')),
    vscode.commands.registerCommand('shellgate.waiting.dontAskAgain', answer('approved_execpolicy_amendment')),
    vscode.commands.registerCommand('shellgate.waiting.deny', answer('abort')),
    vscode.commands.registerCommand('shellgate.history.explain', async (node?: Node) => {
      const command = node?.script ?? node?.words;
      if (command) await deps.explain(command);
    }),
    vscode.commands.registerCommand('shellgate.history.copy', async (node?: Node) => {
      const text = node?.script ?? (node?.words ? join(node.words) : undefined);
      if (text) await vscode.env.clipboard.writeText(text);
    }),
    vscode.commands.registerCommand('shellgate.history.openRule', async (node?: Node) => {
      if (node?.location) await vscode.commands.executeCommand('shellgate.openAt', node.location.path, node.location.line, node.location.column ?? 1);
    }),
    vscode.commands.registerCommand('shellgate.history.filter', async () => {
      const { agents, decisions } = views.filterChoices();
      const items = [
        { label: 'Everything', filter: {} as HistoryFilter },
        ...agents.map(([id, name]) => ({ label: `Agent: ${name}`, filter: { agent: id } })),
        ...decisions.map((d) => ({ label: `Decision: ${d}`, filter: { decision: d } })),
      ];
      const picked = await vscode.window.showQuickPick(items, { title: 'ShellGate: filter the history' });
      if (picked) views.setFilter(picked.filter);
    }),
    vscode.commands.registerCommand('shellgate.policy.trust', async (node?: Node) => {
      const folder = node?.location?.path;
      const client = deps.client();
      if (!folder || !client) return;
      const go = await vscode.window.showWarningMessage(`Trust ${folder} for Codex?`, {
        modal: true,
        detail: 'Codex then loads its .codex/rules and .codex/config.toml. ShellGate records it as Codex does, in ' +
          'Codex\'s config.toml: [projects."…"] trust_level = "trusted".',
      }, 'Trust');
      if (go !== 'Trust') return;
      try {
        const done = (await client.sendRequest('shellgate/trustProject', { folder })) as { config: string };
        void vscode.window.showInformationMessage(`ShellGate: ${folder} is trusted (written to ${done.config}).`);
      } catch (e) {
        void vscode.window.showErrorMessage(`ShellGate: ${e instanceof Error ? e.message : String(e)}`);
      }
    }),
    vscode.commands.registerCommand('shellgate.agents.install', async (node?: Node) => {
      const id = node?.id.replace(/^agent:/, '');
      if (id) await deps.installHook(['hook', 'install', id === 'vscode-agent' || id === 'copilot-cli' ? 'copilot' : id]);
    }),
    vscode.commands.registerCommand('shellgate.agents.doctor', () => deps.doctor()),
  ];
}
