// What the approval dialog says (pure: unit-tested without VS Code). The params follow
// rules-schema/approval.schema.json; everything in them may carry a model's words.
import { join } from './trace';

export interface ApproveChoice { id: string; label: string; key?: string }

export interface MatchedRule {
  decision: string;
  matchedPrefix: string[];
  justification?: string | null;
  source?: string | null;
  layer?: string | null; // the rule's tier: system, user, project, cli, requirements
  kind?: string;
}

export interface ApproveParams {
  id: string;
  kind?: string;
  title?: string;
  command: string[];
  cwd: string;
  reason?: string | null;
  host?: string | null;
  retryPermission?: string | null;
  matchedRules?: MatchedRule[];
  amendment?: { tokens?: string[]; text: string; path?: string | null; description?: string } | null;
  choices: ApproveChoice[];
  ladder?: LadderRung[];
  notes?: string[];
  timeoutSeconds?: number | null;
  /** Set when an outside agent (Claude Code, Gemini CLI, Codex, an MCP client) asks through the broker. */
  agent?: { id: string; name: string } | null;
  /** Its explain trace (rules-schema/explain.schema.json). */
  explain?: ExplainTrace | null;
}

/** The parts of the explain JSON the dialog shows. */
export interface ExplainTrace {
  decision?: string;
  decided_by?: string;
  segments?: { command: string[]; decision: string; matched_rules?: { file?: string | null; line?: number | null; layer?: string | null; justification?: string | null }[];
    heuristic?: { why: string } | null }[];
  warnings?: { message: string }[];
}

export interface ApproveResult { choice: string; message?: string; rung?: number }
// A "don't ask again" candidate (server: shellgate.replay.ladder); index 0 is Codex's own.
export interface LadderRung {
  kind: string; label: string; pattern: string[]; rule: string; allowed: number;
  askedBefore: number; admits: string[][]; path: string; description: string;
}

// The id `shellgate hook copilot` gives VS Code's own agent (Copilot Chat's agent mode).
export const IN_EDITOR_AGENT = 'vscode-agent';

// What Escape (closing the dialog) answers: the first "no" on offer.
export const REFUSALS = ['denied', 'abort'];

/** The dialog's text. Everything from the server may carry a model's words: shown literally. */
export function renderApproval(p: ApproveParams): { title: string; detail: string } {
  const lines = about(p);
  lines.push('', 'Choices:');
  for (const c of p.choices) {
    const label = clean(c.label);
    lines.push(`• ${button(c)}${label === button(c) ? '' : ` ("${label}")`}: ${meaning(c, p)}`);
  }
  lines.push(...after(p));
  return { title: clean(p.title ?? 'Would you like to run the following command?'), detail: lines.join('\n') };
}

/** What is asked and why, before the choices. */
function about(p: ApproveParams): string[] {
  const lines: string[] = [];
  // VS Code's own agent asks from this very window, through ShellGate's hook like the others.
  const where = p.agent?.id === IN_EDITOR_AGENT ? "through ShellGate's hook" : 'outside the editor';
  if (p.agent) lines.push(`Asked by ${clean(p.agent.name)} (${clean(p.agent.id)}), ${where}`);
  lines.push(`$ ${clean(join(p.command), 600)}`, `in ${clean(p.cwd)}`);
  if (p.host) lines.push(`Host: ${clean(p.host)}`);
  if (p.reason) lines.push(`Reason: ${clean(p.reason)}`);
  if (p.retryPermission) lines.push(`The retry would get: ${clean(p.retryPermission)}`);
  const rules = p.matchedRules ?? [];
  lines.push('');
  if (rules.length === 0) lines.push('No rule matched: the approval policy asks.');
  for (const r of rules) {
    const what = r.kind === 'heuristics' ? 'heuristics' : `rule \`${clean(join(r.matchedPrefix))}\``;
    const where = [r.source, r.layer].filter((x): x is string => !!x).map((x) => clean(x)).join(', ');
    lines.push(`Matched ${what} → ${r.decision}${where ? ` (${where})` : ''}` +
      `${r.justification ? `: ${clean(r.justification)}` : ''}`);
  }
  if (p.explain) lines.push('', ...traceLines(p.explain));
  return lines;
}

/** The notes and the timeout, after the choices. */
function after(p: ApproveParams): string[] {
  const lines = (p.notes ?? []).map((n) => `Note: ${clean(n)}`);
  if (p.timeoutSeconds) lines.push('', `Unanswered after ${Math.round(p.timeoutSeconds)} s, it counts as No.`);
  return lines;
}

/** The trace in a few lines: each command the script runs, its decision and what decided it. */
export function traceLines(ex: ExplainTrace): string[] {
  const out = [`Trace: ${clean(String(ex.decision ?? 'no decision'))} by ${clean(String(ex.decided_by ?? '?').replace(/_/g, ' '))}`];
  for (const [i, seg] of (ex.segments ?? []).entries()) {
    const rule = seg.matched_rules?.[0];
    const by = rule ? `rule ${clean(String(rule.file ?? '?'))}:${rule.line ?? '?'}${rule.layer ? ` [${clean(rule.layer)}]` : ''}${rule.justification ? `: ${clean(rule.justification)}` : ''}`
      : seg.heuristic ? `heuristics: ${clean(seg.heuristic.why)}` : 'known safe';
    out.push(`  ${i + 1}. ${clean(join(seg.command), 200)} → ${clean(seg.decision)} (${by})`);
  }
  for (const w of ex.warnings ?? []) out.push(`  ! ${clean(w.message, 300)}`);
  return out;
}

