import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebviewPage, launchChromium } from '../test/webview/harness/browser';
import { buildWebviews } from '../test/webview/harness/build-webviews';
import type { PageFixtures } from '../test/webview/harness/page-fixtures';
import { startWebviewServer } from '../test/webview/harness/webview-server';
import { percentiles, type BenchRow, type BenchSuite } from './types';

const RECORDS = 10_000;
/** About a 1,000-step session's log. */
const LARGE_RECORDS = 20_000;
/** Model steps of the session shaped like a real one (test/webview/harness/trace-fixture.ts). */
const TRACE_STEPS = 1_000;
const RUNS = 10;
const RENDER_TARGET_MS = 200;
const BUNDLE_TARGET_KB = 600;

function measureReset(args: { count: number; session: string }): Promise<number> {
  return (window as unknown as { __fixtures: PageFixtures }).__fixtures.measureTimelineReset(args.count, args.session);
}

function measureTrace(args: { steps: number; session: string }): Promise<number> {
  return (window as unknown as { __fixtures: PageFixtures }).__fixtures.measureTraceReset(args.steps, args.session);
}

function measureFilter(event: string): Promise<number> {
  return (window as unknown as { __fixtures: PageFixtures }).__fixtures.measureTimelineFilter(event);
}

async function timelineFirstRender(bundleDir: string): Promise<BenchRow[]> {
  const server = await startWebviewServer(bundleDir);
  const browser = await launchChromium();
  try {
    const view = await WebviewPage.open(browser, server.pageUrl('manager'), { width: 1280, height: 800 });
    await view.host({ type: 'showTab', tab: 'timeline' });
    // One warm-up run: the first parse of the bundle's code paths is not what users wait for twice.
    await view.page.evaluate(measureReset, { count: RECORDS, session: 'warmup' });
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) samples.push(await view.page.evaluate(measureReset, { count: RECORDS, session: `bench-${i}` }));
    if (view.problems.length > 0) throw new Error(`the manager page reported problems: ${view.problems.join('; ')}`);
    const { p50, p99 } = percentiles(samples);
    const large: number[] = [];
    const filters: number[] = [];
    const trace: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      large.push(await view.page.evaluate(measureReset, { count: LARGE_RECORDS, session: `large-${i}` }));
      trace.push(await view.page.evaluate(measureTrace, { steps: TRACE_STEPS, session: `trace-${i}` }));
      // One event, then all of them again: both rebuild the list the scroller shows.
      filters.push(await view.page.evaluate(measureFilter, 'PreToolUse'), await view.page.evaluate(measureFilter, ''));
    }
    if (view.problems.length > 0) throw new Error(`the manager page reported problems: ${view.problems.join('; ')}`);
    const row = (name: string, samples: number[]): BenchRow => {
      const at = percentiles(samples);
      return { name, unit: 'ms', ...at, target: `<= ${RENDER_TARGET_MS} ms`, ok: at.p50 <= RENDER_TARGET_MS };
    };
    return [
      {
        name: `timeline first render, ${RECORDS.toLocaleString('en-US')} records (Chromium)`,
        unit: 'ms',
        p50,
        p99,
        target: `<= ${RENDER_TARGET_MS} ms`,
        ok: p50 <= RENDER_TARGET_MS,
      },
      row(`timeline first render, ${LARGE_RECORDS.toLocaleString('en-US')} records (Chromium)`, large),
      row(`timeline event filter on and off, ${LARGE_RECORDS.toLocaleString('en-US')} records (Chromium)`, filters),
      row(`timeline first render, ${TRACE_STEPS.toLocaleString('en-US')}-step session as a trace (Chromium)`, trace),
    ];
  } finally {
    await browser.close();
    await server.close();
  }
}

function sizeRows(dir: string, label: string, withTarget: boolean): BenchRow[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js') && !f.startsWith('harness-'))
    .sort()
    .map((file) => {
      const kb = statSync(join(dir, file)).size / 1024;
      return withTarget
        ? { name: `bundle ${file} (${label})`, unit: 'KB', value: kb, target: `<= ${BUNDLE_TARGET_KB} KB`, ok: kb <= BUNDLE_TARGET_KB }
        : { name: `bundle ${file} (${label})`, unit: 'KB', value: kb };
    });
}

const suite: BenchSuite = {
  title: 'webview',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'hookpilot-webview-bench-'));
    try {
      // What `npm run package` ships (minified), measured and rendered; dist/webview is the dev build.
      await buildWebviews(dir, { production: true });
      const render = await timelineFirstRender(dir);
      return [
        ...render,
        ...sizeRows(dir, 'production', true),
        ...sizeRows(join(__dirname, '..', 'dist', 'webview'), 'dist, dev build', false),
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
