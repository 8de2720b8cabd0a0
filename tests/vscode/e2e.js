// ShellGate in real VS Code (code-server) driven by Debian's Chromium through playwright-core.
// Env: CS_URL, WS (the workspace code-server opened), SHOTS (screenshots), CHROMIUM (optional).
// Prints PASS/FAIL per check and exits 1 if any failed; a failing check saves fail-<n>.png.
const fs = require('fs');
const { spawn } = require('child_process');
const path = require('path');
const { chromium } = require('playwright-core');
const { sel, quickOpen, command, answerInputBox, hoverOn, webviewText } = require('./ui');

const WS = process.env.WS;
const SHOTS = process.env.SHOTS || '.';
const t0 = Date.now();
const log = (m) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const results = [];
// Checks whose server side has not landed yet: name -> what they wait for. Shrinks to nothing.
const PENDING = {
};

/** The lines of the extension's output channel's log files. */
function shellgateLog() {
  const found = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'ShellGate.log') found.push(p);
    }
  };
  walk(path.join(path.dirname(WS), 'ud', 'logs'));
  return found.flatMap((f) => fs.readFileSync(f, 'utf8').split('\n'));
}

/** How many times the extension started the server. */
function serverStarts() {
  return shellgateLog().filter((l) => l.includes('] starting: ')).length;
}