// Short button titles: a dialog's buttons share one row, and Codex's full wording (in the detail
// above them) would be cut off there.
const BUTTONS: Record<string, string> = {
  approved: 'Yes, proceed',
  approved_for_session: 'Yes, this session',
  approved_execpolicy_amendment: 'Always (add rule)',
  'network_policy_amendment:allow': 'Always allow host',
  'network_policy_amendment:deny': 'Always block host',
  denied: 'No',
  abort: 'No, say what instead',
};

export function button(c: ApproveChoice): string {
  return BUTTONS[c.id] ?? clean(c.label, 40);
}

function meaning(c: ApproveChoice, p: ApproveParams): string {
  const [decision, network] = c.id.split(':');
  switch (decision) {
    case 'approved': return 'Runs it this once.';
    case 'approved_for_session': return p.host
      ? `Allows ${clean(p.host)} until the server restarts.`
      : 'Runs it, and this exact command again without asking until the server restarts.';
    case 'approved_execpolicy_amendment': return p.amendment
      ? `Runs it, and appends to ${clean(p.amendment.path ?? 'default.rules')}:\n    ${clean(p.amendment.text)}`
      : 'Runs it, and adds an allow rule for it.';
    case 'network_policy_amendment': return `${network === 'deny' ? 'Blocks' : 'Allows'} ${clean(p.host ?? 'this host')} from now on` +
      `${p.amendment ? `, appending to ${clean(p.amendment.path ?? 'default.rules')}: ${clean(p.amendment.text)}` : ''}.`;
    case 'denied': return 'Does not run it (also Escape).';
    case 'abort': return p.agent
      ? `Does not run it; an input box then takes your words for ${clean(p.agent.name)}.`
      : 'Does not run it, and stops the task so you can say what to do instead.';
    default: return '';
  }
}

/** Untrusted text shown literally: control and bidi characters replaced, length bounded. */
export function clean(text: string, max = 2000): string {
  // eslint-disable-next-line no-control-regex
  const printable = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\uFFFD');
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}

/** An outside agent's question as a QuickPick (which, unlike a modal, can be closed when the
 * question is over): two rows, the command and what decided it, then the choices; the whole
 * trace is behind "Show details…". VS Code draws `$(name)` in QuickPick rows as an icon and the
 * text would vanish (`echo $(date)`): a zero-width space keeps it literal. */
export function pickRows(p: ApproveParams): { lines: string[]; choices: { label: string; id: string; detail: string }[] } {
  const literal = (s: string): string => s.replace(/\$\(/g, '$\u200b(');
  // A row cuts off what does not fit, and every part of a command matters (its end most): the
  // command is wrapped onto as many rows as it needs.
  const command = `$ ${clean(join(p.command), 600)}`.split('\n').flatMap((l) => wrap(l));
  const lines = [...command, ...wrap(decidingLine(p))].map(literal);
  const choices = p.choices.map((c) => ({ label: literal(button(c)), id: c.id, detail: literal(meaning(c, p)) }));
  return { lines, choices };
}

/** Who asks, where, and what decided: one row. */
export function decidingLine(p: ApproveParams): string {
  const who = p.agent ? `${clean(p.agent.name)} asks` : 'Asked';
  const rule = p.matchedRules?.[0];
  let why: string;
  if (rule && rule.kind !== 'heuristics') {
    // the file's name and line here (its whole path is in the details)
    const source = rule.source ? rule.source.split('/').pop()?.replace(/:\d+$/, '') : null;
    const where = [source, rule.layer ? `[${rule.layer}]` : null].filter(Boolean).map((x) => clean(String(x))).join(' ');
    why = `rule \`${clean(join(rule.matchedPrefix))}\`${where ? ` (${where})` : ''} → ${rule.decision}` +
      `${rule.justification ? `: ${clean(rule.justification, 120)}` : ''}`;
  } else if (rule) {
    why = `heuristics → ${rule.decision}${p.reason ? `: ${clean(p.reason, 160)}` : ''}`;
  } else {
    why = p.reason ? clean(p.reason, 200) : 'no rule matched: the approval policy asks';
  }
  return `${who} in ${clean(p.cwd, 80)} · ${why}`.replace(/\n/g, ' ');
}

/** The whole question as Markdown, for "Show details…": what decided, the choices, the trace. */
export function detailsMarkdown(p: ApproveParams): string {
  const { title, detail } = renderApproval(p);
  return `# ${mdText(title)}\n\n\`\`\`text\n${detail.replace(/\`\`\`/g, '`\u200b``')}\n\`\`\`\n`;
}

function mdText(s: string): string {
  return s.replace(/[\\`*_[\]<>#|]/g, (c) => `\\${c}`);
}

/** A notice from the server (`shellgate/approveClosed`): literal, and no `[text](link)`. */
export function notice(message: string): string {
  return `ShellGate: ${clean(message, 600).replace(/\]\(/g, '] (')}`;
}

/** `line` in rows of at most `width` characters, broken after a space when one is near the end;
 * the rows joined are the line again. */
export function wrap(line: string, width = ROW): string[] {
  const rows: string[] = [];
  let rest = Array.from(line); // code points: a surrogate pair is never cut in two
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width - 1);
    const cut = space >= width / 2 ? space + 1 : width;
    rows.push(rest.slice(0, cut).join(''));
    rest = rest.slice(cut);
  }
  rows.push(rest.join(''));
  return rows;
}

// What a QuickPick row shows before it cuts off (600 px wide at most).
const ROW = 80;
