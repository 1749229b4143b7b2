import type { AuditRecord } from '../audit/records';
import { LatencySamples } from './latency-samples';

/**
 * Hook health: per hook, runs, failures, timeouts, latency percentiles, the last error and
 * the durations of the recent runs, folded incrementally from `hook_run` audit records. The
 * CLI feeds it a log read from disk (`hookpilot hooks stats`); the extension feeds it each
 * record as it is written. It also tells when a hook turns unhealthy, once per degradation
 * (see docs/hooks.md, "Hook health").
 */

export type HookRunRecord = Extract<AuditRecord, { type: 'hook_run' }>;

export interface HookHealthLimits {
  /** This many failed runs (error or timeout) in a row make a hook `failing`; as many good runs in a row end it. */
  failureStreak: number;
  /** A hook whose median over its last `window` blocking runs is above this is `slow`; 0 turns the check off. */
  slowHookMs: number;
  /** Recent blocking runs the median is taken over (async runs add no latency to a tool call). */
  window: number;
  /** Blocking runs needed before a hook can be called slow. */
  minRunsForSlow: number;
  /** A slow hook is well again once that median falls to this fraction of `slowHookMs` (no flapping at the edge). */
  slowRecoveryRatio: number;
  /** Durations kept for the recent-runs chart. */
  recentRuns: number;
  /** Durations kept per hook for the percentiles; past this they are a uniform sample (see LatencySamples). */
  maxSamples: number;
}

export const DEFAULT_HEALTH_LIMITS: HookHealthLimits = {
  failureStreak: 3,
  slowHookMs: 2000,
  window: 20,
  minRunsForSlow: 5,
  slowRecoveryRatio: 0.8,
  recentRuns: 30,
  maxSamples: 100_000,
};

export type HookHealthState = 'healthy' | 'failing' | 'slow';

export interface HookLastError {
  status: 'error' | 'timeout';
  message: string;
  at: string;
  sessionId: string;
}

export interface HookHealthSnapshot {
  hookId: string;
  hookName: string;
  event: string;
  handler: HookRunRecord['handler'];
  runs: number;
  /** Runs that ended in error (a timeout is counted apart). */
  failures: number;
  timeouts: number;
  cancelled: number;
  /** Nearest-rank percentiles of the run durations (cancelled runs left out); undefined before a run. */
  p50Ms: number | undefined;
  p95Ms: number | undefined;
  maxMs: number | undefined;
  /** True once a hook ran more than `maxSamples` times: the percentiles are then those of a uniform sample. */
  sampled: boolean;
  lastError: HookLastError | undefined;
  lastRunAt: string;
  /** Durations of the last runs, oldest first. */
  recentMs: number[];
  consecutiveFailures: number;
  state: HookHealthState;
}

/** A hook just turned unhealthy: raised once, again only after it recovered. */
export type HookHealthAlert =
  | { kind: 'failing'; hookId: string; hookName: string; event: string; sessionId: string; consecutive: number; lastError: HookLastError }
  | { kind: 'slow'; hookId: string; hookName: string; event: string; sessionId: string; medianMs: number; limitMs: number; runs: number };

class HookTrack {
  readonly samples: LatencySamples;
  hookName: string;
  event: string;
  handler: HookRunRecord['handler'];
  runs = 0;
  failures = 0;
  timeouts = 0;
  cancelled = 0;
  lastError: HookLastError | undefined;
  lastRunAt = '';
  recent: number[] = [];
  /** Durations of the last blocking runs, for the slow check. */
  blocking: number[] = [];
  failStreak = 0;
  okStreak = 0;
  state: HookHealthState = 'healthy';

  constructor(record: HookRunRecord, maxSamples: number, random: () => number) {
    this.samples = new LatencySamples(maxSamples, random);
    this.hookName = record.hook_name;
    this.event = record.event;
    this.handler = record.handler;
  }
}

const pushBounded = (list: number[], value: number, max: number) => {
  list.push(value);
  if (list.length > max) list.splice(0, list.length - max);
};

export class HookHealth {
  private limits: HookHealthLimits;
  private readonly tracks = new Map<string, HookTrack>();
  private readonly random: () => number;

  constructor(limits: Partial<HookHealthLimits> = {}, random: () => number = Math.random) {
    this.limits = validLimits({ ...DEFAULT_HEALTH_LIMITS, ...limits });
    this.random = random;
  }

  /** Changes the limits (a setting changed); the next run is judged by them. */
  configure(limits: Partial<HookHealthLimits>): void {
    this.limits = validLimits({ ...this.limits, ...limits });
  }

  get currentLimits(): Readonly<HookHealthLimits> {
    return this.limits;
  }