async function waitFor(predicate, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** A fresh profile disables the built-in chat extension (VS Code's agent) until its enablement
 * migration is marked done in the browser's profile storage: mark it before the workbench loads,
 * from a page of the same origin, in the IndexedDB the workbench opens (name, version and store as
 * in VS Code 1.139's BrowserStorageService). */
async function seedChatMigration(page) {
  await page.goto(`${process.env.CS_URL}/healthz`);
  await page.evaluate(async () => {
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open('vscode-web-state-db-global', 1);
      open.onupgradeneeded = () => open.result.createObjectStore('ItemTable');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    await new Promise((resolve, reject) => {
      const tx = db.transaction('ItemTable', 'readwrite');
      tx.objectStore('ItemTable').put('true', 'builtinChatExtensionEnablementMigration');
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
    db.close();
  });
}

/** The requests VS Code's agent sent the stand-in model (each a Chat Completions body). */
function vscodeAgentRequests() {
  const log = path.join(SHOTS, 'standin-vscode.jsonl');
  if (!fs.existsSync(log)) return [];
  return fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.kind === 'main').map((r) => r.body);
}

/** What the model was told about its last tool call (the tool message that ends a request). */
function lastToolResult(body) {
  const m = [...body.messages].reverse().find((x) => x.role === 'tool');
  if (!m) return '';
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

function writeUserSettings(change) {
  const file = path.join(process.env.USER_DIR, 'settings.json');
  const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const [k, v] of Object.entries(change)) { if (v === undefined) delete settings[k]; else settings[k] = v; }
  fs.writeFileSync(file, JSON.stringify(settings, null, 1));
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => log(`pageerror: ${e.message.slice(0, 200)}`));

  async function check(name, fn) {
    if (PENDING[name]) { log(`SKIP ${name}: waits for ${PENDING[name]}`); return; }
    // E2E_ONLY=REGEX: only the checks whose name matches (while writing one; they may rely on
    // the state earlier checks leave).
    if (process.env.E2E_ONLY && !new RegExp(process.env.E2E_ONLY).test(name)) return;
    try {
      const detail = await fn();
      results.push([true, name]);
      log(`PASS ${name}${detail ? `: ${detail}` : ''}`);
    } catch (e) {
      results.push([false, name]);
      log(`FAIL ${name}: ${String(e.message || e).split('\n')[0]}`);
      const file = path.join(SHOTS, `fail-${results.length}-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}.png`);
      await page.screenshot({ path: file }).catch(() => {});
      await page.keyboard.press('Escape').catch(() => {});
    }
  }

  const languageOf = async () => (await page.locator(sel.languageStatus).innerText()).trim();
  const dialog = page.locator(sel.dialog);

  async function runThroughDialog(cmd, buttonPattern, shot) {
    await command(page, 'ShellGate: Run Command');
    await answerInputBox(page, cmd);
    await dialog.waitFor({ state: 'visible', timeout: 30000 });
    const text = (await dialog.innerText()).replace(/\s+/g, ' ');
    if (!text.includes(cmd)) throw new Error(`dialog does not show the command: ${text}`);
    if (!text.includes('creates files: ask first')) throw new Error(`dialog does not show the matched rule: ${text}`);
    if (shot) await page.screenshot({ path: path.join(SHOTS, shot) });
    const buttons = await page.locator(sel.dialogButton).allInnerTexts();
    const button = page.locator(sel.dialogButton).filter({ hasText: buttonPattern }).first();
    await button.click();
    await dialog.waitFor({ state: 'hidden', timeout: 10000 });
    return buttons;
  }

  try {
    await check('workbench loaded', async () => {
      await seedChatMigration(page);
      await page.goto(`${process.env.CS_URL}/?folder=${encodeURIComponent(WS)}`);
      await page.waitForSelector(sel.explorerRow, { timeout: 60000 });
    });

    await check('status bar item shows policy, sandbox and the rules loaded', async () => {
      const item = page.locator(sel.statusItem, { hasText: 'on-request · workspace-write · 2 rules' }).first();
      await item.waitFor({ timeout: 30000 });
      return (await item.innerText()).trim();
    });

    await check('udev .rules file is not claimed', async () => {
      await quickOpen(page, 'other/99-usb.rules');
      await page.waitForSelector(`${sel.activeEditorLines}:has-text("SUBSYSTEM")`, { timeout: 20000 });
      await waitFor(async () => (await languageOf()) === 'Plain Text', 5000, 'Plain Text');
      return await languageOf();
    });

    await check('.codex/rules file is Codex Rules, highlighted', async () => {
      await quickOpen(page, '.codex/rules/project.rules');
      await page.waitForSelector(`${sel.activeEditorLines}:has-text("prefix_rule")`, { timeout: 20000 });
      await waitFor(async () => (await languageOf()) === 'Codex Rules', 10000, 'Codex Rules');
      const colour = async (text) => page.locator(`${sel.activeEditorLines} span span`, { hasText: text }).first()
        .evaluate((el) => getComputedStyle(el).color);
      // Tokenizing is asynchronous: lines first render plain, then in colour.
      let colours = {};
      await waitFor(async () => {
        colours = { comment: await colour('rules:'), builtin: await colour('prefix_rule'), decision: await colour('prompt') };
        return new Set(Object.values(colours).filter(Boolean)).size === 3;
      }, 10000, 'comment, builtin and decision in three colours').catch((e) => {
        throw new Error(`${e.message}: ${JSON.stringify(colours)}`);
      });
      return JSON.stringify(colours);
    });

    await check('hover on an example shows the decision trace', async () => {
      await quickOpen(page, '.codex/rules/project.rules');
      await page.waitForSelector(`${sel.activeEditorLines}:has-text("hover-example.txt")`, { timeout: 20000 });
      const hover = await hoverOn(page, 'hover-example.txt', 'requires approval');
      await page.screenshot({ path: path.join(SHOTS, 'hover.png') });
      return (await hover.innerText()).replace(/\s+/g, ' ').slice(0, 160);
    });

    await check('Explain Command… opens a rendered view: the outcome first, the deciding rule as a link', async () => {
      await page.mouse.move(5, 5);
      await command(page, 'ShellGate: Explain Command…');
      await answerInputBox(page, 'touch explained.txt');
      const text = (await webviewText(page, 'touch explained.txt')).replace(/\s+/g, ' ');
      if (!/Asks you before it runs/.test(text)) throw new Error(`no outcome first: ${text.slice(0, 300)}`);
      if (!/project\.rules:2 \[project\] touch prompt: creates files: ask first/.test(text)) throw new Error(`no deciding rule: ${text.slice(0, 400)}`);
      if (!/Full trace/.test(text)) throw new Error(`no folded trace: ${text.slice(0, 400)}`);
      // The deciding rule is a link; a click opens the rules file at that rule.
      let link = null;
      for (const frame of page.frames()) {
        if (frame === page.mainFrame()) continue; // a hover there has such a link too
        const a = frame.locator('a', { hasText: 'project.rules:2' }).first();
        if (await a.count().catch(() => 0)) { link = a; break; }
      }
      if (!link) throw new Error('the deciding rule is not a link');
      const href = (await link.getAttribute('data-href')) || (await link.getAttribute('href')) || '';
      if (!/^command:shellgate\.openAt\?/.test(href) || !decodeURIComponent(href).includes('project.rules",2,')) throw new Error(`link: ${href}`);
      await page.screenshot({ path: path.join(SHOTS, 'explain-view.png') });
      await link.click();
      await page.locator('.tabs-container .tab.active', { hasText: 'project.rules' }).first().waitFor({ timeout: 15000 });
      await page.screenshot({ path: path.join(SHOTS, 'explain-view.png') });
      return text.slice(0, 160);
    });

    await check('Explain Command at Cursor on an example', async () => {
      await quickOpen(page, '.codex/rules/project.rules');
      const example = page.locator(`${sel.activeEditorLines} .view-line span`, { hasText: 'hover-example.txt' }).last();
      await example.click();
      await command(page, 'ShellGate: Explain Command at Cursor');
      const text = (await webviewText(page, 'touch hover-example.txt')).replace(/\s+/g, ' ');
      if (!/Asks you/.test(text)) throw new Error(`not the trace of the example: ${text.slice(0, 200)}`);
      return text.slice(0, 120);
    });

    await check('Run Command… approved: dialog, the command ran', async () => {
      const buttons = await runThroughDialog('touch ran-approved.txt', /^Yes, proceed$/, 'approval-dialog.png');
      await waitFor(async () => fs.existsSync(path.join(WS, 'ran-approved.txt')), 20000, 'ran-approved.txt on disk');
      return `buttons ${JSON.stringify(buttons)}`;
    });

    await check('Run Command… denied: the command did not run', async () => {
      await runThroughDialog('touch ran-denied.txt', /^No$/, null);
      const out = page.locator(sel.panelLines, { hasText: 'touch ran-denied.txt' });
      await out.first().waitFor({ timeout: 20000 });
      await waitFor(async () => /\[denied/.test((await out.first().innerText()).replace(/\s+/g, ' ')), 20000, 'the run to report a denial');
      if (fs.existsSync(path.join(WS, 'ran-denied.txt'))) throw new Error('ran-denied.txt exists: the denied command ran');
    });
    const outsideHook = (out, cmd, timeout) => {
      const hook = spawn('python3', [process.env.HOOK_CLIENT, WS, out, cmd, String(timeout)],
        { env: { ...process.env, PYTHONPATH: process.env.HOOK_PYTHONPATH }, stdio: ['ignore', 'ignore', 'pipe'] });
      hook.stderr.on('data', (d) => { hook.errors = (hook.errors || '') + d; });
      return hook;
    };
    const hookAnswer = async (out, hook) => {
      await waitFor(async () => fs.existsSync(out) && fs.statSync(out).size > 0, 20000, `the hook's answer (${hook.errors || ''})`);
      return JSON.parse(fs.readFileSync(out, 'utf8'));
    };
    // An outside agent's question: a QuickPick (it closes when the question is over).
    const asking = (cmd) => page.locator(sel.quickInput, { hasText: cmd }).filter({ hasText: 'Claude Code asks' });
    const answerRow = (label) => page.locator(sel.quickRow).filter({ hasText: label }).first();
    // A long question pushes the choices below the list's fold, where the virtual list has not
    // drawn them yet: scroll until the row exists, then click it.
    const clickAnswer = async (label) => {
      const row = answerRow(label);
      for (let i = 0; i < 30 && !(await row.count()); i += 1) {
        const box = await page.locator('.quick-input-list').first().boundingBox();
        if (box) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.wheel(0, 300);
        await page.waitForTimeout(100);
      }
      await row.click();
    };

    await check('an outside agent (stand-in hook): the question names it, shows the trace; the answer reaches it', async () => {
      const out = path.join(SHOTS, 'hook-answer.json');
      const hook = outsideHook(out, 'touch from-claude.txt', 90);
      await asking('touch from-claude.txt').waitFor({ state: 'visible', timeout: 30000 });
      const title = (await page.locator(sel.quickInputTitle).innerText()).trim();
      // Rows wrap long lines: compare without the spaces.
      const text = (await page.locator(sel.quickInput).innerText()).replace(/\s+/g, '');
      if (title !== 'ShellGate: Claude Code wants to run the following command') throw new Error(`title: ${title}`);
      if (!text.includes("$bash-lc'touchfrom-claude.txt'ClaudeCodeasksin")) throw new Error(`question: ${text}`);
      if (!/ClaudeCodeasksin.*·rule`touch`\(project\.rules:2\[project\]\)→prompt:createsfiles:askfirst/.test(text)) throw new Error(`no deciding rule in the question: ${text}`);
      // The answers are on screen without scrolling (1400x900; VS Code draws only visible rows).
      for (const label of ['Yes, proceed', 'No', 'No, say what instead', 'Show details']) {
        if (!(await answerRow(label).count()) || !(await answerRow(label).isVisible())) throw new Error(`${label} is not visible`);
      }
      await page.screenshot({ path: path.join(SHOTS, 'outside-agent-dialog.png') });
      // The whole trace is behind "Show details…", and the question stays open.
      await answerRow('Show details').click();
      const details = (await webviewText(page, "touch from-claude.txt'")).replace(/\s+/g, ' ');
      if (!/Trace: prompt by rules/.test(details)) throw new Error(`no trace in the details: ${details.slice(0, 300)}`);
      await asking('touch from-claude.txt').waitFor({ state: 'visible', timeout: 10000 });
      await clickAnswer('Yes, proceed');
      const answer = await hookAnswer(out, hook);
      if (!answer || answer.answer !== 'accept') throw new Error(`the hook got ${JSON.stringify(answer)} (${hook.errors})`);
      await command(page, 'ShellGate: Show Approvals');
      const doc = page.locator(sel.activeEditorLines, { hasText: 'ShellGate approvals' });
      await doc.first().waitFor({ timeout: 20000 });
      const history = (await doc.first().innerText()).replace(/\s+/g, ' ');
      // Each line on its own: Monaco's DOM need not hold the lines in their visual order.
      for (const part of ['Claude Code (session e2e-session)', '$ bash -lc \'touch from-claude.txt\'', 'rules: prompt', 'answer: accept']) {
        if (!history.includes(part)) throw new Error(`history lacks ${part}: ${history.slice(0, 600)}`);
      }
      return `hook got ${JSON.stringify(answer)}`;
    });

    await check('ShellGate view: Waiting lists the question with a badge; Allow Once there answers it; History and Policy follow', async () => {
      // Open the view first: a command typed while the question shows would replace its QuickPick.
      await command(page, 'ShellGate: Focus on Waiting View');
      const waiting = page.locator(sel.viewPane('Waiting'));
      await waiting.first().waitFor({ timeout: 15000 });
      // The real hook, as Claude Code runs it: it asks this editor, then records the decision.
      const event = { session_id: 'e2e-view', hook_event_name: 'PreToolUse', tool_name: 'Bash',
        tool_input: { command: 'touch from-view.txt' }, cwd: WS };
      const hook = spawn('python3', ['-m', 'shellgate', 'hook', 'claude-code'],
        { env: { ...process.env, PYTHONPATH: process.env.HOOK_PYTHONPATH }, stdio: ['pipe', 'pipe', 'pipe'] });
      let said = '';
      hook.stdout.on('data', (d) => { said += d; });
      hook.stderr.on('data', (d) => { hook.errors = (hook.errors || '') + d; });
      hook.stdin.end(JSON.stringify(event));
      await asking('touch from-view.txt').waitFor({ state: 'visible', timeout: 30000 });
      const asked = Date.now();
      const row = waiting.locator(sel.treeRow, { hasText: 'touch from-view.txt' }).first();
      await row.waitFor({ timeout: 20000 });
      const waitingMs = Date.now() - asked;
      const badge = (await page.locator(sel.activityBadge('ShellGate')).first().innerText()).trim();
      if (badge !== '1') throw new Error(`badge: ${badge}`);
      const described = (await row.innerText()).replace(/\s+/g, ' ');
      if (!described.includes('Claude Code')) throw new Error(`row: ${described}`);
      await page.screenshot({ path: path.join(SHOTS, 'views-waiting.png') });
      await row.hover();
      await row.locator('.action-label[aria-label="Allow Once"]').click();
      await waitFor(async () => hook.exitCode !== null, 20000, `the hook to answer (${hook.errors || ''})`);
      if (!/"permissionDecision":\s*"allow"/.test(said)) throw new Error(`the hook said ${said} (${hook.errors})`);
      await asking('touch from-view.txt').waitFor({ state: 'hidden', timeout: 10000 });
      await row.waitFor({ state: 'detached', timeout: 10000 });
      const history = page.locator(sel.viewPane('History'));
      // from the decision record the hook wrote, pushed to the view
      const answered = history.locator(sel.treeRow, { hasText: 'touch from-view.txt' }).filter({ hasText: 'approved by person' }).first();
      await answered.waitFor({ timeout: 15000 });
      const historyRow = (await answered.innerText()).replace(/\s+/g, ' ');
      const policy = page.locator(sel.viewPane('Policy'));
      const file = policy.locator(sel.treeRow, { hasText: 'project.rules' }).first();
      await file.waitFor({ timeout: 15000 });
      const fileText = (await file.innerText()).replace(/\s+/g, ' ');
      if (!/2 rules/.test(fileText)) throw new Error(`policy row: ${fileText}`);
      // Each view as a person sees it at 1280x800 (docs/images).
      await page.setViewportSize({ width: 1280, height: 800 });
      await file.click(); // expand: its rules by program
      await page.screenshot({ path: path.join(SHOTS, 'views-1280x800.png') });
      await page.setViewportSize({ width: 1400, height: 900 });
      // A rules file saved with an error turns red in Policy (Codex refuses it), and back.
      const rulesFile = path.join(WS, '.codex', 'rules', 'project.rules');
      const good = fs.readFileSync(rulesFile, 'utf8');
      const saved = Date.now();
      fs.writeFileSync(rulesFile, `${good}prefix_rule(pattern = [], decision = "allow")\n`);
      const refused = policy.locator(sel.treeRow, { hasText: 'project.rules' }).filter({ hasText: 'refused' }).first();
      await refused.waitFor({ timeout: 15000 });
      const policyMs = Date.now() - saved;
      const red = await refused.locator('.codicon-error').count();
      if (!red) throw new Error(`not marked as an error: ${(await refused.innerText()).replace(/\s+/g, ' ')}`);
      await page.screenshot({ path: path.join(SHOTS, 'views-policy-refused.png') });
      fs.writeFileSync(rulesFile, good);
      await policy.locator(sel.treeRow, { hasText: 'project.rules' }).filter({ hasText: '2 rules' }).first().waitFor({ timeout: 15000 });
      return `Waiting row ${waitingMs} ms after the question showed; Policy red ${policyMs} ms after the save | ${historyRow} | ${fileText}`;
    });

    // The real Claude Code CLI, offline (claude-turn.py, inside `unshare -rn` with its stand-in
    // model): its Bash call reaches this editor through the hook `shellgate hook install
    // claude-code` wrote, and the Waiting view's inline action answers it.
    const claudeTurn = (cmd, name) => {
      const out = path.join(path.dirname(WS), `${name}.json`);
      const turn = spawn('python3', [process.env.CLAUDE_TURN, out, cmd], {
        env: { ...process.env, PYTHONPATH: process.env.HOOK_PYTHONPATH, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG },
        stdio: ['ignore', 'ignore', 'pipe'] });
      let errors = '';
      turn.stderr.on('data', (d) => { errors += d; });
      const over = new Promise((resolve, reject) => turn.on('exit', (code) => (code === 0
        ? resolve(JSON.parse(fs.readFileSync(out, 'utf8')))
        : reject(new Error(`claude-turn.py exited ${code}: ${errors.slice(-600)}`)))));
      over.catch(() => {}); // awaited by the check; a check that fails first leaves it
      return { over, errors: () => errors };
    };
    /** The hook's record of `cmd` (the newest): it started judging at time - duration_ms. */
    const recorded = (cmd) => {
      const dir = path.join(process.env.XDG_STATE_HOME, 'shellgate');
      const entries = fs.readdirSync(dir).filter((f) => /^decisions.*\.jsonl$/.test(f))
        .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).entry));
      const found = entries.filter((e) => e && e.agent === 'claude-code' && e.command === cmd).pop();
      if (!found) throw new Error(`no record of ${cmd} by claude-code in ${dir}`);
      return found;
    };
    /** Claude Code's question, from the moment it is asked: the row in Waiting, its label and
     * description, and how long after the hook started judging it showed. */
    const claudeAsks = async (cmd, name) => {
      // The view first: a command typed while the question shows would replace its QuickPick.
      await command(page, 'ShellGate: Focus on Waiting View');
      const waiting = page.locator(sel.viewPane('Waiting'));
      await waiting.first().waitFor({ timeout: 15000 });
      // When the row shows, by the page's clock at each frame: a locator's wait polls every
      // 500 ms once it has waited a while, too coarse to time it.
      const found = page.waitForFunction(([pane, rowSel, text]) => {
        const rows = [...document.querySelectorAll(`${pane} ${rowSel}`)];
        return rows.some((r) => r.textContent.includes(text)) ? Date.now() : 0;
      }, [sel.viewPane('Waiting'), sel.treeRow, cmd], { polling: 'raf', timeout: 90000 }).then((h) => h.jsonValue());
      const turn = claudeTurn(cmd, name);
      const row = waiting.locator(sel.treeRow, { hasText: cmd }).first();
      let shown = false;
      const unasked = turn.over.then((r) => { if (!shown) throw new Error(`Claude Code ended unasked: ${JSON.stringify(r).slice(0, 600)}`); });
      for (const p of [found, unasked]) p.catch(() => {}); // the loser's end is not the check's
      const shownAt = await Promise.race([found, unasked]);
      shown = true;
      const label = (await row.locator(sel.treeLabel).innerText()).trim();
      const description = (await row.locator(sel.treeDescription).innerText()).trim();
      if (label !== `bash -lc '${cmd}'`) throw new Error(`label: ${label}`);
      if (!/^Claude Code · \d+ s$/.test(description)) throw new Error(`description: ${description}`);
      const badge = (await page.locator(sel.activityBadge('ShellGate')).first().innerText()).trim();
      if (badge !== '1') throw new Error(`badge: ${badge}`);
      await asking(cmd).waitFor({ state: 'visible', timeout: 10000 }); // the same question, in the dialog
      return { turn, row, shownAt, said: `"${label}" · "${description}"` };
    };
    /** How long the question took to show in Waiting: from the hook's start (its record: time -
     * duration_ms), through the extension's receiving it (its log line, local time, in ms). */
    const viewMs = (cmd, shownAt) => {
      const e = recorded(cmd);
      const hookAt = e.time * 1000 - e.duration_ms;
      const line = shellgateLog().filter((l) => / \[info\] approval ask-\d+ asked: /.test(l) && l.includes(cmd)).pop();
      const extAt = line ? new Date(line.slice(0, 23).replace(' ', 'T')).getTime() : NaN;
      return `in Waiting ${Math.round(shownAt - hookAt)} ms after the hook started (hook -> extension ` +
        `${Math.round(extAt - hookAt)} ms, extension -> row ${Math.round(shownAt - extAt)} ms)`;
    };

    // Without the CLI: skipped here, a failure in CI (as tests/realtools.py does).
    const claudeMissing = !process.env.CLAUDE || !fs.existsSync(process.env.CLAUDE);
    const claudeCheck = (name, fn) => (claudeMissing && !process.env.SHELLGATE_E2E && !process.env.CI
      ? log(`SKIP ${name}: ${process.env.CLAUDE} is missing: run scripts/install-agents.sh`)
      : check(name, claudeMissing ? async () => { throw new Error(`${process.env.CLAUDE} is missing: run scripts/install-agents.sh`); } : fn));

    await claudeCheck('the real Claude Code CLI, hooked: its question shows in Waiting; Allow Once there runs the command', async () => {
      const cmd = 'touch claude-allowed.txt';
      const { turn, row, shownAt, said } = await claudeAsks(cmd, 'claude-allowed');
      await page.screenshot({ path: path.join(SHOTS, 'views-waiting-claude.png') });
      await row.hover();
      await row.locator('.action-label[aria-label="Allow Once"]').click();
      await asking(cmd).waitFor({ state: 'hidden', timeout: 10000 });
      const result = await turn.over;
      if (result.rc !== 0) throw new Error(`claude exited ${result.rc}: ${result.stderr.slice(-400)}`);
      if (!fs.existsSync(path.join(WS, 'claude-allowed.txt'))) throw new Error(`claude-allowed.txt is missing; the model was told ${JSON.stringify(result.told)}`);
      if (result.told.length !== 1 || /denied|blocked/i.test(result.told[0])) throw new Error(`the model was told ${JSON.stringify(result.told)}`);
      const e = recorded(cmd);
      if (e.decision !== 'approved' || e.answerer !== 'person') throw new Error(`recorded ${e.decision} by ${e.answerer}`);
      return `${said}; ${viewMs(cmd, shownAt)}; ran, recorded approved by person`;
    });

    await claudeCheck('the real Claude Code CLI, hooked: Deny… in Waiting with a reason: not run, and Claude Code reads ShellGate\'s reason', async () => {
      const cmd = 'touch claude-denied.txt';
      const why = 'not in this folder, use the scratch area';
      const { turn, row, shownAt, said } = await claudeAsks(cmd, 'claude-denied');
      await row.hover();
      await row.locator('.action-label[aria-label="Deny…"]').click();
      await page.locator(sel.quickInputTitle, { hasText: 'ShellGate: Deny' }).waitFor({ timeout: 10000 });
      await answerInputBox(page, why);
      const result = await turn.over;
      if (result.rc !== 0) throw new Error(`claude exited ${result.rc}: ${result.stderr.slice(-400)}`);
      if (fs.existsSync(path.join(WS, 'claude-denied.txt'))) throw new Error('claude-denied.txt exists: the denied command ran');
      const told = result.told.join('\n');
      if (result.told.length !== 1 || !told.includes('ShellGate') || !told.includes(why)) throw new Error(`the model was told ${JSON.stringify(result.told)}`);
      if (!result.stdout.includes(why)) throw new Error(`Claude Code's stream-json output lacks the reason: ${result.stdout.slice(-600)}`);
      // History follows, from the record the hook wrote: denied by a person (a no with words:
      // the agent reads them and goes on).
      const history = page.locator(sel.viewPane('History'));
      const answered = history.locator(sel.treeRow, { hasText: cmd }).filter({ hasText: /denied by person/ }).first();
      await answered.waitFor({ timeout: 15000 });
      const historyRow = (await answered.innerText()).replace(/\s+/g, ' ');
      return `${said}; ${viewMs(cmd, shownAt)}; Claude Code was told: ${told.slice(0, 160)} | History: ${historyRow}`;
    });

    await check('an outside agent\'s question that times out closes, says so, and the next one shows', async () => {
      const [slowOut, nextOut] = [path.join(SHOTS, 'hook-slow.json'), path.join(SHOTS, 'hook-next.json')];
      const slow = outsideHook(slowOut, 'touch too-slow.txt', 4);
      await asking('touch too-slow.txt').waitFor({ state: 'visible', timeout: 30000 });
      const next = outsideHook(nextOut, 'touch next-one.txt', 60);
      const toast = page.locator(sel.notification, { hasText: 'request to run `touch too-slow.txt` timed out: it was refused' });
      await toast.first().waitFor({ timeout: 20000 });
      await asking('touch next-one.txt').waitFor({ state: 'visible', timeout: 10000 });
      if (await asking('touch too-slow.txt').count()) throw new Error('the timed-out question is still on screen');
      const timedOut = await hookAnswer(slowOut, slow);
      if (timedOut.answer !== 'timeout') throw new Error(`the slow hook got ${JSON.stringify(timedOut)}`);
      await clickAnswer(/^No\s*Does not run it/);
      const declined = await hookAnswer(nextOut, next);
      if (declined.answer !== 'decline') throw new Error(`the next hook got ${JSON.stringify(declined)}`);
      await page.locator(sel.quickInput).waitFor({ state: 'hidden', timeout: 10000 });
      return (await toast.first().innerText()).replace(/\s+/g, ' ').slice(0, 160);
    });

    await check('Ask Agent…: approval dialog, approve, the output appears', async () => {
      await command(page, 'ShellGate: Ask Agent…');
      await answerInputBox(page, 'leave a marker file');
      await dialog.waitFor({ state: 'visible', timeout: 30000 });
      const text = (await dialog.innerText()).replace(/\s+/g, ' ');
      if (!text.includes('agent-made.txt')) throw new Error(`dialog does not show the agent's command: ${text}`);
      await page.screenshot({ path: path.join(SHOTS, 'agent-approval.png') });
      await page.locator(sel.dialogButton).filter({ hasText: /^Yes, proceed$/ }).first().click();
      const out = page.locator(sel.panelLines, { hasText: 'agent-output-ok' });
      await out.first().waitFor({ timeout: 30000 });
      await waitFor(async () => /task completed/.test((await out.first().innerText()).replace(/\s+/g, ' ')), 30000, 'the task to complete');
      if (!fs.existsSync(path.join(WS, 'agent-made.txt'))) throw new Error('agent-made.txt is missing');
      return (await out.first().innerText()).replace(/\s+/g, ' ').slice(-160);
    });

    await check('Ask Agent…: Cancel on the progress interrupts the task', async () => {
      await command(page, 'ShellGate: Ask Agent…');
      await answerInputBox(page, 'think slowly');
      const progress = page.locator(sel.notification, { hasText: 'ShellGate agent' });
      await progress.first().waitFor({ timeout: 20000 });
      // The model has started answering (the stand-in then stalls mid-stream).
      const log = path.join(SHOTS, 'standin.jsonl');
      await waitFor(async () => fs.existsSync(log) && fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length >= 3, 20000, 'the third model request');
      const started = Date.now();
      await progress.first().locator('.monaco-button', { hasText: 'Cancel' }).click();
      const out = page.locator(sel.panelLines, { hasText: 'think slowly' });
      await waitFor(async () => /task interrupted/.test((await out.first().innerText()).replace(/\s+/g, ' ')), 15000, 'the task to stop');
      return `stopped ${Date.now() - started} ms after Cancel`;
    });

    await check('Ask Agent…: "No, say what instead" → your words start the next turn', async () => {
      await command(page, 'ShellGate: Ask Agent…');
      await answerInputBox(page, 'make a scratch file');
      await dialog.waitFor({ state: 'visible', timeout: 30000 });
      await page.locator(sel.dialogButton).filter({ hasText: /^No, say what instead$/ }).first().click();
      await answerInputBox(page, 'do not create files, use echo');
      const out = page.locator(sel.panelLines, { hasText: 'do not create files' });
      await waitFor(async () => /I used echo instead.*task completed/.test((await out.first().innerText()).replace(/\s+/g, ' ')), 20000, 'the next turn to complete');
      if (fs.existsSync(path.join(WS, 'agent-refused.txt'))) throw new Error('agent-refused.txt exists: the refused command ran');
      const sent = fs.readFileSync(path.join(SHOTS, 'standin.jsonl'), 'utf8').trim().split('\n').pop();
      if (!sent.includes('do not create files, use echo')) throw new Error('the words did not reach the model');
    });

    await check('status bar click → untrusted; the amendment is spelt out, chosen, written, counted', async () => {
      await page.locator(sel.statusItem, { hasText: 'on-request · workspace-write' }).first().click();
      await page.locator(sel.quickRow, { hasText: 'Approval policy' }).first().click();
      await page.locator(sel.quickRow, { hasText: 'untrusted' }).first().click();
      await page.locator(sel.statusItem, { hasText: 'untrusted · workspace-write' }).first().waitFor({ timeout: 15000 });
      await command(page, 'ShellGate: Run Command');
      await answerInputBox(page, 'mkdir made-by-amendment');
      await dialog.waitFor({ state: 'visible', timeout: 30000 });
      const text = (await dialog.innerText()).replace(/\s+/g, ' ');
      const rulesFile = path.join(process.env.CODEX_HOME, 'rules', 'default.rules');
      const line = 'prefix_rule(pattern=["mkdir", "made-by-amendment"], decision="allow")';
      if (!text.includes(rulesFile) || !text.includes(line)) throw new Error(`amendment not spelt out: ${text}`);
      await page.screenshot({ path: path.join(SHOTS, 'amendment-dialog.png') });
      await page.locator(sel.dialogButton).filter({ hasText: /^Always \(add rule\)$/ }).first().click();
      // The "don't ask again" ladder (a QuickPick): Codex's proposal first; pick the whole
      // program, which is written with a match example from the real command.
      const rung = page.locator(sel.quickRow, { hasText: 'the whole program' }).first();
      await rung.waitFor({ timeout: 30000 });
      const ladderText = (await page.locator(sel.quickInput).innerText()).replace(/\s+/g, ' ');
      if (!ladderText.includes("Codex's proposal")) throw new Error(`the ladder lacks Codex's proposal: ${ladderText}`);
      await page.screenshot({ path: path.join(SHOTS, 'ladder-quickpick.png') });
      await rung.click();
      await waitFor(async () => fs.existsSync(path.join(WS, 'made-by-amendment')), 20000, 'the directory');
      const written = fs.readFileSync(rulesFile, 'utf8');
      const picked = 'prefix_rule(pattern=["mkdir"], decision="allow", match=[["mkdir", "made-by-amendment"]])';
      if (!written.includes(picked)) throw new Error(`${rulesFile} lacks the picked rule: ${written}`);
      // The server reads the new layer, and the status bar counts it.
      await page.locator(sel.statusItem, { hasText: 'untrusted · workspace-write · 3 rules' }).first().waitFor({ timeout: 15000 });
      return written.trim();
    });

    await check('Restart Server: a new server answers', async () => {
      const before = serverStarts();
      await command(page, 'ShellGate: Restart Server');
      await waitFor(async () => serverStarts() === before + 1, 15000, 'a new server start in the ShellGate log');
      await page.locator(sel.statusItem, { hasText: 'untrusted · workspace-write' }).first().waitFor({ timeout: 15000 });
      await command(page, 'ShellGate: Explain Command…');
      await answerInputBox(page, 'touch after-restart.txt');
      const text = (await webviewText(page, 'touch after-restart.txt', 30000)).replace(/\s+/g, ' ');
      if (!text.includes('approval untrusted')) throw new Error(`the trace does not use the new policy: ${text.slice(0, 300)}`);
      return `server starts in the log: ${before} -> ${serverStarts()}`;
    });

    await check('requirements.toml: Codex\'s error at the key, hover on a managed rule', async () => {
      // Two files of one name: wait until the focused row is the one in `folder`.
      const open = async (folder) => {
        await page.keyboard.press('Control+P');
        await page.waitForSelector(sel.quickInputBox, { state: 'visible' });
        await page.keyboard.type(`${folder}/requirements.toml`);
        await page.locator(sel.quickRowFocused, { hasText: folder }).first().waitFor({ timeout: 15000 });
        await page.keyboard.press('Enter');
      };
      await command(page, 'View: Close All Editor Groups');  // room: the lines are long
      await open('managed-bad');
      await page.waitForSelector(`${sel.activeEditorLines}:has-text("prefix_rules")`, { timeout: 20000 });
      await page.waitForSelector(`.editor-group-container.active ${sel.squiggleError}`, { timeout: 30000 });
      await open('managed-ok');
      await page.waitForSelector(`${sel.activeEditorLines}:has-text("use trash")`, { timeout: 20000 });
      const hover = await hoverOn(page, 'forbidden', 'managed prefix_rule');
      await page.screenshot({ path: path.join(SHOTS, 'requirements-hover.png') });
      const text = (await hover.innerText()).replace(/\s+/g, ' ');
      if (!text.includes('outranks any user or project')) throw new Error(`hover: ${text.slice(0, 300)}`);
      return text.slice(0, 160);
    });

    // Last: a broken draft outside every layer is linted as typed, and never changes what runs.
    await check('broken draft: squiggle, Problems entry, the rules that run unchanged', async () => {
      await quickOpen(page, 'other/broken.rules');
      await page.waitForSelector(`${sel.activeEditorLines}:has-text("maybe")`, { timeout: 20000 });
      await waitFor(async () => (await languageOf()) === 'Codex Rules', 10000, 'first-line claim');
      await page.waitForSelector(`${sel.activeEditorLines} ~ * ${sel.squiggleError}, .editor-group-container.active ${sel.squiggleError}`, { timeout: 30000 });
      await page.keyboard.press('Control+Shift+M');
      const row = page.locator(sel.problemsRow, { hasText: 'maybe' }).filter({ hasNotText: 'refuses' }).first();
      await row.waitFor({ timeout: 15000 });
      const text = (await row.innerText()).replace(/\s+/g, ' ');
      await page.screenshot({ path: path.join(SHOTS, 'problems.png') });
      await page.keyboard.press('Control+Shift+M');
      // Codex does not load the draft: the status bar still counts the three rules that run.
      await page.locator(sel.statusItem, { hasText: 'untrusted · workspace-write · 3 rules' }).first().waitFor({ timeout: 15000 });
      return text;
    });

    await check('with the broken draft open, an approved command runs through the dialog', async () => {
      await runThroughDialog('touch ran-with-draft.txt', /^Yes, proceed$/, null);
      await waitFor(async () => fs.existsSync(path.join(WS, 'ran-with-draft.txt')), 20000, 'ran-with-draft.txt on disk');
    });

    // VS Code's own agent (built-in Copilot Chat, agent mode) and ShellGate's Copilot hook, which
    // run-e2e.sh installed with `shellgate hook install copilot` into this VS Code's HOME.
    const guard = page.locator(sel.statusItem, { hasText: "VS Code's agent: no ShellGate" });
    // Through the Settings editor (a modal in 1.139): code-server does not notice a settings.json
    // written from outside.
    const toggleUseHooks = async (guardState) => {
      await command(page, 'Preferences: Open User Settings');
      await page.waitForSelector('.settings-editor', { timeout: 20000 });
      await page.locator('.settings-editor .suggest-input-container').first().click();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('chat.useHooks');
      const setting = page.locator('.settings-editor .setting-item-bool', { hasText: 'Use Hooks' }).first();
      await setting.waitFor({ timeout: 20000 });
      await setting.locator('.setting-value-checkbox').first().click();
      // The editor writes the setting a moment later: close it only once the status bar follows.
      await guard.first().waitFor({ state: guardState, timeout: 20000 });
      await command(page, 'View: Close All Editors'); // the modal would cover the status bar
    };
    await check("status bar: VS Code's agent without ShellGate is said (chat.useHooks off), and not when it asks", async () => {
      if (await guard.count()) throw new Error('the warning shows while the hook is installed and hooks are on');
      await toggleUseHooks('visible');
      await guard.first().hover();
      const tip = page.locator(`${sel.hover}, .workbench-hover`, { hasText: 'chat.useHooks' }).first();
      await tip.waitFor({ timeout: 10000 });
      const text = (await tip.innerText()).replace(/\s+/g, ' ');
      await page.screenshot({ path: path.join(SHOTS, 'agent-guard.png') });
      await page.mouse.move(5, 5);
      await toggleUseHooks('hidden');
      return text.slice(0, 200);
    });

    await check('Govern Agents…: each agent\'s hook; installs a missing one after saying which files change', async () => {
      await page.mouse.move(5, 5);
      await command(page, 'ShellGate: Govern Agents…');
      const row = (name) => page.locator(sel.quickRow).filter({ hasText: name }).first();
      await row("VS Code's agent").waitFor({ timeout: 30000 });
      const rows = {};
      for (const name of ['Codex', 'Claude Code', 'Gemini CLI', 'Copilot CLI', "VS Code's agent"]) {
        rows[name] = (await row(name).innerText()).replace(/\s+/g, ' ');
      }
      for (const name of ['Copilot CLI', "VS Code's agent"]) {
        if (!rows[name].includes('ShellGate hook installed') || !rows[name].includes('.copilot/hooks/shellgate.json')) throw new Error(`${name}: ${rows[name]}`);
      }
      if (!rows['Gemini CLI'].includes('no ShellGate hook')) throw new Error(`Gemini CLI: ${rows['Gemini CLI']}`);
      await page.screenshot({ path: path.join(SHOTS, 'govern-agents.png') });
      // Those without a hook come picked: keep Gemini CLI only.
      for (const name of ['Codex', 'Claude Code']) await row(name).click(); // a click toggles a row
      await page.locator(sel.quickInput, { hasText: '1 Selected' }).waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      const confirm = page.locator(sel.dialog, { hasText: 'install its hook for Gemini CLI' });
      await confirm.waitFor({ timeout: 20000 });
      const text = (await confirm.innerText()).replace(/\s+/g, ' ');
      const settingsFile = path.join(process.env.HOME, '.gemini', 'settings.json'); // run-e2e.sh's scratch HOME
      if (!text.includes(settingsFile) || !text.includes('shellgate.toml')) throw new Error(`the changes are not spelt out: ${text}`);
      if (/Codex|Claude Code/.test(text)) throw new Error(`unpicked agents in the plan: ${text}`);
      await page.locator(sel.dialogButton).filter({ hasText: /^Install$/ }).first().click();
      const toast = page.locator(sel.notification, { hasText: 'BeforeTool hook' });
      await toast.first().waitFor({ timeout: 30000 });
      const written = fs.readFileSync(settingsFile, 'utf8');
      if (!written.includes('shellgate hook gemini')) throw new Error(`${settingsFile}: ${written}`);
      return (await toast.first().innerText()).replace(/\s+/g, ' ').slice(0, 200);
    });

    // One chat turn: the stand-in model (vscode-agent-script.json) calls run_in_terminal four
    // times: a forbidden command, an allowed one, and two that need approval (yes, then no).
    const vscodeAsking = (cmd) => page.locator(sel.quickInput, { hasText: cmd }).filter({ hasText: "VS Code's agent asks" });
    await check("VS Code's agent: a forbidden run_in_terminal command is denied, and the model reads ShellGate's reason", async () => {
      await page.keyboard.press('Escape');
      await command(page, 'Chat: Open Chat');
      const input = page.locator(sel.chatInput).first();
      await input.waitFor({ timeout: 30000 });
      await input.click();
      await page.keyboard.type('clean up, then leave a note and two files');
      await page.keyboard.press('Enter');
      await waitFor(async () => vscodeAgentRequests().length >= 2, 120000, 'the request after the forbidden call');
      const [first, second] = vscodeAgentRequests();
      if (first.model !== 'standin') throw new Error(`the agent used ${first.model}`);
      if (!first.tools.some((t) => t.function.name === 'run_in_terminal')) throw new Error('no run_in_terminal tool offered');
      const told = lastToolResult(second);
      if (!/^Tool execution denied: ShellGate: .*rejected: deleting files is not for agents here/.test(told)) throw new Error(`the model read: ${told}`);
      if (!fs.existsSync(path.join(WS, 'scratch', 'keep.txt'))) throw new Error('scratch/ is gone: the forbidden command ran');
      return told.slice(0, 200);
    });

    await check("VS Code's agent: an allowed command runs (no ShellGate dialog, no VS Code card)", async () => {
      const file = path.join(WS, 'allowed-by-shellgate.txt');
      await waitFor(async () => fs.existsSync(file), 60000, 'allowed-by-shellgate.txt');
      const content = fs.readFileSync(file, 'utf8').trim();
      if (content !== 'vscode-agent-ok') throw new Error(`it holds ${JSON.stringify(content)}`);
      return `allowed-by-shellgate.txt: ${content}`;
    });

    await check("VS Code's agent: a command that needs approval asks in ShellGate's dialog, named; Yes runs it", async () => {
      const question = vscodeAsking('touch approved-in-vscode.txt');
      await question.waitFor({ state: 'visible', timeout: 60000 });
      const title = (await page.locator(sel.quickInputTitle).innerText()).trim();
      if (title !== "ShellGate: VS Code's agent wants to run the following command") throw new Error(`title: ${title}`);
      await page.screenshot({ path: path.join(SHOTS, 'vscode-agent-dialog.png') });
      await clickAnswer('Yes, proceed');
      await waitFor(async () => fs.existsSync(path.join(WS, 'approved-in-vscode.txt')), 60000, 'approved-in-vscode.txt');
      return title;
    });

    await check("VS Code's agent: No in ShellGate's dialog: not run, and the model reads that", async () => {
      await vscodeAsking('touch declined-in-vscode.txt').waitFor({ state: 'visible', timeout: 60000 });
      await clickAnswer(/^No\s*Does not run it/);
      await waitFor(async () => vscodeAgentRequests().length >= 5, 60000, 'the request after the declined call');
      const told = lastToolResult(vscodeAgentRequests()[4]);
      if (!told.includes("declined VS Code's agent's command")) throw new Error(`the model read: ${told}`);
      if (fs.existsSync(path.join(WS, 'declined-in-vscode.txt'))) throw new Error('declined-in-vscode.txt exists: the declined command ran');
      await page.locator(sel.chatResponse, { hasText: 'vscode-agent-finished' }).first().waitFor({ timeout: 30000 });
      await page.screenshot({ path: path.join(SHOTS, 'vscode-agent-chat.png') });
      return told.slice(0, 200);
    });

    await check('History survives a reload of the window (read from the decision record)', async () => {
      await command(page, 'Developer: Reload Window');
      await page.waitForSelector(sel.explorerRow, { timeout: 60000 }).catch(() => {});
      await page.locator(sel.statusItem, { hasText: 'workspace-write' }).first().waitFor({ timeout: 60000 });
      await command(page, 'ShellGate: Focus on History View');
      // a decision made before the reload, by VS Code's agent through the hook (the newest rows
      // are drawn; the tree draws only the rows on screen)
      const row = page.locator(sel.viewPane('History')).locator(sel.treeRow, { hasText: 'touch declined-in-vscode.txt' }).first();
      await row.waitFor({ timeout: 30000 });
      const text = (await row.innerText()).replace(/\s+/g, ' ');
      if (!/denied by person/.test(text)) throw new Error(`history row: ${text}`);
      return text;
    });

    // Last: the server goes. Its discovery file and socket go with it, and VS Code, which does
    // not cancel a dead connection's requests, closes the question it had asked.
    await check('server killed (SIGTERM) with a question open: its files go, the question closes, the hook falls back', async () => {
      const out = path.join(SHOTS, 'hook-killed.json');
      const hook = outsideHook(out, 'touch server-killed.txt', 60);
      await asking('touch server-killed.txt').waitFor({ state: 'visible', timeout: 30000 });
      const run = path.join(process.env.XDG_RUNTIME_DIR, 'shellgate');
      const files = fs.readdirSync(run).filter((f) => /^server-\d+\.json$/.test(f));
      if (files.length !== 1) throw new Error(`discovery files: ${files}`);
      const pid = Number(files[0].match(/\d+/)[0]);
      process.kill(pid, 'SIGTERM');
      await asking('touch server-killed.txt').waitFor({ state: 'hidden', timeout: 15000 });
      const answer = await hookAnswer(out, hook);
      if (answer !== null) throw new Error(`the hook got ${JSON.stringify(answer)}`);
      await page.locator(sel.notification, { hasText: 'the language server stopped' }).first().waitFor({ timeout: 10000 });
      const left = fs.readdirSync(run).filter((f) => f.includes(`-${pid}.`));
      if (left.length) throw new Error(`left behind: ${left}`);
      return `server ${pid} gone with its files`;
    });
  } finally {
    await browser.close();
  }
  const failed = results.filter(([ok]) => !ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
