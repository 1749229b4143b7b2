import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';
import { makeTimeline } from './harness/timeline-fixture';

let view: WebviewPage;
let closeView: (() => Promise<void>) | undefined;

const tableRow = (index: number) => view.page.locator(`[data-testid="timeline-scroller"] .tl-row[data-index="${index}"]:not([hidden])`);
const selectedTableSeqs = () =>
  view.page
    .locator('[data-testid="timeline-scroller"] .tl-row.is-selected:not([hidden])')
    .evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.seq));
const selectedTraceRows = () => view.page.locator('[data-testid="trace-scroller"] .tr-row.is-selected:not([hidden])').count();
const detail = () => view.page.getByTestId('timeline-detail');
const detailTitle = () => detail().locator('.detail-head strong').textContent();

/** What the detail's title is for table row `index`: its subject, else its event. */
const titleOfRow = async (index: number) => {
  const row = tableRow(index);
  const subject = (await row.locator('.tl-subject').textContent()) ?? '';
  return ` ${subject || ((await row.locator('.tl-event').textContent()) ?? '')}`;
};

beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1280, height: 800 }));
  await view.host({ type: 'showTab', tab: 'timeline' });
  await view.host({
    type: 'timelineReset',
    sessionId: 'session-1',
    records: makeTimeline(60),
    sessions: [{ id: 'session-1', label: 'Selection', live: true }],
  });
  await view.page.waitForFunction(() => document.querySelector('[data-testid="timeline-count"]')?.textContent === '60 records');
});

afterAll(() => closeView?.());

afterEach(() => {
  expect(view.problems).toEqual([]);
});

describe('Timeline selection', () => {
  it('arrow keys move the table selection and the detail follows it; Close clears it in both views', async () => {
    await view.page.getByTestId('timeline-view-table').click();
    await tableRow(0).click();
    await view.page.locator('[data-testid="timeline-scroller"] .tl-row.is-selected').waitFor();
    await expect.poll(selectedTableSeqs).toEqual([await tableRow(0).getAttribute('data-seq')]);

    await view.page.getByTestId('timeline-scroller').press('ArrowDown');
    await view.page.getByTestId('timeline-scroller').press('ArrowDown');
    await expect.poll(selectedTableSeqs).toEqual([await tableRow(2).getAttribute('data-seq')]);
    expect(await detailTitle()).toBe(await titleOfRow(2));

    await view.page.getByTestId('timeline-scroller').press('ArrowUp');
    await expect.poll(selectedTableSeqs).toEqual([await tableRow(1).getAttribute('data-seq')]);
    expect(await detailTitle()).toBe(await titleOfRow(1));

    await detail().getByTitle('Close details').click();
    await expect.poll(() => detail().isHidden()).toBe(true);
    await expect.poll(selectedTableSeqs).toEqual([]);
    await view.page.getByTestId('timeline-view-trace').click();
    expect(await selectedTraceRows()).toBe(0);

    // With no selection, the arrow starts again at the first row.
    await view.page.getByTestId('timeline-view-table').click();
    await view.page.getByTestId('timeline-scroller').press('ArrowDown');
    await expect.poll(selectedTableSeqs).toEqual([await tableRow(0).getAttribute('data-seq')]);
    await detail().getByTitle('Close details').click();
    await expect.poll(() => detail().isHidden()).toBe(true);
  });

  it('a span picked in the trace shows in the detail until Close, which unselects it there and in the table', async () => {
    await view.page.getByTestId('timeline-view-trace').click();
    const hookRow = view.page.locator('[data-testid="trace-scroller"] .tr-row:not([hidden])').filter({ hasText: 'guard' }).first();
    await hookRow.click();
    await expect.poll(selectedTraceRows).toBe(1);
    await expect.poll(() => detail().isHidden()).toBe(false);
    expect(await detailTitle()).toContain('guard');

    await view.page.getByTestId('timeline-view-table').click();
    const [seq] = await selectedTableSeqs();
    expect(seq).toBeDefined();
    await view.page.getByTestId('timeline-view-trace').click();

    await detail().getByTitle('Close details').click();
    await expect.poll(() => detail().isHidden()).toBe(true);
    expect(await selectedTraceRows()).toBe(0);
    await view.page.getByTestId('timeline-view-table').click();
    expect(await selectedTableSeqs()).toEqual([]);
  });
});
