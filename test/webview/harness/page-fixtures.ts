import type { AuditRecord } from '../../../src/core/audit/records';
import { VirtualList } from '../../../webview-ui/common/virtual-list';
import { makeTimeline } from './timeline-fixture';
import { makeTraceSession } from './trace-fixture';

interface HarnessWindow {
  __host(message: unknown): void;
  __fixtures: PageFixtures;
}

/**
 * Posts a timelineReset of `count` records (made beforehand, outside the measurement) and
 * resolves with the milliseconds until the first row of the view shown (trace or table)
 * and the record count are on screen, checked once per animation frame.
 */
function measureTimelineReset(count: number, session: string): Promise<number> {
  return measureReset(makeTimeline(count, session), session);
}

/** The same for a session shaped like a real one, `steps` model steps long (see trace-fixture). */
function measureTraceReset(steps: number, session: string): Promise<number> {
  return measureReset(makeTraceSession(steps, session), session);
}

function measureReset(records: AuditRecord[], session: string): Promise<number> {
  const w = window as unknown as HarnessWindow;
  const expected = `${records.length.toLocaleString()} records`;
  return new Promise((resolve) => {
    // Start from an empty timeline so that the rows found afterwards are the new ones.
    w.__host({ type: 'timelineReset', sessionId: 'empty', records: [], sessions: [] });
    setTimeout(() => {
      const start = performance.now();
      w.__host({ type: 'timelineReset', sessionId: session, records, sessions: [{ id: session, label: session }] });
      const check = () => {
        const shown = document.querySelector('[data-testid="timeline-count"]')?.textContent;
        const row = document.querySelector('.tl-view:not([hidden]) .tl-scroller [data-index="0"]:not([hidden])');
        if (shown === expected && row && row.getBoundingClientRect().height > 0) resolve(performance.now() - start);
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    }, 100);
  });
}

/** Milliseconds from choosing an event in the timeline's filter to the next frame. */
function measureTimelineFilter(event: string): Promise<number> {
  const select = document.querySelector<HTMLSelectElement>('[data-testid="filter-event"]');
  if (!select) return Promise.reject(new Error('the timeline has no event filter'));
  return new Promise((resolve) => {
    const start = performance.now();
    select.value = event;
    select.dispatchEvent(new Event('change'));
    requestAnimationFrame(() => resolve(performance.now() - start));
  });
}

/**
 * A VirtualList of `items` in a scroller of its own, whose render throws for the items in
 * `failing`; renders it and returns the text of each row shown, in order.
 */
function listWithFailingRows(items: string[], failing: string[]): string[] {
  const scroller = document.createElement('div');
  scroller.style.cssText = 'position: fixed; inset: 0; overflow: auto; z-index: 9';
  document.body.append(scroller);
  const list = new VirtualList<string>({
    scroller,
    key: (item) => item,
    render: (item) => {
      if (failing.includes(item)) throw new Error(`cannot draw ${item}`);
      const row = document.createElement('div');
      row.textContent = item;
      return row;
    },
    estimateHeight: () => 20,
  });
  list.setItems(items);
  list.renderNow();
  const shown = [...scroller.querySelectorAll('.vlist-rows > *')].map((row) => row.textContent ?? '');
  scroller.remove();
  return shown;
}

const fixtures = {
  makeTimeline,
  makeTraceSession,
  measureTimelineReset,
  measureTraceReset,
  measureTimelineFilter,
  listWithFailingRows,
};
export type PageFixtures = typeof fixtures;

// Bundled into the harness page so that large fixtures are made in the page: sending
// 10,000 records from the test process through the debugging protocol takes seconds.
(window as unknown as HarnessWindow).__fixtures = fixtures;
