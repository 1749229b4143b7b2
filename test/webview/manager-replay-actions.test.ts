import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import type { HookView } from '../../src/shared/manager-views';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';
import { makeHookView } from './harness/hook-view-fixture';

let view: WebviewPage;

const base = { ts: '2025-05-01T09:00:00.000Z', session_id: 'session-1' };
const RECORDS: AuditRecord[] = [
  {
    ...base,
    seq: 1,
    type: 'event',
    dispatch_id: 'd1',
    event: 'PreToolUse',
    payload: { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, tool_use_id: 'c1' },
  },
  {
    ...base,
    seq: 2,
    type: 'hook_run',
    dispatch_id: 'd1',
    event: 'PreToolUse',
    hook_id: 'guard-id',
    hook_name: 'guard',
    handler: 'command',
    source: 'hooksJson',
    status: 'blocking-error',
    decision: 'block',
    reason: 'no rm -rf',
    duration_ms: 12,
  },
  {
    ...base,
    seq: 3,
    type: 'hook_run',
    dispatch_id: 'd1',
    event: 'PreToolUse',
    hook_id: 'metrics',
    hook_name: 'Metrics',
    handler: 'builtin',
    source: 'builtin',
    status: 'success',
    decision: 'none',
    duration_ms: 0,
  },
];
const GUARD: HookView = makeHookView('guard-id', { name: 'guard', target: 'node hooks/guard.js', runCount: 1 });

let closeView: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager'));
});

afterAll(() => closeView?.());

afterEach(() => {
  expect(view.problems).toEqual([]);
});

describe('Hook Manager: replay actions on a timeline record', () => {
  it('a hook run offers "Run this hook on this event" and "Replay against today\'s hooks"; the test panel shows the payload the host ran', async () => {
    await view.host({ type: 'hooks', hooks: [GUARD], disableAllHooks: false });
    await view.host({ type: 'showTab', tab: 'timeline' });
    await view.page.getByTestId('timeline-view-table').click();
    await view.host({
      type: 'timelineReset',
      sessionId: 'session-1',
      records: RECORDS,
      sessions: [{ id: 'session-1', label: 'Clean the build', live: false }],
    });
    await view.page.locator('.tl-scroller .tl-row[data-seq="2"]').click();
    const detail = view.page.getByTestId('timeline-detail');
    await view.clearPosted();
    await detail.getByTestId('detail-run-hook').click();
    expect(await view.waitForPosted('testFireRecord')).toEqual([{ type: 'testFireRecord', sessionId: 'session-1', seq: 2 }]);
    await detail.getByTestId('detail-replay-session').click();
    expect(await view.waitForPosted('replaySession')).toEqual([{ type: 'replaySession', sessionId: 'session-1' }]);

    // A built-in hook's run has nothing of the user's to re-run; the session can still be replayed.
    await view.page.locator('.tl-scroller .tl-row[data-seq="3"]').click();
    await detail.getByTestId('detail-replay-session').waitFor();
    expect(await detail.getByTestId('detail-run-hook').count()).toBe(0);

    // The host's answer: the Hooks tab, the guard's test panel with the recorded payload and the result.
    const payload = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }, null, 2);
    await view.host({ type: 'showTab', tab: 'hooks' });
    await view.host({
      type: 'testResult',
      id: 'guard-id',
      result: { status: 'blocking-error', decision: 'block', stderr: 'no rm -rf', durationMs: 12, payload },
    });
    const editor = view.page.getByTestId('test-payload');
    await editor.waitFor();
    expect(await editor.inputValue()).toBe(payload);
    expect(await view.page.getByTestId('test-status').textContent()).toBe('blocking-error');
  });
});
