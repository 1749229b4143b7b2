import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import type { HostToManager } from '../../src/shared/manager-protocol';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';
import { makeTraceSession } from './harness/trace-fixture';

let view: WebviewPage;

const STEPS = 1000;
const records = makeTraceSession(STEPS);

/** The page makes the same deterministic session itself: sending 12,000 records over the debugging protocol takes seconds. */
async function resetTrace(steps = STEPS, sessionId = 'trace-1'): Promise<void> {
  await view.page.evaluate(
    ({ steps, sessionId }) => {
      const w = window as unknown as {
        __host(m: HostToManager): void;
        __fixtures: { makeTraceSession(n: number, id: string): AuditRecord[] };
      };
      const session = w.__fixtures.makeTraceSession(steps, sessionId);
      w.__host({ type: 'timelineReset', sessionId, records: session, sessions: [{ id: sessionId, label: 'A long session', live: true }] });
    },
    { steps, sessionId },
  );
  const expected = `${makeTraceSession(steps, sessionId).length.toLocaleString('en-US')} records`;
  await view.page.waitForFunction((text) => document.querySelector('[data-testid="timeline-count"]')?.textContent === text, expected);
}

const setSelect = (testId: string, value: string) =>
  view.page.getByTestId(testId).evaluate((el, v) => {
    (el as HTMLElement & { value: string }).value = v;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);

const traceRows = () => view.page.locator('[data-testid="trace-scroller"] .tr-row:not([hidden])');
/** Row `index` of the trace as shown (the pooled rows' DOM order is not their order on screen). */
const rowAt = (index: number) => view.page.locator(`[data-testid="trace-scroller"] .tr-row[data-index="${index}"]:not([hidden])`);
/** What the rendered rows show, in screen order. */
const shownRows = <T>(read: (el: Element) => T): Promise<T[]> =>
  traceRows().evaluateAll((els, source) => {
    const fn = new Function(`return (${source})`)() as (el: Element) => unknown;
    return els.sort((a, b) => Number((a as HTMLElement).dataset.index) - Number((b as HTMLElement).dataset.index)).map((el) => fn(el));
  }, read.toString()) as Promise<T[]>;
const rowLabels = () => shownRows((el) => el.querySelector('.tr-label')?.textContent ?? '');
/** Waits until row `index` shows `label`. */
const waitForRow = (index: number, label: string) =>
  view.page.waitForFunction(
    ({ index, label }) =>
      document.querySelector(`[data-testid="trace-scroller"] .tr-row[data-index="${index}"]:not([hidden]) .tr-label`)?.textContent ===
      label,
    { index, label },
  );

let closeView: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1400, height: 820 }));
  await view.host({ type: 'showTab', tab: 'timeline' });
});

afterAll(() => closeView?.());

beforeEach(async () => {
  await view.clearPosted();
  for (const id of ['filter-event', 'filter-hook', 'filter-decision', 'filter-focus']) await setSelect(id, '');
  await view.page.getByTestId('timeline-view-trace').click();
});

afterEach(() => {
  expect(view.problems).toEqual([]);
});