  /** Folds one record in; other record types are ignored. Returns an alert when the hook just turned unhealthy. */
  record(record: AuditRecord): HookHealthAlert | undefined {
    if (record.type !== 'hook_run') return undefined;
    let track = this.tracks.get(record.hook_id);
    if (!track) this.tracks.set(record.hook_id, (track = new HookTrack(record, this.limits.maxSamples, this.random)));
    track.hookName = record.hook_name;
    track.runs++;
    track.lastRunAt = record.ts;
    if (record.status === 'cancelled') {
      // Cut short by the turn: its duration says nothing about the hook, and it neither failed nor succeeded.
      track.cancelled++;
      return undefined;
    }
    // A duration that is not a number would poison every percentile (and the views' schemas).
    if (Number.isFinite(record.duration_ms)) {
      const duration = Math.max(0, record.duration_ms);
      track.samples.add(duration);
      pushBounded(track.recent, duration, this.limits.recentRuns);
      if (!record.async) pushBounded(track.blocking, duration, this.limits.window);
    }
    if (record.status === 'error' || record.status === 'timeout') {
      if (record.status === 'error') track.failures++;
      else track.timeouts++;
      const message = record.error ?? record.reason ?? record.status;
      track.lastError = { status: record.status, message, at: record.ts, sessionId: record.session_id };
      track.failStreak++;
      track.okStreak = 0;
    } else {
      // A deliberate block (exit code 2) is the hook working.
      track.okStreak++;
      track.failStreak = 0;
    }
    return this.judge(record, track);
  }

  get(hookId: string): HookHealthSnapshot | undefined {
    const track = this.tracks.get(hookId);
    return track && this.snapshot(hookId, track);
  }

  /** Every hook that ran, in the order of its first run. */
  all(): HookHealthSnapshot[] {
    return [...this.tracks].map(([id, track]) => this.snapshot(id, track));
  }

  private judge(record: HookRunRecord, track: HookTrack): HookHealthAlert | undefined {
    const { failureStreak, slowHookMs, minRunsForSlow, slowRecoveryRatio } = this.limits;
    const median = track.blocking.length >= minRunsForSlow ? medianOf(track.blocking) : undefined;
    const slowNow = slowHookMs > 0 && median !== undefined && median > slowHookMs;
    if (track.state === 'failing' && track.okStreak >= failureStreak) track.state = 'healthy';
    const fastAgain = slowHookMs === 0 || median === undefined || median <= slowHookMs * slowRecoveryRatio;
    if (track.state === 'slow' && fastAgain) track.state = 'healthy';
    if (track.state !== 'healthy') return undefined;
    const base = { hookId: record.hook_id, hookName: track.hookName, event: track.event, sessionId: record.session_id };
    if (track.failStreak >= failureStreak && track.lastError) {
      track.state = 'failing';
      return { kind: 'failing', ...base, consecutive: track.failStreak, lastError: track.lastError };
    }
    if (slowNow) {
      track.state = 'slow';
      return { kind: 'slow', ...base, medianMs: median, limitMs: slowHookMs, runs: track.blocking.length };
    }
    return undefined;
  }

  private snapshot(hookId: string, track: HookTrack): HookHealthSnapshot {
    return {
      hookId,
      hookName: track.hookName,
      event: track.event,
      handler: track.handler,
      runs: track.runs,
      failures: track.failures,
      timeouts: track.timeouts,
      cancelled: track.cancelled,
      p50Ms: track.samples.percentile(50),
      p95Ms: track.samples.percentile(95),
      maxMs: track.samples.max,
      sampled: track.samples.sampled,
      lastError: track.lastError && { ...track.lastError },
      lastRunAt: track.lastRunAt,
      recentMs: [...track.recent],
      consecutiveFailures: track.failStreak,
      state: track.state,
    };
  }
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1];
}

function validLimits(limits: HookHealthLimits): HookHealthLimits {
  const positive: Array<keyof HookHealthLimits> = ['failureStreak', 'window', 'minRunsForSlow', 'recentRuns', 'maxSamples'];
  const fail = (key: keyof HookHealthLimits, expected: string) => new Error(`hook health: ${key} must be ${expected}, got ${limits[key]}`);
  for (const key of positive) if (!Number.isInteger(limits[key]) || limits[key] < 1) throw fail(key, 'a positive integer');
  if (!Number.isFinite(limits.slowHookMs) || limits.slowHookMs < 0) throw fail('slowHookMs', '0 or more');
  if (!(limits.slowRecoveryRatio > 0 && limits.slowRecoveryRatio <= 1)) throw fail('slowRecoveryRatio', 'in (0, 1]');
  return limits;
}
