// The extension's pure logic, under Node's own test runner (`npm test`): no VS Code needed.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import { renderApprovals } from '../src/approvals';
import { button, clean, notice, pickRows, renderApproval, wrap, type ApproveParams } from '../src/approvaltext';
import { commandAt } from '../src/cursor';
import { FIRST_LINE, isCodexRulesPath, looksLikeCodexRules } from '../src/rulesfiles';
import { join, renderTrace } from '../src/trace';

// This file runs bundled, from out/test/.
const manifest = JSON.parse(readFileSync(pathJoin(__dirname, '..', '..', 'package.json'), 'utf8'));

test('the manifest claims no .rules suffix, and its firstLine is the code\'s', () => {
  const [lang] = manifest.contributes.languages;
  assert.equal(lang.extensions, undefined);
  assert.equal(lang.firstLine, FIRST_LINE.source);
});

test('first lines: Codex rules yes, udev and polkit no', () => {
  for (const yes of ['prefix_rule(', '  prefix_rule (pattern = ["ls"])', 'network_rule(', 'host_executable(',
    '# Codex rules for this repo', '# execpolicy', '# see prefix_rule docs']) {
    assert.ok(looksLikeCodexRules(yes), yes);
  }
  for (const no of ['SUBSYSTEM=="usb", MODE="0666"', '# udev: give the users group access', 'ACTION=="add"',
    'polkit.addRule(function(action, subject) {', '/* polkit */', '', '# rules']) {
    assert.ok(!looksLikeCodexRules(no), no);
  }
});

test('paths: .codex/rules and $CODEX_HOME/rules, nothing else', () => {
  assert.ok(isCodexRulesPath('/p/.codex/rules/a.rules', '/h/.codex'));
  assert.ok(isCodexRulesPath('/h/codex/rules/default.rules', '/h/codex'));
  assert.ok(isCodexRulesPath('/h/codex/rules/sub/x.rules', '/h/codex'));
  assert.ok(!isCodexRulesPath('/etc/udev/rules.d/99-usb.rules', '/h/codex'));
  assert.ok(!isCodexRulesPath('/h/codex/rules-old/x.rules', '/h/codex'));
  assert.ok(!isCodexRulesPath('/p/.codex/rules/a.txt', '/h/codex'));
});

test('command at the cursor: selection, # check:, token list, string, line', () => {
  assert.equal(commandAt('anything', 0, ' git status '), 'git status');
  assert.equal(commandAt('# check: git push --force', 3), 'git push --force');
  const line = '    match = [["git", "commit", "-m", "a b"]],';
  assert.deepEqual(commandAt(line, line.indexOf('commit')), ['git', 'commit', '-m', 'a b']);
  assert.equal(commandAt('    not_match = ["rm -rf /"],', 20), 'rm -rf /');
  const examples = '    match = ["git status", "ls -la"],';
  assert.equal(commandAt(examples, examples.indexOf('ls')), 'ls -la');
  const pattern = '    pattern = ["git", "push"],';
  assert.deepEqual(commandAt(pattern, pattern.indexOf('push')), ['git', 'push']);
  assert.equal(commandAt('$ make test', 4), 'make test');
  assert.equal(commandAt('   ', 1), undefined);
});

test('shell words are quoted back the way they would be typed', () => {
  assert.equal(join(['echo', 'it\'s', 'a b', '--x=1']), `echo 'it'\\''s' 'a b' --x=1`);
});

test('untrusted text: control and bidi characters replaced, length bounded', () => {
  assert.equal(clean('ok\u001b[31mred\u202egnp.exe'), 'ok\uFFFD[31mred\uFFFDgnp.exe');
  assert.equal(clean('x'.repeat(50), 10), `${'x'.repeat(10)}…`);
});

const params: ApproveParams = {
  id: 'approval-1',
  title: 'Would you like to run the following command?',
  command: ['bash', '-lc', 'mkdir out'],
  cwd: '/work',
  reason: 'the model asks: Can I \u001b]8;;evil\u0007create out?',
  matchedRules: [{ decision: 'prompt', matchedPrefix: ['mkdir'], justification: 'asks', source: '/r/a.rules:2:1', layer: 'user', kind: 'prefix_rule' }],
  amendment: { tokens: ['mkdir', 'out'], text: 'prefix_rule(pattern=["mkdir", "out"], decision="allow")', path: '/h/rules/default.rules' },
  choices: [
    { id: 'approved', label: 'Yes, proceed' },
    { id: 'approved_execpolicy_amendment', label: "Yes, and don't ask again for commands that start with `mkdir out`" },
    { id: 'denied', label: 'No, continue without running it' },
    { id: 'abort', label: 'No, and tell Codex what to do differently' },
  ],
  timeoutSeconds: 300,
};

