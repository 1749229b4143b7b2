import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import type { AuditSink } from '../audit/records';
import { AsyncHookRuns } from './async-hook-runs';
import { NOT_RUN, RunLimiter } from './run-limiter';
import { Emitter, type Disposable } from '../events-emitter';
import { emptyResult, ResultAggregator, type DispatchResult, type HookRunSummary, type TaggedContext } from './dispatch-result';
import { EVENT_INFO, type HookEventName } from './events';
import { groupByOrder, pipe } from './hook-pipeline';
import { selects } from './hook-selection';
import { HookTimeouts, type TimeoutDefaults } from './hook-timeouts';
import { isPolicyJudge, PolicyRecheck } from './policy-recheck';
import type { RegistrySnapshot } from './registry';
import { runTimed } from './timed-hook-run';
import type { HandlerType, HookDefinition, HookHandler, HookOutcome, HookPayload } from './types';

export interface DispatcherOptions {
  snapshot: () => RegistrySnapshot;
  /** prompt and agent hooks need the host's model: without a handler they fail, never allow. */
  handlers: Record<Exclude<HandlerType, 'prompt' | 'agent' | 'mcp_tool'>, HookHandler> & Partial<Record<HandlerType, HookHandler>>;
  projectDir: string;
  /** Where an `if` rule's `~/` starts; default: this process's home folder (os.homedir()). */
  home?: string;
  audit?: AuditSink;
  timeouts?: Partial<TimeoutDefaults>;
}

export interface HookRunEvent {
  hook: HookDefinition;
  event: HookEventName;
  sessionId: string;
  outcome: HookOutcome;
  summary: HookRunSummary;
}

/** One pass over a dispatch's hooks: the main one, or the policy's re-check of a rewritten input. */
interface DispatchPass {
  dispatchId: string;
  options: DispatchOptions;
  aggregator: ResultAggregator;
  recheck: PolicyRecheck;
  /** Set on the re-check pass: the payload the dispatch began with. */
  original?: HookPayload;
}

export interface DispatchOptions {
  signal?: AbortSignal;
  /** Only these of the event's subscribers take part (approve_tool hooks for calls the gate allowed). */
  only?: (hook: HookDefinition) => boolean;
  /** Variables for this dispatch's command hooks only (SessionStart's CLAUDE_ENV_FILE). */
  env?: Readonly<Record<string, string>>;
  /** Hooks that judged this very call in an earlier dispatch: a `once` one among them judges it again. */
  rejudge?: ReadonlySet<string>;
}

/** Claude Code's SessionEnd budget, and how far a hook's configured timeout may raise it. */
const SESSION_END_BUDGET_MS = 1_500;
const SESSION_END_MAX_BUDGET_MS = 60_000;

/** Observer events the model fires once per tool call. */
const PER_CALL_OBSERVERS: ReadonlySet<HookEventName> = new Set(['ToolSkipped', 'Error']);
/** Their dispatches going at once; the others wait their turn. */
export const MAX_RUNNING_OBSERVERS = 16;
/** Their dispatches waiting; past this the event's hooks are not run (the event is still audited). */
export const MAX_WAITING_OBSERVERS = 256;

/**
 * Runs the hooks of one event: only subscribers are touched; in-process hooks first, then
 * process hooks, priority ascending; equal priority in parallel; a block stops later
 * groups; every outcome is kept and audited.
 */
export class HookDispatcher {
  private readonly timeouts: HookTimeouts;
  /** Observer dispatches and async runs still going, with the event and session they are for. */
  private readonly inFlightObservers = new Map<Promise<unknown>, { event: HookEventName; sessionId: string }>();
  private readonly observers = new RunLimiter(MAX_RUNNING_OBSERVERS, MAX_WAITING_OBSERVERS);
  private readonly asyncRuns: AsyncHookRuns;
  /** The ids of `once` hooks that already ran, by session. */
  private readonly ranOnce = new Map<string, Set<string>>();
  private readonly hookRan = new Emitter<HookRunEvent>();
  private readonly hookStarting = new Emitter<Omit<HookRunEvent, 'outcome' | 'summary'>>();
  private readonly rewakes = new Emitter<{ sessionId: string; hookName: string }>();

