// Answers the server's `shellgate/approve` request (rules-schema/approval.schema.json).
// The embedded agent's question is a modal dialog: it stays until answered (VS Code's toasts with
// buttons slide into the notification centre after ~15-30 s while the server still waits).
// An outside agent's question is a QuickPick that stays open (ignoreFocusOut) but, unlike a modal,
// can be closed: when the server withdraws it ($/cancelRequest: timed out, its agent gone) it
// closes at once and the next question shows; `shellgate/approveClosed` then says why.
import * as vscode from 'vscode';
import { LSPErrorCodes, ResponseError } from 'vscode-languageclient/node';
import { join } from './trace';
import { ApproveParams, ApproveResult, button, LadderRung, notice, pickRows, REFUSALS, renderApproval } from './approvaltext';

export type { ApproveParams } from './approvaltext';

const showing = new Map<string, () => void>(); // question id -> close its QuickPick
const OVER = Symbol('the question is over'); // closed by the server's side, not by a choice
// Words given with an answer from the Waiting view (Deny with a reason): not asked again.
const given = new Map<string, string | undefined>();
// Questions the Waiting view is answering: its Deny asks for words in an input box, which hides
// the question's QuickPick (one quick input at a time), and that hiding is not a "no".
const held = new Set<string>();
const hidden = new Map<string, () => void>(); // question id -> show its QuickPick again

/** Keep question `id` open while `answer` runs; still unanswered after it, it shows again. */
export async function holding<T>(id: string, answer: () => Promise<T>): Promise<T> {
  held.add(id);
  try { return await answer(); } finally {
    held.delete(id);
    const show = hidden.get(id);
    hidden.delete(id);
    show?.();
  }
}

/** Where open questions are listed and can be answered besides the dialog (the Waiting view). */
export interface QuestionBoard {
  asked(p: ApproveParams, answer?: (choice: string, message?: string) => void): void;
  over(id: string): void;
}
let board: QuestionBoard | undefined;
export function setQuestionBoard(b: QuestionBoard | undefined): void { board = b; }

export async function askApproval(p: ApproveParams, log: vscode.LogOutputChannel,
  token?: vscode.CancellationToken): Promise<ApproveResult> {
  const refusal = REFUSALS.map((id) => p.choices.find((c) => c.id === id)).find(Boolean);
  log.info(`approval ${p.id} asked: ${join(p.command)}`);
  let picked: string | undefined | typeof OVER;
  try {
    if (p.agent) picked = await pickChoice(p, token);
    else {
      board?.asked(p); // the embedded agent's dialog is modal: listed, answered in the dialog
      picked = await modal(p, refusal);
    }
  } finally {
    board?.over(p.id);
  }
  if (picked === OVER) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'the question was withdrawn');
  // Escape, the dialog's X or the QuickPick closed answer "no", never "yes".
  const choice = picked ?? refusal?.id ?? 'denied';
  const result = await follow(p, choice, log, token);
  if (token?.isCancellationRequested) {
    log.info(`approval ${p.id}: over before the answer (${choice}), not used`);
    // A modal cannot be closed: a click on it after the question ended is reported here.
    if (picked !== undefined && !p.agent) {
      void vscode.window.showWarningMessage(notice(`your answer "${button({ id: choice, label: choice })}" came too late: ` +
        `the request to run ${join(p.command)} was already over (it counted as no), so nothing ran on it`));
    }
    throw new ResponseError(LSPErrorCodes.RequestCancelled, 'the question was withdrawn');
  }
  log.info(`approval ${p.id} answered: ${choice}`);
  given.delete(p.id);
  return result;
}

/** `shellgate/approveClosed`: a question on screen is over unanswered; close it, say why. */
export function approvalClosed(c: { id: string; message: string }): void {
  showing.get(c.id)?.();
  void vscode.window.showWarningMessage(notice(c.message));
}

/** The server stopped (a restart, a crash): the questions it asked can no longer be answered,
 * and VS Code does not cancel them (a disposed connection drops its requests' tokens). */
export function closeAll(): void {
  if (!showing.size) return;
  for (const close of [...showing.values()]) close();
  void vscode.window.showWarningMessage(notice('the language server stopped: the questions it had ' +
    'asked are closed unanswered (the agents waiting get no answer and take their fallback)'));
}

async function modal(p: ApproveParams, refusal: { id: string } | undefined): Promise<string | undefined> {
  const { title, detail } = renderApproval(p);
  const items = p.choices.map((c) => ({ title: button(c), id: c.id, isCloseAffordance: c === refusal }));
  return (await vscode.window.showWarningMessage(title, { modal: true, detail }, ...items))?.id;
}