test('the approval dialog spells out the command, the rule and the amendment', () => {
  const { title, detail } = renderApproval(params);
  assert.equal(title, 'Would you like to run the following command?');
  assert.match(detail, /^\$ bash -lc 'mkdir out'\nin \/work\n/);
  assert.match(detail, /Matched rule `mkdir` → prompt \(\/r\/a\.rules:2:1, user\): asks/);
  assert.match(detail, /Always \(add rule\) \("Yes, and don't ask again for commands that start with `mkdir out`"\): Runs it, and appends to \/h\/rules\/default\.rules:\n {4}prefix_rule\(pattern=\["mkdir", "out"\], decision="allow"\)/);
  assert.match(detail, /No \("No, continue without running it"\): Does not run it \(also Escape\)\./);
  assert.match(detail, /Unanswered after 300 s, it counts as No\./);
  assert.ok(!/[\u0000-\u0008\u000b-\u001f]/.test(detail), 'no control characters reach the dialog');
  assert.deepEqual(params.choices.map(button), ['Yes, proceed', 'Always (add rule)', 'No', 'No, say what instead']);
});

test('an outside agent\'s question names the agent and carries the trace', () => {
  const { title, detail } = renderApproval({
    ...params,
    title: 'Claude Code wants to run the following command',
    agent: { id: 'claude-code', name: 'Claude Code' },
    explain: {
      decision: 'prompt', decided_by: 'rules',
      segments: [
        { command: ['git', 'status'], decision: 'allow', matched_rules: [{ file: '/h/rules/default.rules', line: 1, justification: 'read-only' }] },
        { command: ['git', 'push'], decision: 'prompt', matched_rules: [], heuristic: { why: 'no rule matched' } },
      ],
      warnings: [{ message: '`rm` runs through \u001btimeout' }],
    },
  });
  assert.equal(title, 'Claude Code wants to run the following command');
  assert.match(detail, /: Does not run it; an input box then takes your words for Claude Code\./);
  assert.match(detail, /^Asked by Claude Code \(claude-code\), outside the editor\n\$ bash -lc 'mkdir out'/);
  assert.match(detail, /\nTrace: prompt by rules\n {2}1\. git status → allow \(rule \/h\/rules\/default\.rules:1: read-only\)\n {2}2\. git push → prompt \(heuristics: no rule matched\)\n {2}! `rm` runs through \uFFFDtimeout\n/);
});

test('VS Code\'s own agent is named, and asks through ShellGate\'s hook, not from outside', () => {
  const { title, detail } = renderApproval({
    ...params, title: 'VS Code\'s agent wants to run the following command', agent: { id: 'vscode-agent', name: 'VS Code\'s agent' },
  });
  assert.equal(title, 'VS Code\'s agent wants to run the following command');
  assert.match(detail, /^Asked by VS Code's agent \(vscode-agent\), through ShellGate's hook\n\$ /);
});

test('the approvals history: newest first, who asked, what the rules said, the answer', () => {
  const text = renderApprovals({
    waiting: 1, showing: 1,
    entries: [
      { id: 'ask-1', agent: 'gemini', agentName: 'Gemini CLI', sessionId: 's1', command: ['bash', '-lc', 'git push'], cwd: '/w',
        state: 'answered', decision: 'prompt', reason: 'publishing', answer: 'cancel', message: 'not yet', askedAt: 0, answeredAt: 2.5 },
      { id: 'ask-2', agent: 'claude-code', agentName: 'Claude Code', command: ['make', 'x'], cwd: '/w', state: 'waiting', askedAt: 3 },
    ],
  });
  assert.match(text, /^ShellGate approvals: 2 asked, 1 waiting, 1 on screen\n/);
  assert.ok(text.indexOf('Claude Code') < text.indexOf('Gemini CLI'), 'newest first');
  assert.match(text, /Gemini CLI \(session s1\)\n {2}\$ bash -lc 'git push'\n {2}in \/w\n {2}rules: prompt: publishing\n {2}answer: cancel after 2\.5 s: not yet\n/);
  assert.match(text, /Claude Code\n {2}\$ make x\n {2}in \/w\n {2}rules: not decided yet\n {2}answer: waiting\n/);
});