  constructor(private readonly options: DispatcherOptions) {
    this.timeouts = new HookTimeouts(options.timeouts);
    this.asyncRuns = new AsyncHookRuns({
      run: (hook, payload, signal, env) => this.runHook(awaited(hook), payload, signal, env),
      report: (hook, payload, dispatchId, outcome, summary) => this.report(hook, payload, payload, dispatchId, outcome, summary, true),
      rewake: (sessionId, hookName) => this.rewakes.fire({ sessionId, hookName }),
    });
  }

  /** Whether a subscribed hook applies to this payload (hook-selection). */
  selects(hook: HookDefinition, payload: HookPayload): boolean {
    return selects(hook, payload, { projectDir: this.options.projectDir, home: this.options.home ?? homedir() });
  }

  /** Where hook runs are recorded; the agent records its permission decisions there too. */
  get auditSink(): AuditSink | undefined {
    return this.options.audit;
  }

  /** Fires after every hook run: stats, first-failure notifications, live timelines. */
  onDidRunHook(listener: (run: HookRunEvent) => void): Disposable {
    return this.hookRan.on(listener);
  }

  /** Config `defaults` change on reload: the person's for every hook, the workspace's over them for its own. */
  setTimeouts(timeouts: Partial<TimeoutDefaults>, workspace: Partial<TimeoutDefaults> = {}): void {
    this.timeouts.set(timeouts, workspace);
  }

  /** Runs one hook on its own (test-fire from the Hook Manager or the CLI), audited as usual. */
  async runOne(
    hook: HookDefinition,
    payload: HookPayload,
    signal?: AbortSignal,
  ): Promise<{ outcome: HookOutcome; summary: HookRunSummary }> {
    const dispatchId = randomUUID();
    this.options.audit?.append({
      type: 'event',
      session_id: payload.session_id,
      dispatch_id: dispatchId,
      event: payload.hook_event_name,
      payload,
    });
    const outcome = await this.runHook(awaited(hook), payload, signal);
    const summary = new ResultAggregator(emptyResult(payload.hook_event_name, dispatchId)).add(
      hook,
      outcome,
      this.failsClosed(hook, payload.hook_event_name),
    );
    this.report(hook, payload, payload, dispatchId, outcome, summary);
    return { outcome, summary };
  }

  /** Fires when an `asyncRewake` hook exits 2: what it said waits for its session's next model turn (takeAsyncContexts). */
  onAsyncRewake(listener: (rewake: { sessionId: string; hookName: string }) => void): Disposable {
    return this.rewakes.on(listener);
  }

  /** Fires as each hook starts (stream-json `hook_started`). */
  onWillRunHook(listener: (run: Omit<HookRunEvent, 'outcome' | 'summary'>) => void): Disposable {
    return this.hookStarting.on(listener);
  }

  hasSubscribers(event: HookEventName, sessionId?: string, only?: (hook: HookDefinition) => boolean): boolean {
    const subscribers = this.subscribers(event, sessionId);
    return only ? subscribers.some(only) : subscribers.length > 0;
  }

  /** The active hooks of `event` for the session, before their matchers are tested. */
  subscribers(event: HookEventName, sessionId?: string): readonly HookDefinition[] {
    return this.options.snapshot().subscribers(event, sessionId);
  }