type Row = vscode.QuickPickItem & { id?: string };

function pickChoice(p: ApproveParams, token?: vscode.CancellationToken): Promise<string | undefined | typeof OVER> {
  const { title } = renderApproval(p);
  const { lines, choices } = pickRows(p);
  const qp = vscode.window.createQuickPick<Row>();
  qp.title = `ShellGate: ${title}`;
  qp.placeholder = 'Pick an answer (Escape: No)';
  qp.ignoreFocusOut = true;
  qp.matchOnDetail = false;
  // The command and what decided it first (two rows: Enter on them does nothing, so a stray
  // Enter never answers), then the answers, visible without scrolling; the trace on demand.
  qp.items = [
    ...lines.map((label): Row => ({ label, alwaysShow: true })),
    { label: 'Your answer', kind: vscode.QuickPickItemKind.Separator },
    ...choices.map((c): Row => ({ label: c.label, detail: c.detail, id: c.id, alwaysShow: true })),
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: '$(list-tree) Show details…', description: 'the whole trace, beside', id: DETAILS, alwaysShow: true },
  ];
  return new Promise((resolve) => {
    let settled = false;
    const done = (id: string | undefined | typeof OVER): void => {
      if (settled) return;
      settled = true;
      showing.delete(p.id);
      hidden.delete(p.id);
      cancel?.dispose();
      qp.dispose();
      resolve(id);
    };
    const cancel = token?.onCancellationRequested(() => done(OVER));
    showing.set(p.id, () => done(OVER));
    board?.asked(p, (choice, message) => { given.set(p.id, message); done(choice); });
    qp.onDidAccept(() => {
      const id = (qp.selectedItems[0] ?? qp.activeItems[0])?.id;
      if (id === DETAILS) { void showDetails(p).then(() => qp.show()); return; }
      if (id) done(id);
    });
    qp.onDidHide(() => {
      if (detailsOpening) qp.show();
      else if (held.has(p.id)) hidden.set(p.id, () => qp.show());
      else done(undefined);
    });
    if (token?.isCancellationRequested) done(OVER);
    else qp.show();
  });
}

const DETAILS = 'shellgate.details';
let detailsOpening = false;
let detailsView: ((p: ApproveParams) => Promise<void>) | undefined;
/** How "Show details…" shows a question's whole trace (set by the extension). */
export function setDetailsView(show: (p: ApproveParams) => Promise<void>): void { detailsView = show; }

async function showDetails(p: ApproveParams): Promise<void> {
  if (!detailsView) return;
  detailsOpening = true; // the editor taking focus hides the QuickPick for a moment: not a "no"
  try { await detailsView(p); } finally { setTimeout(() => { detailsOpening = false; }, 500); }
}

/** After the choice: which rule ("don't ask again"), or the words for the agent ("No, say what instead"). */
async function follow(p: ApproveParams, choice: string, log: vscode.LogOutputChannel,
  token?: vscode.CancellationToken): Promise<ApproveResult> {
  if (token?.isCancellationRequested) return { choice };
  if (choice === 'approved_execpolicy_amendment' && p.ladder && p.ladder.length > 1) {
    const rung = await pickRung(p.ladder, token);
    log.info(`approval ${p.id}: rule ${p.ladder[rung]?.rule ?? ''}`);
    return { choice, rung };
  }
  // An outside agent is told the person's words with "No, say what instead" (the embedded
  // agent asks for them itself, after its turn ends).
  if (choice === 'abort' && p.agent) {
    if (given.has(p.id)) { const words = given.get(p.id); return words ? { choice, message: words } : { choice }; }
    const message = await vscode.window.showInputBox({
      title: `ShellGate: tell ${p.agent.name} what to do instead`, ignoreFocusOut: true,
      prompt: 'Sent to the agent with the refusal (Escape: refuse without words)',
    }, token);
    if (message?.trim()) return { choice, message: message.trim() };
  }
  return { choice };
}

// The "don't ask again" ladder: which rule to write. Dismissed: Codex's own proposal (rung 0).
export async function pickRung(ladder: LadderRung[], token?: vscode.CancellationToken): Promise<number> {
  const items = ladder.map((r, index) => ({
    label: r.pattern.join(' '),
    description: r.label,
    detail: `would have allowed ${r.allowed} past commands (${r.askedBefore} asked)` +
      (r.admits.length ? ` · also admits ${r.admits.map((a) => a.join(' ')).join(', ')}` : '') +
      ` · ${r.path}`,
    index,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: "Don't ask again for…", placeHolder: 'narrow to broad; the first is Codex\'s own proposal',
    ignoreFocusOut: true,
  }, token);
  return picked?.index ?? 0;
}
