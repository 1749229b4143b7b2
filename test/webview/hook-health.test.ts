import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HookHealthView, HookView } from '../../src/shared/manager-views';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';
import { makeHookView } from './harness/hook-view-fixture';
import { makeTimeline } from './harness/timeline-fixture';

// The Hooks tab's health line and the timeline's hook filter, in headless Chromium on the production bundle.

let view: WebviewPage;

const hook = (id: string, health?: HookHealthView): HookView =>
  makeHookView(id, {
    errorCount: health ? health.failures + health.timeouts : 0,
    runCount: health?.runs ?? 0,
    ...(health ? { health } : {}),
  });

// What a hook's stderr said, which may hold what the model wrote: it must show as text.
const HOSTILE_ERROR = 'Failed with non-blocking status code 1: <img src=x onerror="window.__pwned=1"> lint server down';
const LINT: HookHealthView = {
  runs: 42,
  failures: 5,
  timeouts: 2,
  p50Ms: 12.4,
  p95Ms: 1830,
  sampled: false,
  state: 'failing',
  lastError: { status: 'error', message: HOSTILE_ERROR, at: '2026-01-01T10:00:00.000Z' },
  recentMs: [10, 12, 20, 1830, 8, 5000, 14],
};
const FAST: HookHealthView = {
  runs: 3,
  failures: 0,
  timeouts: 0,
  p50Ms: 0.4,
  p95Ms: 2,
  sampled: true,
  state: 'healthy',
  recentMs: [0.4, 2, 0],
};

let closeView: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1280, height: 800 }));
});

afterAll(() => closeView?.());

beforeEach(async () => {
  await view.clearPosted();
});

describe('hook health in the Hook Manager', () => {
  it("shows each hook's recent durations as a chart, its percentiles, failures, state and last error", async () => {
    await view.host({ type: 'hooks', hooks: [hook('lint', LINT), hook('fast', FAST), hook('never-ran')], disableAllHooks: false });
    await view.page.getByTestId('tab-hooks').click();
    const lint = view.page.locator('[data-hook-id="lint"]');
    await lint.getByTestId('hook-health').waitFor();

    expect(await lint.getByTestId('hook-health-numbers').textContent()).toBe('p50 12 ms · p95 1.83 s · 42 runs');
    expect(await lint.getByTestId('hook-health-failures').textContent()).toBe('5 failed · 2 timed out');
    expect(await lint.getByTestId('hook-health-state').textContent()).toBe('failing');
    expect(await lint.getByTestId('hook-health-state').isVisible()).toBe(true);
    expect(await lint.getByTestId('hook-last-error').textContent()).toBe(`Last error: ${HOSTILE_ERROR}`);
    expect(await lint.locator('img').count()).toBe(0);
    expect(await view.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    // One bar per recent run, oldest first, scaled to the longest (5000 ms fills the chart's 18 px).
    const barsOf = (row: typeof lint) =>
      row
        .locator('.hook-sparkline rect')
        .evaluateAll((els) => els.map((el) => ({ ms: Number(el.getAttribute('data-ms')), height: Number(el.getAttribute('height')) })));
    const bars = await barsOf(lint);
    expect(bars.map((b) => b.ms)).toEqual(LINT.recentMs);
    expect(bars[5].height).toBe(18);
    expect(bars[3].height).toBeCloseTo((1830 / 5000) * 18, 1);
    expect(bars[4].height).toBeLessThan(bars[3].height);
    expect(await lint.locator('.hook-sparkline title').textContent()).toBe('Last 7 runs, up to 5.00 s');

    // A healthy hook shows no state badge and no error; sampled percentiles are marked approximate; a 0 ms run is still a bar.
    const fast = view.page.locator('[data-hook-id="fast"]');
    expect(await fast.getByTestId('hook-health-numbers').textContent()).toBe('p50 ~<1 ms · p95 ~2 ms · 3 runs');
    expect(await fast.getByTestId('hook-health-state').isVisible()).toBe(false);
    expect(await fast.getByTestId('hook-last-error').isVisible()).toBe(false);
    expect(await fast.getByTestId('hook-health-failures').isVisible()).toBe(false);
    expect((await barsOf(fast)).map((b) => b.height)).toEqual([3.6, 18, 1]);
    // A hook that never ran has no health line.
    expect(await view.page.locator('[data-hook-id="never-ran"]').getByTestId('hook-health').isVisible()).toBe(false);
    await view.screenshot('manager-hook-health.png');

    // The next snapshot updates the line in place: recovered, no error kept on screen.
    const recovered = hook('lint', { ...LINT, state: 'healthy', lastError: undefined, recentMs: [3] });
    await view.host({ type: 'hooks', hooks: [recovered], disableAllHooks: false });
    await lint.getByTestId('hook-health-state').waitFor({ state: 'hidden' });
    expect(await lint.getByTestId('hook-last-error').isVisible()).toBe(false);
    expect(await lint.locator('.hook-sparkline rect').count()).toBe(1);
  });

  it('"Show runs" under a hook opens the Timeline filtered to it', async () => {
    await view.host({ type: 'hooks', hooks: [hook('guard', LINT)], disableAllHooks: false });
    await view.page.getByTestId('tab-hooks').click();
    await view.page.locator('[data-hook-id="guard"]').getByTestId('hook-show-runs').click();
    await view.page.getByTestId('tab-timeline').and(view.page.locator('.is-active')).waitFor();
    expect(await view.page.getByTestId('filter-hook').evaluate((el) => (el as HTMLElement & { value: string }).value)).toBe('guard');
    // Nothing to ask the host: the filter is the page's own.
    expect(await view.posted()).toEqual([]);
  });

  it("showTab with a hook shows the timeline filtered to that hook's runs, kept across the session reset", async () => {
    const records = makeTimeline(300);
    const guardRuns = records.filter((r) => r.type === 'hook_run' && r.hook_name === 'guard').length;
    expect(guardRuns).toBeGreaterThan(0);
    await view.host({ type: 'showTab', tab: 'timeline', hook: 'guard' });
    const sessions = [{ id: 'session-1', label: 'Clean the build', live: true }];
    await view.host({ type: 'timelineReset', sessionId: 'session-1', records, sessions });
    await view.page.getByTestId('tab-timeline').and(view.page.locator('.is-active')).waitFor();
    const countIs = (text: string) => document.querySelector('[data-testid="timeline-count"]')?.textContent === text;
    await view.page.waitForFunction(countIs, `${guardRuns} of ${records.length}`);
    expect(await view.page.getByTestId('filter-hook').evaluate((el) => (el as HTMLElement & { value: string }).value)).toBe('guard');
  });
});