  /** Intercept and approve events: the caller waits for the merged decision. */
  async dispatch(payload: HookPayload, options: DispatchOptions = {}): Promise<DispatchResult> {
    const event = payload.hook_event_name;
    const snapshot = this.options.snapshot();
    const all = snapshot.subscribers(event, payload.session_id);
    const subscribers = options.only ? all.filter(options.only) : all;
    const dispatchId = randomUUID();
    this.options.audit?.append({ type: 'event', session_id: payload.session_id, dispatch_id: dispatchId, event, payload });
    const result = emptyResult(event, dispatchId);
    if (subscribers.length === 0) return result;
    const started = performance.now();
    const aggregator = new ResultAggregator(result);
    const recheck = new PolicyRecheck();
    const piped = await this.runGroups(subscribers, payload, { dispatchId, options, aggregator, recheck });
    // A rewrite from below the policy: the policy's hooks judge the input the call will run with.
    const rewritten = aggregator.stopsLaterGroups ? undefined : recheck.payloadToRecheck(payload, piped, result);
    if (rewritten) {
      aggregator.rejudging = true;
      // Async hooks decide nothing: they are not run again.
      const judges = subscribers.filter(isPolicyJudge);
      await this.runGroups(judges, rewritten, { dispatchId, options, aggregator, recheck, original: payload });
    }
    this.options.audit?.append({
      type: 'dispatch',
      session_id: payload.session_id,
      dispatch_id: dispatchId,
      event,
      decision: result.decision ?? (result.blocked ? 'block' : (result.permission?.behavior ?? 'none')),
      reason: result.blockReason ?? result.permission?.message,
      hooks_run: result.runs.filter((r) => r.status !== 'skipped').length,
      duration_ms: performance.now() - started,
    });
    return result;
  }

  /**
   * Runs hooks group by group and returns the payload the last group left. The re-check pass
   * runs only the hooks that have not judged the input they would see now.
   */
  private async runGroups(hooks: readonly HookDefinition[], start: HookPayload, pass: DispatchPass): Promise<HookPayload> {
    const { dispatchId, options, aggregator, recheck } = pass;
    const original = pass.original ?? start;
    const event = start.hook_event_name;
    const sessionId = start.session_id;
    let current = start;
    for (const group of groupByOrder(hooks)) {
      const input = current;
      // Each group is selected on the input it will see: a guard whose `if` names the file an
      // earlier group's rewrite points the call at runs on that call.
      const applies = group.filter((hook) => this.selects(hook, input) && !(pass.original && recheck.judgedAlready(hook, input)));
      if (aggregator.stopsLaterGroups) {
        for (const hook of applies) if (!this.ranOnceBefore(hook, sessionId)) aggregator.skip(hook, 'an earlier group blocked');
        continue;
      }
      // A `once` hook that ran in this dispatch judges the same call again.
      const runs = applies.filter(
        (hook) => (pass.original && recheck.ranHere(hook)) || options.rejudge?.has(hook.id) || this.firstRunOfOnce(hook, sessionId),
      );
      const started = this.hookStarting.size > 0;
      await Promise.all(
        runs.map((hook) => {
          if (started) this.hookStarting.fire({ hook, event, sessionId });
          return this.runHook(hook, input, options.signal, options.env).then((outcome) => {
            const summary = aggregator.add(hook, outcome, this.failsClosed(hook, event));
            recheck.ran(hook, input, outcome);
            // An async run is recorded when it ends (startAsync), never as a 0 ms success.
            if (!isAsync(hook)) this.report(hook, input, original, dispatchId, outcome, summary);
          });
        }),
      );
      // Sequential groups form a pipeline: a rewrite is what the next group sees.
      current = pipe(current, aggregator.result);
    }
    return current;
  }

