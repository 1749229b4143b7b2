import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromiumPath, resultsDir } from './paths';
import { chromium, type Browser, type FrameLocator, type Locator, type Page } from './playwright';
import { waitUntil } from './wait';

export interface Workbench {
  page: Page;
  /** Console errors and uncaught page errors since the page was created. */
  consoleErrors: () => string[];
  close(): Promise<void>;
}

// Without the networking flags Chromium keeps trying hosts this machine cannot reach.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// Generous bounds, which cost nothing when things go well: on a loaded two-core machine
// the extension host has been seen to take 20 s from workbench to activation.
const WORKBENCH_TIMEOUT_MS = 90_000;
const UI_TIMEOUT_MS = 30_000;
/** For what appears only once the extension host has scanned or activated extensions. */
const EXTENSION_TIMEOUT_MS = 60_000;

/** Opens `folder` in code-server at `url` in a fresh headless Chromium. */
export async function openWorkbench(url: string, folder: string): Promise<Workbench> {
  const browser: Browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const consoleErrors = collectConsoleErrors(page);
    const address = new URL(url);
    address.searchParams.set('folder', folder);
    await page.goto(address.toString(), { waitUntil: 'domcontentloaded', timeout: WORKBENCH_TIMEOUT_MS });
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT_MS });
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT_MS });
    await dismissNotifications(page);
    return { page, consoleErrors, close: () => browser.close() };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** A CSS string literal for attribute selectors, quotes and backslashes escaped. */
function cssString(text: string): string {
  return JSON.stringify(text);
}

function quickInput(page: Page): Locator {
  return page.locator('.quick-input-widget');
}

/**
 * Matches an element whose whole text is `text`. Playwright's :text-is() looks only at
 * an element's own text nodes, and VS Code wraps labels in spans (highlighted matches
 * split them further), so the full text is matched with an anchored pattern instead.
 */
function exactly(text: string): RegExp {
  return new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
}

/**
 * The rendered quick-input row labelled `label`. Anchored on content, not on a row index,
 * so a list that re-renders between finding and clicking cannot swap the row.
 */
function quickRow(page: Page, label: string): Locator {
  return page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name').filter({ hasText: exactly(label) }) })
    .first();
}

/** Fills the quick input with `query` and clicks the row labelled `label` once it is rendered. */
async function clickQuickRow(page: Page, query: string, label: string, timeoutMs: number): Promise<boolean> {
  const input = quickInput(page).locator('input.input');
  await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  await input.fill(query);
  const row = quickRow(page, label);
  try {
    await row.waitFor({ state: 'visible', timeout: timeoutMs });
  } catch {
    return false;
  }
  await row.click({ timeout: UI_TIMEOUT_MS });
  return true;
}

/**
 * Presses F1 until the palette shows. A focused webview that is still loading swallows
 * keys, so focus goes back to the workbench document first.
 */
async function openCommandPalette(page: Page): Promise<void> {
  const input = quickInput(page).locator('input.input');
  await waitUntil(
    'the command palette to open',
    async () => {
      await page.locator('body').evaluate(() => {
        if (document.activeElement instanceof HTMLIFrameElement) document.activeElement.blur();
      });
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 2_000 });
      return true;
    },
    { timeoutMs: UI_TIMEOUT_MS },
  );
}

/**
 * Runs a command by its palette title, e.g. "Smoke: Ask". Clicks the row whose label is
 * exactly the title rather than pressing Enter on whatever is focused, since filtering is
 * asynchronous. The palette does not refresh when an extension's commands arrive after it
 * opened, so it is closed and opened again until the command shows up.
 */
