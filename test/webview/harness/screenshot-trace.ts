import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebviewPage, launchChromium } from './browser';
import { buildWebviews } from './build-webviews';
import { makeTraceSession } from './trace-fixture';
import { startWebviewServer } from './webview-server';

/**
 * Takes docs/images/trace-timeline.png: the Hook Manager's trace of a fixture session, its
 * fourth turn zoomed, with a failed guard run selected. Run with `npx tsx test/webview/harness/screenshot-trace.ts`.
 */
async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-shot-'));
  await buildWebviews(dir, { production: true });
  const server = await startWebviewServer(dir);
  const browser = await launchChromium();
  try {
    const view = await WebviewPage.open(browser, server.pageUrl('manager'), { width: 1400, height: 640 });
    await view.host({ type: 'showTab', tab: 'timeline' });
    const records = makeTraceSession(40, 'fix-the-build');
    await view.host({
      type: 'timelineReset',
      sessionId: 'fix-the-build',
      records,
      sessions: [{ id: 'fix-the-build', label: 'Make the checks pass', live: true, records: records.length }],
    });
    const row = (label: string) =>
      view.page
        .locator('[data-testid="trace-scroller"] .tr-row:not([hidden])')
        .filter({ has: view.page.locator('.tr-label', { hasText: label }) })
        .first();
    for (const turn of ['Turn 1 ·', 'Turn 2 ·', 'Turn 3 ·']) await row(turn).locator('.tr-twisty').click();
    for (const step of ['Step 1', 'Step 2', 'Step 3', 'Step 4', 'Step 5', 'Step 6']) await row(step).locator('.tr-twisty').click();
    await row('Turn 4 ·').locator('.tr-label').dblclick();
    await view.page.locator('[data-testid="trace-scroller"] .tr-row.is-failure[data-kind="hook"]').first().click();
    await view.page.getByTestId('timeline-detail').getByTestId('detail-stderr').waitFor();
    // Turn 3 (collapsed) at the top, Turn 4 below it.
    await view.page.getByTestId('trace-scroller').evaluate((el) => (el.scrollTop = 48));
    await view.page.locator('[data-testid="trace-scroller"] .tr-row[data-index="2"]').waitFor();
    await view.page.mouse.move(0, 0);
    await view.page.screenshot({ path: path.resolve(__dirname, '../../../docs/images/trace-timeline.png') });
    await view.close();
  } finally {
    await browser.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
