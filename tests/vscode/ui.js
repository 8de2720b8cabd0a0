// VS Code DOM selectors and gestures, in one place: they are not API, so bump the code-server
// pin deliberately and fix them here (the e2e runs on VS Code 1.139.1).
const sel = {
  workbench: '.monaco-workbench',
  explorerRow: '.explorer-folders-view .monaco-list-row',
  quickInput: '.quick-input-widget',
  quickInputBox: '.quick-input-widget input',
  quickInputTitle: '.quick-input-widget .quick-input-title',
  quickRow: '.quick-input-list .monaco-list-row',
  quickRowFocused: '.quick-input-list .monaco-list-row.focused',
  editorLines: '.monaco-editor .view-lines',
  activeEditorLines: '.editor-group-container.active .monaco-editor .view-lines',
  squiggleError: '.monaco-editor .squiggly-error',
  problemsRow: '.markers-panel .monaco-list-row',
  hover: '.monaco-hover',
  dialog: '.monaco-dialog-box',
  dialogButton: '.monaco-dialog-box .dialog-buttons .monaco-button',
  languageStatus: '[id="status.editor.mode"]',
  statusItem: '.statusbar-item',
  notification: '.notification-toast',
  panelLines: '.part.panel .monaco-editor .view-lines',
  chatInput: '.interactive-input-part .monaco-editor',
  chatResponse: '.interactive-item-container.interactive-response',
  activityItem: (name) => `.activitybar .action-item [aria-label^="${name}"]`,
  viewPane: (title) => `.pane:has(.pane-header[aria-label^="${title}"])`,
  treeRow: '.monaco-list-row',
  treeLabel: '.monaco-icon-label .label-name',
  treeDescription: '.monaco-icon-label .label-description',
  activityBadge: (name) => `.activitybar .action-item:has([aria-label^="${name}"]) .badge-content`,
};

/** The text of the webview (a Markdown preview, ...) holding `expect`, folded parts included:
 * webviews are nested iframes from another origin, so every frame is asked. */
async function webviewText(page, expect, timeoutMs = 20000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    for (const frame of page.frames()) {
      const text = await frame.evaluate(() => document.body ? document.body.textContent : '').catch(() => '');
      if (text && text.includes(expect) && !text.includes('monaco-workbench')) return text;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no webview shows ${JSON.stringify(expect)}`);
}

async function quickOpen(page, text) {
  await page.keyboard.press('Control+P');
  await page.waitForSelector(sel.quickInputBox, { state: 'visible' });
  await page.keyboard.type(text);
  // Enter picks the focused row: wait until the list has caught up with the typing.
  await page.locator(sel.quickRowFocused, { hasText: text.split('/').pop() }).first().waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
}

async function command(page, title) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await page.waitForSelector(sel.quickInputBox, { state: 'visible' });
  await page.keyboard.type(title);
  await page.locator(sel.quickRowFocused, { hasText: title }).first().waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
}

async function answerInputBox(page, text) {
  const box = page.locator(sel.quickInputBox);
  await box.waitFor({ state: 'visible', timeout: 15000 });
  await box.fill(text);
  await page.keyboard.press('Enter');
}

/** Hovers `text` in the active editor until a hover containing `expect` shows (VS Code drops a
 * hover that starts while a widget is closing, so move away and back a few times). */
async function hoverOn(page, text, expect) {
  const hover = page.locator(sel.hover, { hasText: expect }).first();
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const word = page.locator(`${sel.activeEditorLines} .view-line span`, { hasText: text }).last();
    const box = await word.boundingBox();
    if (!box) throw new Error(`no text ${text} on screen`);
    await page.mouse.move(box.x + box.width / 2, box.y - 60);
    await page.mouse.move(box.x + 3, box.y + box.height / 2);
    await page.mouse.move(box.x + Math.min(12, box.width / 2), box.y + box.height / 2, { steps: 3 });
    try {
      await hover.waitFor({ state: 'visible', timeout: 4000 });
      return hover;
    } catch { /* try again */ }
  }
  throw new Error(`no hover with ${JSON.stringify(expect)} over ${JSON.stringify(text)}`);
}

module.exports = { sel, quickOpen, command, answerInputBox, hoverOn, webviewText };
