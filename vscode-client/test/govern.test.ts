// "Govern Agents…" and the agent warning: pure logic under Node's test runner.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { governRows, installPlan, vscodeAgentGaps, type AgentHook } from '../src/governtext';

const agent = (id: string, name: string, install: string, installed: boolean, writes: string[], problem: string | null = null): AgentHook => ({
  id, name, installed, problem, install: ['hook', 'install', install], writes,
  file: installed ? writes[0] : null, command: installed ? `python3 -I -m shellgate hook ${install}` : null,
});
const COPILOT = '/h/.copilot/hooks/shellgate.json';
const agents = [
  agent('codex', 'Codex', 'codex', true, ['/h/.codex/hooks.json', '/h/.codex/config.toml']),
  agent('claude-code', 'Claude Code', 'claude-code', true, ['/h/.claude/settings.json'], '/usr/bin/python3.9 is gone (reinstall the hook)'),
  agent('gemini', 'Gemini CLI', 'gemini', false, ['/h/.gemini/settings.json', '/h/.gemini/policies/shellgate.toml']),
  agent('copilot-cli', 'Copilot CLI', 'copilot', false, [COPILOT]),
  agent('vscode-agent', "VS Code's agent", 'copilot', false, [COPILOT]),
];

test("VS Code's agent goes without ShellGate: untrusted, hooks off, no hook, a broken hook", () => {
  assert.deepEqual(vscodeAgentGaps(agents, true, true), ["ShellGate's hook is not installed (`shellgate hook install copilot`)"]);
  const installed = agents.map((a) => (a.id === 'vscode-agent' ? { ...a, installed: true } : a));
  assert.deepEqual(vscodeAgentGaps(installed, true, true), []);
  const gaps = vscodeAgentGaps(installed, false, false);
  assert.equal(gaps.length, 2);
  assert.match(gaps[0], /not trusted/);
  assert.match(gaps[1], /chat\.useHooks/);
  const broken = installed.map((a) => (a.id === 'vscode-agent' ? { ...a, problem: '/x is gone' } : a));
  assert.deepEqual(vscodeAgentGaps(broken, true, true), ["ShellGate's hook cannot answer: /x is gone"]);
  // Before the CLI has answered, only what VS Code itself says.
  assert.deepEqual(vscodeAgentGaps(undefined, true, true), []);
});

test('rows: each agent, its state, what installing writes; the ungoverned ones picked', () => {
  const rows = governRows(agents, vscodeAgentGaps(agents, true, false));
  assert.deepEqual(rows.map((r) => [r.label, r.picked]), [
    ['Codex', false], ['Claude Code', true], ['Gemini CLI', true], ['Copilot CLI', true], ["VS Code's agent", true],
  ]);
  assert.equal(rows[0].description, 'ShellGate hook installed');
  assert.equal(rows[0].detail, 'in /h/.codex/hooks.json');
  assert.match(rows[1].description, /^hook broken: \/usr\/bin\/python3\.9 is gone/);
  assert.equal(rows[2].detail, 'installing writes /h/.gemini/settings.json, /h/.gemini/policies/shellgate.toml');
  assert.equal(rows[4].detail, `installing writes ${COPILOT}; but the setting \`chat.useHooks\` is off, so VS Code runs no hook`);
});

test('the plan: one install for Copilot CLI and VS Code\'s agent, every file once', () => {
  const plan = installPlan(agents.slice(2));
  assert.deepEqual(plan.installs, [['hook', 'install', 'gemini'], ['hook', 'install', 'copilot']]);
  assert.deepEqual(plan.names, ['Gemini CLI', 'Copilot CLI', "VS Code's agent"]);
  assert.deepEqual(plan.writes, ['/h/.gemini/settings.json', '/h/.gemini/policies/shellgate.toml', COPILOT]);
});
