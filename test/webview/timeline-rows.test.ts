import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import { NO_FILTER, matchesFilter, maxDuration, toTimelineRow } from '../../webview-ui/manager/timeline-rows';
import { makeTimeline } from './harness/timeline-fixture';

const base = { ts: '2025-05-01T09:00:00.000Z', session_id: 's1' };
const hookRun = (over: Partial<Extract<AuditRecord, { type: 'hook_run' }>>): AuditRecord => ({
  ...base,
  type: 'hook_run',
  seq: 1,
  dispatch_id: 'd1',
  event: 'PreToolUse',
  hook_id: 'h',
  hook_name: 'guard',
  handler: 'command',
  source: 'hooksJson',
  status: 'success',
  decision: 'allow',
  duration_ms: 12,
  ...over,
});

describe('timeline rows', () => {
  it('derive the decision badge from status first, then the decision', () => {
    expect(toTimelineRow(hookRun({ decision: 'deny' }))).toMatchObject({
      badge: 'deny',
      decisionText: 'deny',
      hookName: 'guard',
      subject: 'guard',
      event: 'PreToolUse',
      durationMs: 12,
    });
    expect(toTimelineRow(hookRun({ status: 'timeout', decision: 'allow' }))).toMatchObject({ badge: 'timeout', decisionText: 'timeout' });
    expect(toTimelineRow(hookRun({ status: 'error', decision: 'none' }))).toMatchObject({ badge: 'error' });
    expect(toTimelineRow(hookRun({ status: 'blocking-error', decision: 'block' }))).toMatchObject({ badge: 'block' });
    expect(toTimelineRow(hookRun({ decision: 'defer' }))).toMatchObject({ badge: 'ask', decisionText: 'defer' });
    expect(toTimelineRow(hookRun({ decision: 'context' }))).toMatchObject({ badge: 'none', decisionText: 'context' });
    expect(toTimelineRow(hookRun({ status: 'cancelled' }))).toMatchObject({ badge: 'none', decisionText: 'cancelled' });
  });

  it('give records without a hook a readable event and subject', () => {
    expect(
      toTimelineRow({ ...base, type: 'event', seq: 2, dispatch_id: 'd', event: 'UserPromptSubmit', payload: { prompt: 'fix it' } }),
    ).toMatchObject({ event: 'UserPromptSubmit', subject: 'fix it', badge: 'none', decisionText: '' });
    expect(
      toTimelineRow({ ...base, type: 'permission', seq: 3, tool_name: 'Bash', decision: 'deny', source: 'rule Bash(rm:*)' }),
    ).toMatchObject({ event: 'Permission', subject: 'Bash · denied by rule Bash(rm:*)', badge: 'deny' });
    expect(
      toTimelineRow({
        ...base,
        type: 'dispatch',
        seq: 4,
        dispatch_id: 'd',
        event: 'Stop',
        decision: 'block',
        hooks_run: 2,
        duration_ms: 40,
      }),
    ).toMatchObject({ subject: '2 hooks', badge: 'block', durationMs: 40 });
    expect(toTimelineRow({ ...base, type: 'note', seq: 5, level: 'error', message: 'torn line skipped' })).toMatchObject({
      event: 'Note',
      subject: 'torn line skipped',
      badge: 'error',
    });
  });

  it('filter by event, hook, decision and case-insensitive text together', () => {
    const rows = makeTimeline(2000).map(toTimelineRow);
    const only = (filter: Partial<typeof NO_FILTER>) => rows.filter((r) => matchesFilter(r, { ...NO_FILTER, ...filter }));
    expect(only({})).toHaveLength(2000);
    // Each filter keeps exactly the rows that qualify: some, never all, never none.
    const expectExactly = (filter: Partial<typeof NO_FILTER>, qualifies: (r: (typeof rows)[number]) => boolean) => {
      const kept = only(filter);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(rows.length);
      expect(kept).toEqual(rows.filter(qualifies));
    };
    expectExactly({ decision: 'block' }, (r) => r.badge === 'block');
    expectExactly({ hook: 'guard' }, (r) => r.hookName === 'guard');
    expectExactly({ event: 'Stop', decision: 'allow' }, (r) => r.event === 'Stop' && r.badge === 'allow');
    expectExactly({ text: 'TRACEBACK' }, (r) => r.record.type === 'hook_run' && !!r.record.stderr?.includes('Traceback'));
    // The dispatch of a timed-out run is its slowest record (5000 ms + 1).
    expect(maxDuration(rows)).toBe(5001);
  });
});