test('the approvals history shows the reviewer\'s verdicts', () => {
  const text = renderApprovals({
    waiting: 0, showing: 0,
    entries: [
      { id: 'review-1', agent: 'claude-code', agentName: 'Claude Code', command: ['bash', '-lc', 'touch made'], cwd: '/w',
        state: 'reviewed', decision: 'prompt', reason: 'look first', answer: 'decline', askedAt: 0, answeredAt: 0,
        review: { outcome: 'deny', riskLevel: 'high', userAuthorization: 'low', rationale: 'not asked for', model: 'gpt-5.5',
          told: 'This action was rejected due to unacceptable risk.' } },
      { id: 'review-2', agent: 'gemini', agentName: 'Gemini CLI', command: ['ls'], cwd: '/w', state: 'reviewed', askedAt: 1,
        review: { outcome: null, model: 'gpt-5.5', told: 'Automatic approval review failed: guardian assessment was not valid JSON' } },
    ],
  });
  assert.match(text, /\n {2}reviewer \(gpt-5\.5\): deny \(risk: high, authorization: low\): not asked for\n {2}the agent read: This action was rejected/);
  assert.match(text, /\n {2}reviewer \(gpt-5\.5\): the review failed: refused\n {2}the agent read: Automatic approval review failed/);
  assert.ok(!/answer: decline/.test(text));
});

test('explain JSON renders as the CLI lays it out', () => {
  const text = renderTrace({
    command: ['touch', 'a'], script: null, context: { approval_policy: 'on-request', sandbox: 'workspace-write', sandbox_permissions: 'use_default' },
    parse: 'whole', decision: 'prompt', decided_by: 'rules',
    segments: [{ command: ['touch', 'a'], decision: 'prompt', matched_rules: [{ matched_prefix: ['touch'], decision: 'prompt', justification: 'ask first', file: 'p.rules', line: 2, layer: 'project' }] }],
    requirement: { type: 'needs_approval', reason: '`touch a` requires approval: ask first', available_decisions: ['accept', 'cancel'] },
    first_attempt: { sandboxed: true }, rules_files: [{ path: 'p.rules', layer: 'project' }], warnings: [],
  });
  assert.match(text, /^ASKS {7}before it runs: `touch a` requires approval: ask first\n/);
  assert.match(text, /\n {2}1 {2}touch a {2}prompt {5}rule p\.rules:2 \[project\] `touch` prompt: ask first\n/);
  assert.match(text, /\nrequirement {2}needs approval, offering accept, cancel\n/);
  assert.match(text, /\nfirst run {4}in the sandbox\n/);
  assert.equal(renderTrace({ text: 'server text' }), 'server text');
});

test('an outside agent\'s QuickPick: the command whole on its rows, literal, what decided, then the choices', () => {
  const long = `echo $(date) ${'x'.repeat(150)} ; rm -rf ~`;
  const { lines, choices } = pickRows({
    ...params, command: ['bash', '-lc', long], agent: { id: 'claude-code', name: 'Claude Code' },
    reason: 'first\nsecond', notes: ['a note'],
  });
  assert.ok(lines.every((l) => l.replace(/\u200b/g, '').length <= 80 && l.trim() !== ''), 'short rows, no blank ones');
  // The command is all there, its end included, and `$(date)` is not an icon.
  assert.equal(lines.slice(0, 3).join(''), `$ bash -lc '${long}'`.replace('$(', '$\u200b('));
  assert.match(lines.slice(3).join(''), /^Claude Code asks in \/work · rule `mkdir` \(a\.rules:2 \[user\]\) → prompt: asks$/);
  assert.deepEqual(choices.map((c) => [c.label, c.id]), [['Yes, proceed', 'approved'],
    ['Always (add rule)', 'approved_execpolicy_amendment'], ['No', 'denied'], ['No, say what instead', 'abort']]);
  assert.match(choices[2].detail, /^Does not run it/);
  // "don't ask again" names the rule line and the file before it is written
  assert.match(choices[1].detail, /appends to .*default\.rules/);
});

test('a notice is literal and carries no link', () => {
  assert.equal(notice('Claude Code\'s request to run `[x](command:evil)` timed out: it was refused'),
    'ShellGate: Claude Code\'s request to run `[x] (command:evil)` timed out: it was refused');
  assert.equal(notice('a\u001bb'), 'ShellGate: a\uFFFDb');
});

test('wrap: rows of at most the width, broken after a space, that join back to the line', () => {
  assert.deepEqual(wrap('aaaa bbbb cccc', 10), ['aaaa bbbb ', 'cccc']);
  assert.deepEqual(wrap('a'.repeat(25), 10), ['a'.repeat(10), 'a'.repeat(10), 'a'.repeat(5)]);
  assert.deepEqual(wrap(`x ${'🙂'.repeat(11)}`, 10), [`x ${'🙂'.repeat(8)}`, '🙂'.repeat(3)]);
  assert.deepEqual(wrap('short', 10), ['short']);
});