  /** Observe events: fan out and return at once; the loop never waits (docs/design.md#observers-interceptors-approvers). */
  emit(payload: HookPayload): void {
    const event = payload.hook_event_name;
    if (this.options.snapshot().subscribers(event, payload.session_id).length === 0) {
      this.options.audit?.append({ type: 'event', session_id: payload.session_id, dispatch_id: randomUUID(), event, payload });
      return;
    }
    // The model makes these fire once per tool call (up to 1,000 a reply): a few dispatches go
    // at once, the others wait, and past a backlog their hooks are not run. Other observer
    // events (SessionEnd, TurnEnd, Notification) are never held back by them.
    const dispatching = PER_CALL_OBSERVERS.has(event) ? this.observers.run(() => this.dispatch(payload)) : this.dispatch(payload);
    const notRun = (why: string) => {
      this.options.audit?.append({ type: 'event', session_id: payload.session_id, dispatch_id: randomUUID(), event, payload });
      this.options.audit?.append({
        type: 'note',
        session_id: payload.session_id,
        level: 'warning',
        message: `${event} hooks not run: ${why}`,
      });
    };
    if (dispatching === undefined) {
      notRun(`${MAX_RUNNING_OBSERVERS} of its dispatches are running and ${MAX_WAITING_OBSERVERS} more are waiting`);
      return;
    }
    const running = dispatching
      .then((result) => result === NOT_RUN && notRun('the hooks stopped before their turn came'))
      .catch(() => undefined);
    this.inFlightObservers.set(running, { event, sessionId: payload.session_id });
    void running.finally(() => this.inFlightObservers.delete(running));
  }

  /** Observer dispatches still waiting for their turn never start: the host is stopping. */
  stopWaitingObservers(): void {
    this.observers.clear();
  }

