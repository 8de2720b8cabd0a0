// "ShellGate: Govern Agents…": which agents (Codex, Claude Code, Gemini CLI, Copilot CLI, VS Code's
// own agent) ask ShellGate before running a command, installing its hook where it is missing; and
// a status bar warning while VS Code's agent would run commands without ShellGate. The CLI knows
// (`shellgate hook status --json`, `shellgate hook install AGENT`); this file only asks and shows.
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { AgentHook, governRows, installPlan, VSCODE_AGENT, vscodeAgentGaps } from './governtext';
import { resolveInterpreter } from './interpreter';
import * as settings from './settings';

interface Run { code: number; stdout: string; stderr: string }

/** `shellgate ARGS` from the bundled libraries (bundled/tool/serve.py passes `hook …` through). */
export async function shellgate(context: vscode.ExtensionContext, args: string[]): Promise<Run> {
  const s = settings.read();
  const interp = await resolveInterpreter(s.interpreter);
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONNOUSERSITE: '1' };
  if (s.codexHome) env.CODEX_HOME = s.codexHome;
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const argv = [...interp.args, context.asAbsolutePath('bundled/tool/serve.py'), ...args];
  return new Promise((resolve) => {
    execFile(interp.command, argv, { env, cwd, timeout: 60000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (err && !stdout ? err.message : '')) });
    });
  });
}

export async function hookStatus(context: vscode.ExtensionContext): Promise<AgentHook[]> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const run = await shellgate(context, ['hook', 'status', '--json', ...(folder ? ['--project', folder] : [])]);
  if (run.code !== 0) throw new Error(`shellgate hook status failed (exit ${run.code}): ${run.stderr.trim().slice(0, 300)}`);
  return (JSON.parse(run.stdout) as { agents: AgentHook[] }).agents;
}

const useHooks = (): boolean => vscode.workspace.getConfiguration('chat').get<boolean>('useHooks', true);
// With AI features off there is no agent to warn about.
const agentOff = (): boolean => vscode.workspace.getConfiguration('chat').get<boolean>('disableAIFeatures', false);

/** The status bar warning: shown only while VS Code's agent would run commands without ShellGate. */
export class AgentGuard implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('shellgate.agentGuard', vscode.StatusBarAlignment.Left, 49);
  private agents: AgentHook[] | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly context: vscode.ExtensionContext | undefined) {
    this.item.name = "ShellGate: VS Code's agent";
    this.item.command = context ? 'shellgate.governAgents' : 'workbench.trust.manage';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('chat.useHooks') || e.affectsConfiguration('chat.disableAIFeatures')) this.render();
    }));
  }

  /** The hook's state again, from the CLI (not in an untrusted workspace: nothing runs there). */
  async refresh(): Promise<AgentHook[] | undefined> {
    if (this.context && vscode.workspace.isTrusted) {
      try { this.agents = await hookStatus(this.context); } catch { this.agents = undefined; }
    }
    this.render();
    return this.agents;
  }

  gaps(): string[] { return vscodeAgentGaps(this.agents, vscode.workspace.isTrusted, useHooks()); }

  render(): void {
    const gaps = agentOff() ? [] : this.gaps();
    if (!gaps.length) { this.item.hide(); return; }
    this.item.text = "$(warning) VS Code's agent: no ShellGate";
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown("**VS Code's agent would run terminal commands without ShellGate's rules and dialog:**\n\n");
    for (const g of gaps) { tip.appendMarkdown('- '); tip.appendText(g); tip.appendMarkdown('\n'); }
    tip.appendMarkdown(this.context ? '\nClick: ShellGate: Govern Agents…' : '\nClick to manage workspace trust.');
    this.item.tooltip = tip;
    this.item.show();
  }

  dispose(): void { this.item.dispose(); this.subscriptions.forEach((d) => d.dispose()); }
}

/** The command: every agent's hook state; the picked ones get ShellGate's hook, after saying which
 * files that writes. */
export async function governAgents(context: vscode.ExtensionContext, guard: AgentGuard, log: vscode.LogOutputChannel): Promise<void> {
  let agents: AgentHook[];
  try {
    agents = await hookStatus(context);
  } catch (e) {
    void vscode.window.showErrorMessage(`ShellGate: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  const rows = governRows(agents, guard.gaps());
  const picked = await vscode.window.showQuickPick(rows, {
    title: 'ShellGate: Govern Agents (picked: install ShellGate\'s hook)', canPickMany: true, matchOnDetail: true,
    placeHolder: 'Agents whose commands ask ShellGate first; those without its hook come picked', ignoreFocusOut: true,
  });
  const toInstall = (picked ?? []).map((r) => r.agent);
  if (!toInstall.length) return;
  const plan = installPlan(toInstall);
  const go = await vscode.window.showWarningMessage(
    `ShellGate: install its hook for ${plan.names.join(', ')}?`,
    {
      modal: true,
      detail: `This changes:\n${plan.writes.map((w) => `• ${w}`).join('\n')}\n\nEach file that exists is backed up first ` +
        '(FILE.shellgate-<time>.bak); other settings in it are kept. Undo: shellgate hook uninstall AGENT.',
    },
    'Install',
  );
  if (go !== 'Install') return;
  const done: string[] = [];
  for (const args of plan.installs) {
    const run = await shellgate(context, args);
    log.info(`shellgate ${args.join(' ')} (exit ${run.code})\n${run.stdout}${run.stderr}`);
    if (run.code !== 0) {
      void vscode.window.showErrorMessage(`ShellGate: \`shellgate ${args.join(' ')}\` failed: ${(run.stderr || run.stdout).trim().slice(0, 400)}`);
      continue;
    }
    done.push(...run.stdout.split('\n').filter((l) => l.trim() && !l.includes('check it with')));
  }
  const after = await guard.refresh();
  const vscodeAgent = after?.find((a) => a.id === VSCODE_AGENT);
  if (toInstall.some((a) => a.id === VSCODE_AGENT) && vscodeAgent?.installed && guard.gaps().length) {
    done.push(`VS Code's agent still runs commands without ShellGate: ${guard.gaps().join('; ')}`);
  }
  if (done.length) void vscode.window.showInformationMessage(`ShellGate: ${done.join(' · ')}`);
}
