// The explain JSON (rules-schema/explain.schema.json) as text, laid out like `shellgate explain`.
/* eslint-disable @typescript-eslint/no-explicit-any */

export function renderTrace(ex: any): string {
  if (!ex || typeof ex !== 'object') return String(ex);
  if (typeof ex.text === 'string') return ex.text; // a server that renders its own text
  const req = ex.requirement ?? {};
  const row = (k: string, v: string) => `${k.padEnd(12)} ${v}`;
  const command = ex.script ?? join(ex.command ?? []);
  const lines = [headline(req, ex.first_attempt), ''];
  lines.push(row('command', command));
  const ctx = ex.context ?? {};
  lines.push(row('context', `approval ${ctx.approval_policy}, sandbox ${ctx.sandbox}, ${ctx.sandbox_permissions ?? ''}`.replace(/, $/, '')));
  const n = (ex.segments ?? []).length;
  lines.push(row('parsed as', ex.parse === 'whole' ? 'one command' : `${ex.parse}: ${n} command${n === 1 ? '' : 's'}`), '');
  const segs: any[] = ex.segments ?? [];
  const width = Math.max(7, ...segs.map((s) => join(s.command ?? []).length));
  lines.push(`  #  ${'command'.padEnd(width)}  decision   decided by`);
  segs.forEach((s, i) => {
    lines.push(`  ${String(i + 1).padEnd(2)} ${join(s.command ?? []).padEnd(width)}  ${String(s.decision).padEnd(9)}  ${decidedBy(s)}`);
  });
  lines.push('');
  lines.push(row('decision', `${ex.decision} (by ${String(ex.decided_by).replace(/_/g, ' ')}; the strictest wins)`));
  lines.push(row('requirement', requirement(req)));
  if (req.reason) lines.push(row('reason', req.reason));
  const amend = req.proposed_execpolicy_amendment;
  lines.push(row('amendment', amend ? `prefix_rule(pattern=${JSON.stringify(amend)}, decision="allow")` : 'none'));
  if (ex.first_attempt) lines.push(row('first run', ex.first_attempt.sandboxed ? 'in the sandbox' : 'outside the sandbox'));
  const files: any[] = ex.rules_files ?? [];
  lines.push(row('rules files', files.length ? files.map((f) => `${f.path} [${f.layer}]`).join(', ') : 'none'));
  for (const w of ex.warnings ?? []) lines.push(row('warning', `${w.message}${w.code ? ` [${w.code}]` : ''}`));
  return lines.join('\n') + '\n';
}

function headline(req: any, first: any): string {
  switch (req.type) {
    case 'forbidden': return `FORBIDDEN  ${req.reason ?? 'refused by the rules'}`;
    case 'needs_approval': return `ASKS       before it runs: ${req.reason ?? ''}`;
    default: return `ALLOWED    runs ${first?.sandboxed === false ? 'outside the sandbox' : 'in the sandbox'} without asking`;
  }
}

function requirement(req: any): string {
  if (req.type === 'needs_approval') return `needs approval, offering ${(req.available_decisions ?? []).join(', ')}`;
  if (req.type === 'skip') return `skip (bypass_sandbox ${Boolean(req.bypass_sandbox)})`;
  return String(req.type);
}

function decidedBy(s: any): string {
  const rules: any[] = s.matched_rules ?? [];
  if (rules.length) {
    return rules.map((r) => `rule ${r.file}:${r.line} [${r.layer}] \`${join(r.matched_prefix ?? [])}\` ${r.decision}` +
      `${r.justification ? `: ${r.justification}` : ''}`).join('; ');
  }
  if (s.heuristic) return `heuristics${s.heuristic.dangerous ? ` (${s.heuristic.dangerous})` : ''}: ${s.heuristic.why}`;
  return s.known_safe ? 'known safe' : '';
}

/** Shell words joined the way a person would type them back. */
export function join(words: string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_\-+=.,/:@%^]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