  /** Waits (bounded) for observers still running, e.g. before the process exits. */
  async drain(timeoutMs: number, only?: { event: HookEventName; sessionId: string }): Promise<void> {
    const waiting = [...this.inFlightObservers]
      .filter(([, of]) => !only || (of.event === only.event && of.sessionId === only.sessionId))
      .map(([running]) => running);
    if (waiting.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(waiting), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  /**
   * The end of a session: every observer gets Claude Code's 1.5 s, and the session's own
   * SessionEnd hooks the budget their `timeout`s raise (sessionEndBudgetMs); nothing else does.
   */
  drainSessionEnd(sessionId: string): Promise<unknown> {
    return Promise.all([
      this.drain(SESSION_END_BUDGET_MS),
      this.drain(this.sessionEndBudgetMs(sessionId), { event: 'SessionEnd', sessionId }),
    ]);
  }

  /**
   * Stops the async runs of a session (or all): each process group gets SIGTERM, then SIGKILL,
   * and each run is recorded as cancelled with its real duration. Waits for those records.
   */
  cancelAsync(reason: string, sessionId?: string): Promise<void> {
    return this.asyncRuns.cancel(reason, sessionId);
  }

  /** Contexts from async hooks that finished since the last call, for the next model turn. */
  takeAsyncContexts(sessionId: string): TaggedContext[] {
    return this.asyncRuns.takeContexts(sessionId);
  }

  /** The `asyncRewake` hook whose words wait for the session's next model turn, if one does. */
  pendingRewake(sessionId: string): string | undefined {
    return this.asyncRuns.pendingRewake(sessionId);
  }

  /** A `once` hook is selected on its first run in a session only; every other hook always. */
  private firstRunOfOnce(hook: HookDefinition, sessionId: string): boolean {
    if (!hook.once) return true;
    if (this.ranOnceBefore(hook, sessionId)) return false;
    this.ranOnce.set(sessionId, (this.ranOnce.get(sessionId) ?? new Set<string>()).add(hook.id));
    return true;
  }

  private ranOnceBefore(hook: HookDefinition, sessionId: string): boolean {
    return hook.once === true && (this.ranOnce.get(sessionId)?.has(hook.id) ?? false);
  }

  /**
   * Drops what was kept for a session that ended: which of its `once` hooks ran, and contexts
   * of its async hooks that no next turn will take. A host serves session after session.
   */
  forgetSession(sessionId: string): void {
    this.ranOnce.delete(sessionId);
    this.asyncRuns.forget(sessionId);
  }

  /**
   * How long the end of a session waits for SessionEnd hooks (Claude Code): 1.5 s, raised to the
   * largest `timeout` one of them configures, up to 60 s.
   */
  sessionEndBudgetMs(sessionId: string): number {
    const configured = this.subscribers('SessionEnd', sessionId).map((hook) => hook.timeoutMs ?? 0);
    return Math.min(SESSION_END_MAX_BUDGET_MS, Math.max(SESSION_END_BUDGET_MS, ...configured));
  }

  timeoutFor(hook: HookDefinition): number {
    return this.timeouts.of(hook);
  }

  /** Claude Code fails open; approvals default to deny (docs/design.md#failure-policy). */
  private failsClosed(hook: HookDefinition, event: HookEventName): boolean {
    if (hook.onFailure) return hook.onFailure === 'block';
    // A judge model reads the call the model wrote: a call that derails it must not get through.
    if (event === 'PreToolUse' && (hook.spec.type === 'prompt' || hook.spec.type === 'agent')) return true;
    return EVENT_INFO[event].kind === 'approve';
  }

  private async runHook(
    hook: HookDefinition,
    payload: HookPayload,
    parent?: AbortSignal,
    env?: Readonly<Record<string, string>>,
  ): Promise<HookOutcome> {
    if (isAsync(hook)) return this.startAsync(hook, payload, env);
    if (parent?.aborted) return { status: 'cancelled', trace: { durationMs: 0 } };
    const handler = this.options.handlers[hook.spec.type];
    if (!handler) return { status: 'error', error: `no handler for ${hook.spec.type} hooks here`, trace: { durationMs: 0 } };
    return runTimed(handler, hook, payload, { timeoutMs: this.timeoutFor(hook), projectDir: this.options.projectDir, parent, env });
  }

  /** An `async: true` hook: started, not awaited (async-hook-runs.ts); recorded when it ends. */
  private startAsync(hook: HookDefinition, payload: HookPayload, env?: Readonly<Record<string, string>>): HookOutcome {
    const done = this.asyncRuns.start(hook, payload, env);
    this.inFlightObservers.set(done, { event: payload.hook_event_name, sessionId: payload.session_id });
    void done.finally(() => this.inFlightObservers.delete(done));
    return { status: 'success', effects: {}, trace: { durationMs: 0 } };
  }

  private report(
    hook: HookDefinition,
    input: HookPayload,
    original: HookPayload,
    dispatchId: string,
    outcome: HookOutcome,
    summary: HookRunSummary,
    async?: true,
  ): void {
    const trace = outcome.trace;
    this.options.audit?.append({
      type: 'hook_run',
      session_id: input.session_id,
      dispatch_id: dispatchId,
      event: input.hook_event_name,
      hook_id: hook.id,
      hook_name: hook.name,
      handler: hook.spec.type,
      source: hook.source.kind,
      status: outcome.status,
      decision: summary.decision,
      reason: summary.reason,
      input: input === original ? undefined : input,
      effects: outcome.status === 'success' || outcome.status === 'blocking-error' ? outcome.effects : undefined,
      stdout: trace.stdout,
      stderr: trace.stderr,
      exit_code: trace.exitCode,
      duration_ms: trace.durationMs,
      model: trace.model,
      tokens: trace.tokens,
      error: summary.error,
      async,
    });
    if (this.hookRan.size > 0) this.hookRan.fire({ hook, event: input.hook_event_name, sessionId: input.session_id, outcome, summary });
  }
}

function isAsync(hook: HookDefinition): boolean {
  return (hook.spec.type === 'command' || hook.spec.type === 'builtin') && hook.spec.async === true;
}

/** The same hook, run and awaited (test-fire, or the body of an async run). */
function awaited(hook: HookDefinition): HookDefinition {
  return hook.spec.type === 'command' || hook.spec.type === 'builtin' ? { ...hook, spec: { ...hook.spec, async: false } } : hook;
}
