import { randomUUID } from 'node:crypto';
import { errorMessage } from '../error-message';
import { emptyResult, ResultAggregator, type HookRunSummary, type TaggedContext } from './dispatch-result';
import { NOT_RUN, RunLimiter } from './run-limiter';
import type { HookDefinition, HookOutcome, HookPayload } from './types';

/** How long `cancel` waits for cancelled runs to report before recording them itself. */
const CANCEL_WAIT_MS = 3_000;
/**
 * Async runs going at once, over all sessions: the model picks how many tool calls a reply
 * holds (up to 1,000), and each call may start one; the others wait their turn.
 */
export const MAX_RUNNING_ASYNC_HOOKS = 16;
/** Runs waiting for a slot; past this an async run is not started, and recorded as an error. */
export const MAX_WAITING_ASYNC_HOOKS = 256;

/** An `async: true` run in flight: its session, how to stop it, and whether it was recorded. */
interface AsyncRun {
  sessionId: string;
  controller: AbortController;
  done: Promise<void>;
  /** Records the run as cancelled now (it did not report in time); later outcomes are dropped. */
  reportCancelled: () => void;
}

export interface AsyncHookRunsDeps {
  /** Runs the hook to its end, as an awaited one, under `signal`. */
  run(hook: HookDefinition, payload: HookPayload, signal: AbortSignal, env?: Readonly<Record<string, string>>): Promise<HookOutcome>;
  /** Records a run's outcome, once, when it ends or is cancelled. */
  report(hook: HookDefinition, payload: HookPayload, dispatchId: string, outcome: HookOutcome, summary: HookRunSummary): void;
  /** An `asyncRewake` hook exited 2: its session's agent is to be woken with what it said. */
  rewake(sessionId: string, hookName: string): void;
}

/**
 * Claude Code's `async: true` hooks (and `asyncRewake`): started, not awaited; what they add
 * reaches the session's next model turn. Each is recorded when it ends, or as cancelled when
 * its session stops it.
 */
export class AsyncHookRuns {
  private readonly runs = new Set<AsyncRun>();
  private readonly contexts = new Map<string, TaggedContext[]>();
  /** Per session, the last `asyncRewake` hook whose words wait among the contexts. */
  private readonly rewakes = new Map<string, string>();
  private readonly limiter = new RunLimiter(MAX_RUNNING_ASYNC_HOOKS, MAX_WAITING_ASYNC_HOOKS);

  constructor(private readonly deps: AsyncHookRunsDeps) {}

  /** Starts `hook`; the promise settles once it has been recorded. */
  start(hook: HookDefinition, payload: HookPayload, env?: Readonly<Record<string, string>>): Promise<void> {
    const dispatchId = randomUUID();
    const controller = new AbortController();
    const started = performance.now();
    const finish = (outcome: HookOutcome) => {
      if (!this.runs.delete(run)) return;
      const aggregator = new ResultAggregator(emptyResult(payload.hook_event_name, dispatchId));
      const summary = aggregator.add(hook, outcome, false);
      const contexts = aggregator.result.contexts.concat(
        aggregator.result.systemMessages.map((content) => ({ hookName: hook.name, event: hook.event, content })),
      );
      // asyncRewake: exit 2 brings the hook's stderr (or stdout) to the model at its next step.
      // Also where exit 2 blocks nothing (SessionStart, Notification, ...): there it is a success with a warning.
      const exit2 = outcome.status === 'blocking-error' || (outcome.status === 'success' && outcome.trace.exitCode === 2);
      const rewakes = hook.spec.type === 'command' && hook.spec.asyncRewake === true && exit2;
      if (rewakes) {
        const why = outcome.status === 'blocking-error' ? outcome.reason : outcome.trace.stderr?.trim();
        contexts.push({ hookName: hook.name, event: hook.event, content: why || outcome.trace.stdout?.trim() || 'exit code 2' });
      }
      if (contexts.length > 0 && !controller.signal.aborted) {
        this.contexts.set(payload.session_id, [...(this.contexts.get(payload.session_id) ?? []), ...contexts]);
        if (rewakes) {
          this.rewakes.set(payload.session_id, hook.name);
          this.deps.rewake(payload.session_id, hook.name);
        }
      }
      // Stopped because its session ended: the record says so rather than a bare "cancelled".
      if (controller.signal.aborted && outcome.status === 'cancelled')
        summary.error = `cancelled: ${errorMessage(controller.signal.reason)}`;
      this.deps.report(hook, payload, dispatchId, outcome, summary);
    };
    const run: AsyncRun = {
      sessionId: payload.session_id,
      controller,
      done: Promise.resolve(),
      reportCancelled: () => finish({ status: 'cancelled', trace: { durationMs: performance.now() - started } }),
    };
    this.runs.add(run);
    // A run still waiting for a slot when its session ends never starts: it is recorded as cancelled at once.
    const running = this.limiter.run(() => this.deps.run(hook, payload, controller.signal, env), controller.signal);
    const refused: HookOutcome = {
      status: 'error',
      error: `not run: ${MAX_RUNNING_ASYNC_HOOKS} async hook runs are running and ${MAX_WAITING_ASYNC_HOOKS} more are waiting`,
      trace: { durationMs: 0 },
    };
    run.done = (running ?? Promise.resolve(refused))
      .then((outcome): HookOutcome =>
        outcome === NOT_RUN ? { status: 'cancelled', trace: { durationMs: performance.now() - started } } : outcome,
      )
      .then(finish);
    return run.done;
  }

  /**
   * Stops the runs of a session (or all): each process group gets SIGTERM, then SIGKILL, and
   * each run is recorded as cancelled with its real duration. Waits for those records.
   */
  async cancel(reason: string, sessionId?: string): Promise<void> {
    const runs = [...this.runs].filter((run) => sessionId === undefined || run.sessionId === sessionId);
    if (runs.length === 0) return;
    for (const run of runs) run.controller.abort(new Error(reason));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(runs.map((r) => r.done)), new Promise((r) => (timer = setTimeout(r, CANCEL_WAIT_MS)))]);
    clearTimeout(timer);
    for (const run of runs) if (this.runs.has(run)) run.reportCancelled();
  }

  /** Contexts from runs that finished since the last call, for the next model turn. */
  takeContexts(sessionId: string): TaggedContext[] {
    const list = this.contexts.get(sessionId) ?? [];
    this.contexts.delete(sessionId);
    this.rewakes.delete(sessionId);
    return list;
  }

  /** The `asyncRewake` hook whose words wait for the session's next model turn, if one does. */
  pendingRewake(sessionId: string): string | undefined {
    return this.rewakes.get(sessionId);
  }

  /** Drops the contexts of a session that ended: no next turn will take them. */
  forget(sessionId: string): void {
    this.contexts.delete(sessionId);
    this.rewakes.delete(sessionId);
  }
}