export async function runCommand(page: Page, title: string, timeoutMs = EXTENSION_TIMEOUT_MS): Promise<void> {
  const query = `>${title}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await openCommandPalette(page);
    if (await clickQuickRow(page, query, title, 3_000)) break;
    await page.keyboard.press('Escape');
    if (Date.now() >= deadline) throw new Error(`command ${JSON.stringify(title)} did not appear in the command palette`);
  }
  // The palette closes, unless the command at once opens a quick pick of its own in the
  // same widget: either way the command query is gone.
  const input = quickInput(page).locator('input.input');
  await waitUntil(`the palette to run ${JSON.stringify(title)}`, async () => {
    if (!(await input.isVisible())) return true;
    return (await input.inputValue({ timeout: 1_000 })) !== query ? true : undefined;
  });
}

/** Picks the item labelled `labelText` in the open quick pick (typing it first to filter). */
export async function pickQuickItem(page: Page, labelText: string): Promise<void> {
  if (!(await clickQuickRow(page, labelText, labelText, UI_TIMEOUT_MS))) {
    throw new Error(`no quick pick item labelled ${JSON.stringify(labelText)}`);
  }
}

/** Shows the activity-bar container whose title is `ariaLabel` (does not toggle it closed). */
export async function openViewContainer(page: Page, ariaLabel: string): Promise<void> {
  // The label may carry a keybinding suffix, as in "Explorer (Ctrl+Shift+E)".
  const item = page
    .locator(
      `.part.activitybar li.action-item:has(a.action-label[aria-label=${cssString(ariaLabel)}]), ` +
        `.part.activitybar li.action-item:has(a.action-label[aria-label^=${cssString(`${ariaLabel} (`)}])`,
    )
    .first();
  await item.waitFor({ state: 'visible', timeout: EXTENSION_TIMEOUT_MS });
  const isOpen = async () => ((await item.getAttribute('class')) ?? '').split(/\s+/).includes('checked');
  if (!(await isOpen())) await item.click();
  await waitUntil(`view container ${ariaLabel} to open`, async () => ((await isOpen()) ? true : undefined), { timeoutMs: UI_TIMEOUT_MS });
}

export interface WebviewMatch {
  /** The webview document's <title> (or VS Code's title for the webview frame). */
  title?: string;
  /** A selector that must exist in the webview's document. */
  selector?: string;
  /** The contributing extension, "publisher.name". */
  extensionId?: string;
  timeoutMs?: number;
}

/**
 * The content frame of the visible webview that matches. A webview sits two frames
 * deep (iframe.webview.ready, then #active-frame) and hidden ones stay in the DOM, so
 * the first one is not necessarily the right one.
 */
export async function webviewFrame(page: Page, match: WebviewMatch): Promise<FrameLocator> {
  if (match.title === undefined && match.selector === undefined && match.extensionId === undefined) {
    throw new Error('webviewFrame needs a title, a selector or an extensionId');
  }
  const outers = page.locator('iframe.webview.ready');
  return waitUntil(
    `webview ${JSON.stringify(match)}`,
    async () => {
      const count = await outers.count();
      for (let i = 0; i < count; i++) {
        const outer = outers.nth(i);
        if (!(await outer.isVisible())) continue;
        const inner = outer.contentFrame().locator('#active-frame').contentFrame();
        if (await matchesWebview(outer, inner, match)) return inner;
      }
      return undefined;
    },
    { timeoutMs: match.timeoutMs ?? EXTENSION_TIMEOUT_MS, intervalMs: 300 },
  );
}

async function titleOf(frame: FrameLocator): Promise<string | null> {
  return frame
    .locator('title')
    .first()
    .textContent({ timeout: 1_000 })
    .catch(() => null);
}

async function matchesWebview(outer: Locator, inner: FrameLocator, match: WebviewMatch): Promise<boolean> {
  if (match.extensionId !== undefined) {
    const src = await outer.getAttribute('src', { timeout: 1_000 });
    if (src === null || new URL(src).searchParams.get('extensionId') !== match.extensionId) return false;
  }
  if (match.title !== undefined) {
    const titles = [await titleOf(inner), await titleOf(outer.contentFrame())];
    if (!titles.includes(match.title)) return false;
  }
  if (match.selector !== undefined && (await inner.locator(match.selector).count()) === 0) return false;
  return true;
}

/** Clicks `buttonLabel` in the modal dialog and returns the dialog's message (and detail). */
export async function answerModal(page: Page, buttonLabel: string): Promise<string> {
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  // A message alone renders as the detail line; with a detail, as text plus detail.
  const message = (await dialog.locator('.dialog-message-container').innerText()).trim();
  await dialog
    .locator('a.monaco-button')
    .filter({ hasText: exactly(buttonLabel) })
    .first()
    .click({ timeout: UI_TIMEOUT_MS });
  await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  return message;
}

/** The messages of the notification toasts on screen. */
export async function notifications(page: Page): Promise<string[]> {
  return page.locator('.notifications-toasts .notification-toast .notification-list-item-message').allInnerTexts();
}

/** Waits for a notification toast containing `text` and returns its full message. */
export async function waitForNotification(page: Page, text: string): Promise<string> {
  return waitUntil(
    `notification containing ${JSON.stringify(text)}`,
    async () => (await notifications(page)).find((m) => m.includes(text)),
    {
      timeoutMs: UI_TIMEOUT_MS,
    },
  );
}

/** Clears every toast so none covers what a test clicks next. */
export async function dismissNotifications(page: Page): Promise<void> {
  const clear = page.locator('.notifications-toasts .notification-toast .codicon-notifications-clear');
  for (let guard = 0; guard < 20 && (await clear.count()) > 0; guard++) {
    await clear
      .first()
      .click({ force: true, timeout: 2_000 })
      .catch(() => undefined);
  }
}

/** Saves test-results/e2e/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Starts recording console errors and uncaught page errors; call the result to read them. */
export function collectConsoleErrors(page: Page): () => string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`));
  return () => [...errors];
}
