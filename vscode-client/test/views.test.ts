// The ShellGate views' trees: pure logic under Node's test runner.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { ApproveParams } from '../src/approvaltext';
import type { AgentHook } from '../src/governtext';
import { agentNodes, ago, commandLinks, linked, openAtArgs, fromApproval, historyNodes, policyNodes, waitingNodes, type Decision, type PolicyFolder } from '../src/viewmodel';

const question = (id: string, cmd: string[], agent?: string): ApproveParams => ({
  id, command: cmd, cwd: '/w', choices: [{ id: 'approved', label: 'Yes' }],
  matchedRules: [{ decision: 'prompt', matchedPrefix: ['git', 'push'], source: '/h/rules/default.rules:3:1', kind: 'prefix_rule' }],
  agent: agent ? { id: agent, name: agent === 'claude-code' ? 'Claude Code' : agent } : null,
});

test('Waiting: oldest first as given, who asks, how long, what the rules said; answerable only when not modal', () => {
  const nodes = waitingNodes([
    { params: question('q1', ['git', 'push', 'origin'], 'claude-code'), askedAt: 100 },
    { params: question('q2', ['make', 'deploy']), askedAt: 190 },
  ], 220);
  assert.deepEqual(nodes.map((n) => [n.label, n.description, n.context]), [
    ['git push origin', 'Claude Code · 2 min', 'waiting.answerable'],
    ['make deploy', 'ShellGate agent · 30 s', 'waiting'],
  ]);
  assert.equal(nodes[0].children?.[1].label, '`git push` → prompt (/h/rules/default.rules:3:1)');
  assert.deepEqual(nodes[0].command?.arguments, ['q1']);
  assert.equal(ago(7300), '2 h');
});

test('History: newest first, grouped by day, filtered by agent and decision, the rule openable', () => {
  const d = (id: string, at: number, agent: string, decision: string, rule?: Decision['rule']): Decision => ({
    id, at, agent, agentName: agent, command: ['ls', id], cwd: '/w', decision, answerer: 'person', rule,
  });
  const day1 = Date.UTC(2026, 11, 4, 10) / 1000;
  const day2 = Date.UTC(2026, 11, 5, 9) / 1000;
  const all = [d('a', day1, 'codex', 'approved'), d('b', day2, 'gemini', 'denied', { path: '/r.rules', line: 4 }),
    d('c', day2 + 60, 'codex', 'approved')];
  const nodes = historyNodes(all);
  assert.deepEqual(nodes.map((n) => [n.label, n.description]), [['2026-12-05', '2 decisions'], ['2026-12-04', '1 decision']]);
  assert.deepEqual(nodes[0].children?.map((n) => n.label), ['ls c', 'ls b']);
  const b = nodes[0].children?.[1];
  assert.equal(b?.context, 'history.rule');
  assert.deepEqual(b?.location, { path: '/r.rules', line: 4 });
  assert.equal(b?.icon, 'error');
  assert.deepEqual(historyNodes(all, { agent: 'codex' }).flatMap((n) => n.children ?? []).map((n) => n.label), ['ls c', 'ls a']);
  assert.deepEqual(historyNodes(all, { decision: 'denied' }).flatMap((n) => n.children ?? []).map((n) => n.label), ['ls b']);
  // from the record: the command as the agent gave it, who answered
  const recorded = historyNodes([{ id: 'r1', at: day2, agent: 'gemini', agentName: 'Gemini CLI', text: 'rm -rf build',
    cwd: '/w', decision: 'forbidden', answerer: 'rules', rule: { path: '/h/default.rules', line: 1 } }]);
  const row = recorded[0].children?.[0];
  assert.deepEqual([row?.label, row?.script, row?.icon], ['rm -rf build', 'rm -rf build', 'error']);
  assert.match(row?.description ?? '', /^Gemini CLI · forbidden by rules · /);
});

test('History from the server\'s questions: a person answered, or nobody yet', () => {
  const base = { id: 'e1', agent: 'claude-code', agentName: 'Claude Code', command: ['rm', 'x'], cwd: '/w', askedAt: 5 };
  assert.equal(fromApproval({ ...base, state: 'answered', answer: 'accept' }).decision, 'approved');
  assert.deepEqual([fromApproval({ ...base, state: 'answered', answer: 'decline' }).decision,
    fromApproval({ ...base, state: 'answered', answer: 'decline' }).answerer], ['denied', 'person']);
  assert.equal(fromApproval({ ...base, state: 'asking' }).answerer, 'pending');
});

