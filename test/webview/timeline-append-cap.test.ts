import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TIMELINE_RECORDS } from '../../src/shared/manager-protocol';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';
import type { PageFixtures } from './harness/page-fixtures';
import { makeTimeline } from './harness/timeline-fixture';

/**
 * A reset carries at most the newest MAX_TIMELINE_RECORDS records; live appends must not grow
 * the Hook Manager past that while the panel stays open. It drops the oldest, and says so.
 */
let view: WebviewPage;
let closeView: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1280, height: 800 }));
  await view.host({ type: 'showTab', tab: 'timeline' });
  await view.page.getByTestId('timeline-view-table').click();
});
afterAll(() => closeView?.());
afterEach(() => {
  expect(view.problems).toEqual([]);
});

const count = async () => Number(((await view.page.getByTestId('timeline-count').textContent()) ?? '').replace(/[^0-9]/g, ''));
const droppedNote = () => view.page.getByTestId('timeline-dropped');
const firstRowSeq = () =>
  view.page.locator('[data-testid="timeline-scroller"] .tl-row[data-index="0"]:not([hidden])').getAttribute('data-seq');

describe('live timeline appends', () => {
  it('keep at most the reset cap of records, the newest, and say older ones were dropped', async () => {
    const total = 30_000;
    await view.page.evaluate((n) => {
      const w = window as unknown as { __host(m: unknown): void; __fixtures: PageFixtures };
      const records = w.__fixtures.makeTimeline(n, 's1');
      w.__host({ type: 'timelineReset', sessionId: 's1', records: records.slice(0, 1), sessions: [{ id: 's1', label: 's1' }] });
      for (let i = 1; i < records.length; i += 2_000)
        w.__host({ type: 'timelineAppend', sessionId: 's1', records: records.slice(i, i + 2_000) });
    }, total);
    const held = await count();
    expect(held).toBeLessThanOrEqual(MAX_TIMELINE_RECORDS);
    // A cut keeps most of the cap, not a handful.
    expect(held).toBeGreaterThanOrEqual(MAX_TIMELINE_RECORDS * 0.9);
    await droppedNote().waitFor();
    // The records held are the newest: the fixture numbers them from 0.
    await expect.poll(firstRowSeq).toBe(String(total - held));

    // Appends go on after a cut.
    await view.host({ type: 'timelineAppend', sessionId: 's1', records: makeTimeline(total + 1, 's1').slice(total) });
    await expect.poll(count).toBe(held + 1);
  });

  it("a reset says when it starts after the session's first record, and not when it holds them all", async () => {
    const records = makeTimeline(60, 's2').map((record) => ({ ...record, seq: record.seq + 1 }));
    await view.host({ type: 'timelineReset', sessionId: 's2', records: records.slice(20), sessions: [{ id: 's2', label: 's2' }] });
    await expect.poll(count).toBe(40);
    expect(await droppedNote().isVisible()).toBe(true);
    await view.host({ type: 'timelineReset', sessionId: 's2', records, sessions: [{ id: 's2', label: 's2' }] });
    await expect.poll(count).toBe(60);
    expect(await droppedNote().isVisible()).toBe(false);
  });
});
