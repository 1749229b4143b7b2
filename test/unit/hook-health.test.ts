import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import { HookHealth, type HookRunRecord } from '../../src/core/hooks/hook-health';
import { LatencySamples } from '../../src/core/hooks/latency-samples';

let seq = 0;
function run(hookId: string, durationMs: number, over: Partial<HookRunRecord> = {}): HookRunRecord {
  seq++;
  return {
    type: 'hook_run',
    seq,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
    session_id: 's1',
    dispatch_id: `d${seq}`,
    event: 'PreToolUse',
    hook_id: hookId,
    hook_name: `${hookId}-name`,
    handler: 'command',
    source: 'hooksJson',
    status: 'success',
    decision: 'allow',
    duration_ms: durationMs,
    ...over,
  };
}
const fail = (hookId: string, error = 'exit 1') => run(hookId, 5, { status: 'error', decision: 'error', error });
const timeout = (hookId: string) => run(hookId, 60_000, { status: 'timeout', decision: 'timeout', error: 'timed out after 60000 ms' });

describe('hook health statistics', () => {
  it('counts runs, failures, timeouts and cancellations and computes nearest-rank percentiles exactly', () => {
    const health = new HookHealth();
    // 1..100 ms in a shuffled order: p50 is 50, p95 is 95 whatever the order.
    const durations = Array.from({ length: 100 }, (_, i) => i + 1).sort((a, b) => ((a * 37) % 101) - ((b * 37) % 101));
    for (const d of durations) health.record(run('h', d));
    health.record(run('h', 9_999, { status: 'cancelled', decision: 'none' }));
    health.record({ type: 'note', seq: 999, ts: '', session_id: 's1', level: 'info', message: 'not a run' } satisfies AuditRecord);
    const stats = health.get('h');
    expect(stats).toMatchObject({ runs: 101, failures: 0, timeouts: 0, cancelled: 1, hookName: 'h-name' });
    expect(stats).toMatchObject({ p50Ms: 50, p95Ms: 95, maxMs: 100, sampled: false });
    expect(stats?.recentMs).toHaveLength(30);
    expect(stats?.recentMs.at(-1)).toBe(durations.at(-1));

    health.record(fail('h', 'boom'));
    health.record(timeout('h'));
    const lastError = { status: 'timeout', message: 'timed out after 60000 ms' };
    expect(health.get('h')).toMatchObject({ runs: 103, failures: 1, timeouts: 1, lastError });
    expect(health.get('other')).toBeUndefined();
  });

  it('percentiles of a small set: one run, two runs, ties', () => {
    const health = new HookHealth();
    health.record(run('a', 7));
    expect(health.get('a')).toMatchObject({ p50Ms: 7, p95Ms: 7 });
    health.record(run('a', 3));
    expect(health.get('a')).toMatchObject({ p50Ms: 3, p95Ms: 7 });
    for (let i = 0; i < 18; i++) health.record(run('a', 3));
    // 20 values, 19 of them 3: the 95th percentile (rank 19) is still 3.
    expect(health.get('a')).toMatchObject({ p50Ms: 3, p95Ms: 3, maxMs: 7 });
  });

  it('keeps at most maxSamples durations per hook: past that a uniform reservoir, flagged as sampled', () => {
    const samples = new LatencySamples(100, mulberry32(7));
    for (let i = 1; i <= 100_000; i++) samples.add(i);
    expect(samples.sampled).toBe(true);
    expect(samples.max).toBe(100_000);
    // A uniform sample of 1..100000: its median is near 50000 (well within 5 standard errors).
    expect(Math.abs((samples.percentile(50) ?? 0) - 50_000)).toBeLessThan(25_000);
    expect(samples.percentile(100)).toBeLessThanOrEqual(100_000);

    const health = new HookHealth({ maxSamples: 10 });
    for (let i = 0; i < 11; i++) health.record(run('r', 1));
    expect(health.get('r')).toMatchObject({ runs: 11, sampled: true, p50Ms: 1 });
  });

  it('detects consecutive failures: a success in between resets the streak, a deliberate block is not a failure', () => {
    const health = new HookHealth();
    expect(health.record(fail('f'))).toBeUndefined();
    expect(health.record(timeout('f'))).toBeUndefined();
    expect(health.record(run('f', 2, { status: 'blocking-error', decision: 'block' }))).toBeUndefined();
    expect(health.record(fail('f'))).toBeUndefined();
    expect(health.record(fail('f'))).toBeUndefined();
    expect(health.get('f')).toMatchObject({ consecutiveFailures: 2, state: 'healthy' });
    // A cancelled run neither breaks nor extends the streak.
    expect(health.record(run('f', 1, { status: 'cancelled', decision: 'none' }))).toBeUndefined();
    const alert = health.record(timeout('f'));
    expect(alert).toMatchObject({ kind: 'failing', hookId: 'f', hookName: 'f-name', consecutive: 3, sessionId: 's1' });
    expect(alert).toMatchObject({ lastError: { status: 'timeout' } });
    expect(health.get('f')?.state).toBe('failing');
  });

  it('alerts once per degradation: not again while failing, again only after recovering', () => {
    const health = new HookHealth();
    const alerts = (records: HookRunRecord[]) => records.map((r) => health.record(r)).filter((a) => a !== undefined);
    expect(alerts([fail('x'), fail('x'), fail('x')])).toHaveLength(1);
    expect(alerts(Array.from({ length: 20 }, () => fail('x')))).toHaveLength(0);
    // One or two good runs are not a recovery: a hook failing 3 runs in 4 raises nothing new.
    const flapping = [run('x', 1), fail('x'), fail('x'), fail('x'), run('x', 1), run('x', 1), fail('x'), fail('x'), fail('x')];
    expect(alerts(flapping)).toHaveLength(0);
    expect(alerts([run('x', 1), run('x', 1), run('x', 1)])).toHaveLength(0);
    expect(health.get('x')?.state).toBe('healthy');
    expect(alerts([fail('x'), fail('x'), fail('x')])).toMatchObject([{ kind: 'failing' }]);
  });

  it('calls a hook slow when the median of its last blocking runs passes the limit, async runs left out', () => {
    const health = new HookHealth({ slowHookMs: 100, window: 5, minRunsForSlow: 3 });
    expect(health.record(run('s', 500))).toBeUndefined();
    expect(health.record(run('s', 5))).toBeUndefined();
    // Async runs do not hold up the tool call.
    expect(health.record(run('s', 5_000, { async: true }))).toBeUndefined();
    expect(health.record(run('s', 5))).toBeUndefined();
    // 5, 5, 500, 500: the median (nearest rank) is 5.
    expect(health.record(run('s', 500))).toBeUndefined();
    const alert = health.record(run('s', 500));
    const identity = { hookId: 's', hookName: 's-name', event: 'PreToolUse', sessionId: 's1' };
    expect(alert).toEqual({ kind: 'slow', ...identity, medianMs: 500, limitMs: 100, runs: 5 });
    expect(health.record(run('s', 900))).toBeUndefined();
    // Back under the limit but above 80% of it: still slow, no flapping.
    for (let i = 0; i < 5; i++) expect(health.record(run('s', 90))).toBeUndefined();
    expect(health.get('s')?.state).toBe('slow');
    for (let i = 0; i < 5; i++) health.record(run('s', 10));
    expect(health.get('s')?.state).toBe('healthy');
    for (let i = 0; i < 2; i++) expect(health.record(run('s', 400))).toBeUndefined();
    expect(health.record(run('s', 400))).toMatchObject({ kind: 'slow', medianMs: 400 });
  });

  it('the slow limit is a setting: 0 turns the check off, a change applies to the next run', () => {
    const health = new HookHealth({ slowHookMs: 0, window: 3, minRunsForSlow: 3 });
    for (let i = 0; i < 5; i++) expect(health.record(run('z', 10_000))).toBeUndefined();
    health.configure({ slowHookMs: 1_000 });
    expect(health.record(run('z', 10_000))).toMatchObject({ kind: 'slow', limitMs: 1_000 });
    expect(() => health.configure({ slowHookMs: -1 })).toThrow(/slowHookMs must be 0 or more/);
    expect(() => new HookHealth({ failureStreak: 0 })).toThrow(/failureStreak must be a positive integer/);
  });

  it('a run without a finite duration counts, but never reaches the percentiles or the chart', () => {
    const health = new HookHealth();
    health.record(run('n', 4));
    health.record(run('n', Number.NaN));
    health.record(run('n', Number.POSITIVE_INFINITY, { status: 'error', decision: 'error', error: 'x' }));
    expect(health.get('n')).toMatchObject({ runs: 3, failures: 1, p50Ms: 4, p95Ms: 4, maxMs: 4, recentMs: [4] });
  });

  it('tracks each hook apart and lists them in the order of their first run', () => {
    const health = new HookHealth();
    health.record(run('b', 1));
    health.record(fail('a'));
    health.record(fail('a'));
    health.record(run('b', 1));
    expect(health.record(fail('a'))).toMatchObject({ kind: 'failing', hookId: 'a' });
    expect(health.all().map((s) => [s.hookId, s.runs, s.state])).toEqual([
      ['b', 2, 'healthy'],
      ['a', 3, 'failing'],
    ]);
  });
});

/** A small seeded generator: the reservoir test does not depend on luck. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