describe('Timeline trace', () => {
  it('shows a 1,000-step session as nested spans with a bounded number of rows, and collapses a turn', async () => {
    await resetTrace();
    expect(await view.page.getByTestId('timeline-view-trace').getAttribute('aria-pressed')).toBe('true');
    expect(await view.page.locator('.tl-view[data-view="table"]').isHidden()).toBe(true);
    const rendered = await traceRows().count();
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(80);
    // Depth first: the turn, its prompt event and the hook that ran on it, then the first step.
    expect((await rowLabels()).slice(0, 8)).toEqual([
      'Turn 1 · task 1: make check 1 pass',
      'UserPromptSubmit',
      'audit-context',
      'TurnStart',
      'Step 1',
      'Model request · gpt-test → 1 tool call',
      'BeforeLLM',
      'budget',
    ]);
    const levels = await shownRows((el) => el.getAttribute('aria-level'));
    expect(levels.slice(0, 8)).toEqual(['1', '2', '3', '2', '2', '3', '4', '5']);
    // Bars share one axis: a later span starts further right.
    const lefts = await shownRows((el) => parseFloat((el.querySelector('.tr-bar') as HTMLElement).style.left));
    expect(lefts[0]).toBe(0);
    expect(lefts[4]).toBeGreaterThan(lefts[1]);

    // Collapsing the first turn hides its ~110 spans: the second turn follows it at once.
    await rowAt(0).locator('.tr-twisty').click();
    await waitForRow(1, 'Turn 2 · task 2: make check 2 pass');
    expect(await rowAt(0).getAttribute('aria-expanded')).toBe('false');
    await rowAt(0).locator('.tr-twisty').click();
    await waitForRow(1, 'UserPromptSubmit');

    // A double-click zooms the shared axis to a span (its bars fill the track); the zoom-out button undoes it.
    const axisEnd = () => view.page.getByTestId('trace-axis').locator('span').nth(2).textContent();
    const session = await axisEnd();
    await rowAt(4).locator('.tr-label').dblclick();
    await view.page.getByTestId('trace-zoom-out').waitFor();
    expect(await axisEnd()).not.toBe(session);
    expect(
      await rowAt(4)
        .locator('.tr-bar')
        .evaluate((el) => [parseFloat(el.style.left), Math.round(parseFloat(el.style.width))]),
    ).toEqual([0, 100]);
    await view.page.getByTestId('trace-zoom-out').click();
    await view.page.getByTestId('trace-zoom-out').waitFor({ state: 'hidden' });
    expect(await axisEnd()).toBe(session);

    // Scrolling to the end shows the last turn's end, still with a bounded DOM.
    await view.page.getByTestId('trace-scroller').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await view.page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="trace-scroller"] .tr-row:not([hidden]) .tr-label')].some(
        (el) => el.textContent === 'Turn 100 · task 100: make check 100 pass' || el.textContent === 'TurnEnd',
      ),
    );
    expect(await traceRows().count()).toBeLessThan(80);
  });

  it('selecting a hook run shows its payload, output, stderr, decision and reason; selecting a turn sums it up', async () => {
    await resetTrace();
    // The first failed guard: step 36 (every 37th). Failures only brings it up.
    await setSelect('filter-focus', 'failures');
    await waitForRow(4, 'guard');
    const failed = rowAt(4);
    expect(await failed.getAttribute('class')).toContain('is-failure');
    const labels = await rowLabels();
    expect(labels.slice(0, 6)).toEqual([
      'Turn 4 · task 4: make check 4 pass',
      'Step 7',
      'Bash · npm run step-36',
      'PreToolUse',
      'guard',
      'Turn 6 · task 6: make check 6 pass',
    ]);
    await failed.click();
    const detail = view.page.getByTestId('timeline-detail');
    await detail.getByTestId('detail-stderr').waitFor();
    const run = records.find((r) => r.type === 'hook_run' && r.status === 'error');
    if (run?.type !== 'hook_run') throw new Error('the fixture has a failed run');
    expect(await detail.getByTestId('detail-stderr').locator('pre').textContent()).toBe(run.stderr);
    expect(await detail.getByTestId('detail-error').locator('pre').textContent()).toBe(run.error);
    expect(await detail.getByTestId('detail-input').locator('pre').textContent()).toContain('"tool_use_id": "call_36"');
    expect(await detail.locator('.detail-field', { hasText: 'Decision' }).locator('.detail-value').textContent()).toBe('error');
    expect(await detail.getByTestId('span-summary').textContent()).toContain('Hook run');

    // A denied call: its guard's reason and the call's outcome.
    await setSelect('filter-focus', '');
    await setSelect('filter-decision', 'deny');
    await waitForRow(4, 'guard');
    await rowAt(4).click();
    await detail.getByTestId('detail-reason').waitFor();
    expect(await detail.getByTestId('detail-reason').locator('pre').textContent()).toBe('step 28: Edit is not allowed here');
    expect(await detail.getByTestId('detail-stdout').locator('pre').textContent()).toBe('{"decision":"deny"}');
    expect(await rowAt(2).locator('.badge').textContent()).toBe('denied');

    // A turn has no record of its own: its summary counts what ran in it.
    await setSelect('filter-decision', '');
    await waitForRow(1, 'UserPromptSubmit');
    await rowAt(0).click();
    const summary = detail.getByTestId('span-summary');
    await view.page.waitForFunction(() => document.querySelector('[data-testid="span-summary"]')?.textContent?.includes('Turn'));
    expect(await summary.textContent()).toContain('Hook runs32');
    expect(await summary.textContent()).toContain('Outcomecompleted');
    await view.screenshot('manager-timeline-trace-detail.png');
  });

  it('shows the slowest hook runs in their own colour, and filters by event, hook and text like the table', async () => {
    await resetTrace();
    await setSelect('filter-focus', 'slowest');
    await view.page.locator('[data-testid="trace-scroller"] .tr-row.is-slow').first().waitFor();
    // The 20 slowest hook runs, and those as slow as the 20th: the 18 timeouts (5 s) and every 900 ms formatter run.
    const runs = records.flatMap((r) => (r.type === 'hook_run' ? [r.duration_ms] : [])).sort((a, b) => b - a);
    const slowest = runs.filter((ms) => ms >= runs[19]);
    expect(new Set(slowest)).toEqual(new Set([5000, 900]));
    await view.page.waitForFunction(
      (n) => document.querySelector('[data-testid="timeline-count"]')?.textContent === n,
      `${slowest.length} of ${records.length.toLocaleString('en-US')}`,
    );
    const durations = await shownRows((el) =>
      el.getAttribute('data-kind') === 'hook' ? el.querySelector('.tr-ms')?.textContent : undefined,
    );
    expect(new Set(durations.filter((d) => d !== undefined))).toEqual(new Set(['5.00 s', '900 ms']));
    const colour = await view.page
      .locator('[data-testid="trace-scroller"] .tr-row.is-slow .tr-ms')
      .first()
      .evaluate((el) => getComputedStyle(el).color);
    const plain = await view.page
      .locator('[data-testid="trace-scroller"] .tr-row:not(.is-slow) .tr-ms')
      .first()
      .evaluate((el) => getComputedStyle(el).color);
    expect(colour).not.toBe(plain);

    await setSelect('filter-focus', '');
    await setSelect('filter-event', 'Stop');
    await view.page.waitForFunction(() => document.querySelector('[data-testid="timeline-count"]')?.textContent?.includes(' of '));
    const kinds = await traceRows().evaluateAll((els) => [...new Set(els.map((el) => el.getAttribute('data-kind')))]);
    expect(kinds.sort()).toEqual(['event', 'hook', 'turn']);
    await setSelect('filter-event', '');
    await setSelect('filter-hook', 'budget');
    await view.page.waitForFunction(
      () => document.querySelector('[data-testid="trace-scroller"] .tr-row[data-kind="hook"] .tr-label')?.textContent === 'budget',
    );
    expect(
      new Set(await view.page.locator('[data-testid="trace-scroller"] .tr-row[data-kind="hook"] .tr-label').allTextContents()),
    ).toEqual(new Set(['budget']));
    await setSelect('filter-hook', '');
    await view.page.getByTestId('filter-text').evaluate((el) => {
      (el as HTMLElement & { value: string }).value = 'STEP-999';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await view.page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="trace-scroller"] .tr-label')].some((el) => el.textContent === 'Bash · npm run step-999'),
    );
    expect((await rowLabels())[0]).toBe('Turn 100 · task 100: make check 100 pass');
    await view.page.getByTestId('filter-text').evaluate((el) => {
      (el as HTMLElement & { value: string }).value = '';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await view.page.waitForFunction(
      (n) => document.querySelector('[data-testid="timeline-count"]')?.textContent === n,
      `${records.length.toLocaleString('en-US')} records`,
    );
  });

  it('toggles between Trace and Table, keeping filters and the selection', async () => {
    await resetTrace(50);
    await setSelect('filter-hook', 'guard');
    await waitForRow(4, 'guard');
    const seq = await rowAt(4).getAttribute('data-seq');
    await rowAt(4).click();
    await view.page.getByTestId('timeline-view-table').click();
    expect(await view.page.locator('.tl-view[data-view="trace"]').isHidden()).toBe(true);
    expect(await view.page.getByTestId('timeline-view-table').getAttribute('aria-pressed')).toBe('true');
    const tableRows = view.page.locator('[data-testid="timeline-scroller"] .tl-row:not([hidden])');
    await tableRows.first().waitFor();
    expect(new Set(await tableRows.locator('.tl-subject').allTextContents())).toEqual(new Set(['guard']));
    expect(await view.page.locator(`[data-testid="timeline-scroller"] .tl-row.is-selected`).getAttribute('data-seq')).toBe(seq);
    // "Failures only" narrows the table too: exactly the failed and timed-out runs (and their dispatches).
    await setSelect('filter-hook', '');
    await setSelect('filter-focus', 'failures');
    const session = makeTraceSession(50);
    const failures = session.filter(
      (r) =>
        (r.type === 'hook_run' && (r.status === 'error' || r.status === 'timeout')) ||
        (r.type === 'dispatch' && (r.decision === 'error' || r.decision === 'timeout')),
    );
    expect(failures.length).toBeGreaterThan(0);
    await view.page.waitForFunction(
      (n) => document.querySelector('[data-testid="timeline-count"]')?.textContent === n,
      `${failures.length} of ${session.length}`,
    );
    const outcomes = new Set(failures.map((r) => (r.type === 'hook_run' ? r.status : r.type === 'dispatch' ? r.decision : '')));
    expect(new Set(await tableRows.locator('.tl-decision .badge').allTextContents())).toEqual(outcomes);
    await setSelect('filter-focus', '');
    await setSelect('filter-hook', 'guard');

    // Select another run in the table: back in the trace, that one is selected.
    const other = await tableRows.nth(4).getAttribute('data-seq');
    await view.page.locator(`[data-testid="timeline-scroller"] .tl-row[data-seq="${other}"]`).click();
    await view.page.getByTestId('timeline-view-trace').click();
    await view.page.locator(`[data-testid="trace-scroller"] .tr-row.is-selected[data-seq="${other}"]`).waitFor();
  });

  it('a selected model request asks the host for the full request and shows it when it comes', async () => {
    await resetTrace(3);
    const seq = Number(
      await view.page.locator('[data-testid="trace-scroller"] .tr-row[data-kind="model"]').nth(2).getAttribute('data-seq'),
    );
    await view.page.locator(`[data-testid="trace-scroller"] .tr-row[data-kind="model"][data-seq="${seq}"]`).click();
    expect(await view.waitForPosted('timelineDetail')).toEqual([{ type: 'timelineDetail', sessionId: 'trace-1', seq }]);
    const detail = view.page.getByTestId('timeline-detail');
    await detail.getByTestId('detail-loading').waitFor();
    expect(await detail.getByTestId('detail-input').locator('pre').textContent()).toContain('messages_delta');
    const logged = makeTraceSession(3).find((r) => r.seq === seq);
    if (logged?.type !== 'event') throw new Error('the model span shows its BeforeLLM event');
    const messages = [
      { role: 'user', content: 'task 1' },
      { role: 'assistant', content: 'step 0' },
      { role: 'tool', content: 'output 0' },
      { role: 'assistant', content: 'step 1' },
      { role: 'tool', content: 'output 1' },
    ];
    const full = {
      ...logged,
      payload: { ...(logged.payload as object), llm_request: { model: 'gpt-test', messages, tools: [{ name: 'Bash' }] } },
    };
    await view.host({
      type: 'timelineRecord',
      sessionId: 'other-session',
      record: { ...full, payload: { llm_request: { messages: ['wrong session'] } } },
    });
    await view.host({ type: 'timelineRecord', sessionId: 'trace-1', record: full });
    await detail.getByTestId('detail-loading').waitFor({ state: 'detached' });
    const shown = JSON.parse((await detail.getByTestId('detail-input').locator('pre').textContent()) ?? '') as { llm_request: unknown };
    expect(shown.llm_request).toEqual({ model: 'gpt-test', messages, tools: [{ name: 'Bash' }] });
    // The hook that ran on that request saw it whole too; no second request to the host.
    // Its budget hook is the span after the BeforeLLM event (seq + 1).
    await view.page.locator(`[data-testid="trace-scroller"] .tr-row[data-seq="${seq + 1}"]`).click();
    await view.page.waitForFunction(() =>
      document.querySelector('[data-testid="timeline-detail"] .detail-head')?.textContent?.includes('budget'),
    );
    expect(await detail.getByTestId('detail-input').locator('pre').textContent()).toContain('"content": "output 1"');
    expect(await view.waitForPosted('timelineDetail')).toHaveLength(1);
  });

  it('a record the host cut for the list is asked for whole when selected, and shown whole when it comes', async () => {
    const session = makeTraceSession(3, 'cut-1');
    const target = session.find((r) => r.type === 'event' && r.event === 'PostToolUse');
    if (target?.type !== 'event') throw new Error('the session has a PostToolUse event');
    const cut = { ...target, payload: { ...(target.payload as object), tool_response: { stdout: 'xxxx…[truncated 99996 chars]' } } };
    await view.host({
      type: 'timelineReset',
      sessionId: 'cut-1',
      records: session.map((r) => (r.seq === target.seq ? cut : r)),
      shortened: [target.seq],
      sessions: [{ id: 'cut-1', label: 'A session of big outputs', live: true }],
    });
    await view.page.getByTestId('timeline-view-table').click();
    await view.page.locator(`[data-testid="timeline-scroller"] .tl-row[data-seq="${target.seq}"]`).click();
    expect(await view.waitForPosted('timelineDetail')).toEqual([{ type: 'timelineDetail', sessionId: 'cut-1', seq: target.seq }]);
    const detail = view.page.getByTestId('timeline-detail');
    expect(await detail.getByTestId('detail-loading').textContent()).toBe('Reading the whole record from the log…');
    const whole = { ...target, payload: { ...(target.payload as object), tool_response: { stdout: 'the whole output' } } };
    await view.host({ type: 'timelineRecord', sessionId: 'cut-1', record: whole });
    await detail.getByTestId('detail-loading').waitFor({ state: 'detached' });
    await view.page.waitForFunction(() =>
      document.querySelector('[data-testid="timeline-detail"]')?.textContent?.includes('the whole output'),
    );
    await view.page.getByTestId('timeline-view-trace').click();
  });

  it('appends live records into the open turn without a rebuild of what is shown', async () => {
    const session = makeTraceSession(12, 'live-1');
    const cut = session.findIndex(
      (r) => r.type === 'event' && r.event === 'PostToolUse' && (r.payload as { tool_use_id?: string }).tool_use_id === 'call_11',
    );
    await view.host({
      type: 'timelineReset',
      sessionId: 'live-1',
      records: session.slice(0, cut),
      sessions: [{ id: 'live-1', label: 'Live', live: true }],
    });
    await view.page.waitForFunction((n) => document.querySelector('[data-testid="timeline-count"]')?.textContent === n, `${cut} records`);
    // Turn 1 collapsed, turn 2 (steps 11 and 12) is the second row.
    await rowAt(0).locator('.tr-twisty').click();
    const turn2 = rowAt(1);
    await view.page.waitForFunction(() =>
      document.querySelectorAll('[data-testid="trace-scroller"] .tr-row[data-kind="turn"]')[1]?.classList.contains('is-open'),
    );
    expect(await turn2.locator('.tr-label').textContent()).toBe('Turn 2 · task 2: make check 2 pass');
    await view.host({ type: 'timelineAppend', sessionId: 'live-1', records: session.slice(cut) });
    await view.page.waitForFunction(
      (n) => document.querySelector('[data-testid="timeline-count"]')?.textContent === n,
      `${session.length} records`,
    );
    await view.page.waitForFunction(
      () => !document.querySelectorAll('[data-testid="trace-scroller"] .tr-row[data-kind="turn"]')[1]?.classList.contains('is-open'),
    );
    expect(await turn2.locator('.badge').textContent()).toBe('completed');
  });

  it("a record appended while a long reset is still being built lands after the reset's records, in its turn", async () => {
    // 300 steps is about 3,800 records: the first thousand go into the tree before the first paint, the rest in chunks.
    await view.page.evaluate(() => {
      const w = window as unknown as {
        __host(m: HostToManager): void;
        __fixtures: { makeTraceSession(n: number, id: string): AuditRecord[] };
      };
      const session = w.__fixtures.makeTraceSession(300, 'grow-1');
      const cut = session.length - 3;
      w.__host({
        type: 'timelineReset',
        sessionId: 'grow-1',
        records: session.slice(0, cut),
        sessions: [{ id: 'grow-1', label: 'Growing', live: true }],
      });
      w.__host({ type: 'timelineAppend', sessionId: 'grow-1', records: session.slice(cut) });
    });
    const total = makeTraceSession(300, 'grow-1').length;
    await view.page.waitForFunction(
      (n) => document.querySelector('[data-testid="timeline-count"]')?.textContent === n,
      `${total.toLocaleString('en-US')} records`,
    );
    // The last turn's Stop and TurnEnd came in the append: it is closed, and its end is the session's end.
    await setSelect('filter-event', 'TurnEnd');
    await waitForRow(0, 'Turn 1 · task 1: make check 1 pass');
    await view.page.getByTestId('trace-scroller').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await view.page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="trace-scroller"] .tr-row[data-kind="turn"] .tr-label')].some(
        (el) => el.textContent === 'Turn 30 · task 30: make check 30 pass',
      ),
    );
    const last = view.page.locator('[data-testid="trace-scroller"] .tr-row[data-kind="turn"]').filter({ hasText: 'Turn 30 ·' });
    expect(await last.getAttribute('class')).not.toContain('is-open');
    expect(await last.locator('.badge').textContent()).toBe('completed');
    expect(await view.page.locator('[data-testid="trace-scroller"] .tr-row[data-kind="turn"]').filter({ hasText: 'Turn 31' }).count()).toBe(
      0,
    );
  });
});