test('Policy: folder, trust with its action, layers, files with counts, refused files at their line, rules by program', () => {
  const folder: PolicyFolder = {
    root: '/w/proj', rules: 3, loads: false,
    trust: { root: '/w/proj', status: 'unknown', codexLoads: false, message: 'Codex ignores this project\'s rules' },
    requirements: null,
    layers: [
      { layer: 'user', title: 'User ($CODEX_HOME/rules)', files: [{
        path: '/h/rules/default.rules', layer: 'user', rules: 3, error: null,
        programs: [{ program: 'git', rules: [{ pattern: 'git push', decision: 'prompt', line: 1, column: 1 }] }],
      }] },
      { layer: 'project', title: 'Project (.codex/rules)', files: [{
        path: '/w/proj/.codex/rules/p.rules', layer: 'project', rules: 0,
        error: { message: 'unexpected token', line: 2, column: 5 }, programs: [],
      }] },
    ],
  };
  const [root] = policyNodes([folder]);
  assert.deepEqual([root.label, root.description, root.icon], ['proj', 'Codex refuses these rules', 'error']);
  const [trust, user, project] = root.children ?? [];
  const withDenied = policyNodes([{ ...folder, denyRead: ['/etc/secrets', '/home/*/.ssh'] }])[0].children ?? [];
  assert.deepEqual(withDenied[1].children?.map((n) => n.label), ['/etc/secrets', '/home/*/.ssh']);
  assert.equal(withDenied[1].label, 'Reads denied by the admin');
  assert.deepEqual([trust.label, trust.context], ['Not trusted by Codex', 'trust.untrusted']);
  const file = user.children?.[0];
  assert.deepEqual([file?.label, file?.description], ['default.rules', '3 rules']);
  const rule = file?.children?.[0].children?.[0];
  assert.deepEqual([rule?.label, rule?.description, rule?.icon], ['git push', 'prompt', 'question']);
  assert.deepEqual(rule?.command?.arguments, ['/h/rules/default.rules', 1, 1]);
  const refused = project.children?.[0];
  assert.equal(refused?.description, 'refused: unexpected token');
  assert.deepEqual(refused?.command?.arguments, ['/w/proj/.codex/rules/p.rules', 2, 5]);
});

test('Agents: governed or not, and why', () => {
  const hook = (id: string, installed: boolean, problem: string | null = null): AgentHook => ({
    id, name: id, installed, problem, file: installed ? `/h/${id}` : null, command: null, install: ['hook', 'install', id], writes: [`/h/${id}`],
  });
  const nodes = agentNodes([hook('codex', true), { ...hook('gemini', false), program: null }, hook('claude-code', true, 'python gone')], 'gpt-5-mini');
  assert.deepEqual(nodes.map((n) => [n.description, n.context]), [
    ['governed by ShellGate', 'agent.governed'], ['not governed: no ShellGate hook · not installed here', 'agent.ungoverned'],
    ['hook broken: python gone', 'agent.ungoverned']]);
  assert.equal(nodes[0].children?.[0].label, 'auto-review: gpt-5-mini'); // the reviewer answers a governed agent
  assert.equal(nodes[1].children, undefined);
});

test('a rule\'s file link becomes a link that opens the file at its line, and nothing else changes', () => {
  const md = '| 1 | `rm x` | forbidden | [p.rules:2](file:///w/a%20b/p.rules#L2) [user] `rm` |';
  assert.equal(commandLinks(md), `| 1 | \`rm x\` | forbidden | [p.rules:2](command:shellgate.openAt?${encodeURIComponent(JSON.stringify(['/w/a b/p.rules', 2, 1]))}) [user] \`rm\` |`);
  assert.equal(commandLinks('[x](https://e.invalid/)'), '[x](https://e.invalid/)');
});

test('a link rendered for the preview\'s script gets its target back in href', () => {
  assert.equal(linked('<p><a href="" data-href="command:shellgate.openAt?x" title="t">p.rules:2</a> <a href="https://e">e</a></p>'),
    '<p><a title="t" href="command:shellgate.openAt?x">p.rules:2</a> <a href="https://e">e</a></p>');
});

test('a click in the view opens only a rules file at a line', () => {
  const link = `command:shellgate.openAt?${encodeURIComponent(JSON.stringify(['/w/p.rules', 2, 1]))}`;
  assert.deepEqual(openAtArgs(link), ['/w/p.rules', 2, 1]);
  assert.equal(openAtArgs('command:workbench.action.terminal.sendSequence?{}'), undefined);
  assert.equal(openAtArgs(`command:shellgate.openAt?${encodeURIComponent('["relative", 1]')}`), undefined);
  assert.equal(openAtArgs('https://e.invalid'), undefined);
});
