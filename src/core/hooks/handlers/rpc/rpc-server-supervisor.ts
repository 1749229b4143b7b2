import { APPROVE_EVERY_CALL, resolveEventName, type HookEventName } from '../../events';
import type { HookPayload, ServerDefinition } from '../../types';
import {
  HookInterceptRequest,
  HookObserveNotification,
  InitializeRequest,
  InitializedNotification,
  initializeResultSchema,
  type InitializeParams,
} from './rpc-protocol';
import { RpcServerProcess, type RpcExit } from './rpc-server-process';
import type { RpcBackoff, RpcCallFailure, RpcCallResult, RpcCapabilities, RpcLogger, RpcServerState, RpcServerStatus } from './rpc-types';
import { errorMessage } from '../../../error-message';

export interface RpcSupervisorContext {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  log: RpcLogger;
  backoff: RpcBackoff;
  handshakeTimeoutMs: number;
  /** How long `shutdown` + `exit` may take before the group is killed. */
  stopGraceMs: number;
  initialize: Omit<InitializeParams, 'projectDir'>;
  onChange: () => void;
  /** Each successful handshake, before the server is marked ready. */
  onHandshake?: (caps: RpcCapabilities) => void;
  /** Checked before every start and restart: a reason not to start, if any. */
  verify?: () => string | undefined;
}

function lastLine(text: string): string | undefined {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.at(-1);
}

/** Resolves handshake event names; names that are not events are collected, not fatal. A list left out stays so. */
function resolveEvents(names: string[] | undefined, unknown: string[]): HookEventName[] | undefined {
  if (!names) return undefined;
  const events = new Set<HookEventName>();
  for (const name of names) {
    const event = resolveEventName(name);
    if (event) events.add(event);
    else unknown.push(name);
  }
  return [...events];
}

/**
 * Keeps one server running: handshake, restart with exponential backoff after unexpected
 * exits, give up after too many crashes in the window. Requests wait for readiness within
 * their own deadline.
 */
export class RpcServerSupervisor {
  private state: RpcServerState = 'stopped';
  private lastError: string | undefined;
  private caps: RpcCapabilities | undefined;
  private process: RpcServerProcess | undefined;
  /** The newest incarnation, alive or not: its stderr explains the last failure. */
  private latest: RpcServerProcess | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private crashTimes: number[] = [];
  private crashes = 0;
  private readonly stateWaiters = new Set<() => void>();

  constructor(
    readonly server: ServerDefinition,
    private readonly context: RpcSupervisorContext,
  ) {}

  private get label(): string {
    return `rpc server "${this.server.name}"`;
  }

  status(): RpcServerStatus {
    return { state: this.state, lastError: this.lastError, pid: this.process?.alive ? this.process.pid : undefined, crashes: this.crashes };
  }

  /**
   * The last successful handshake's answer. Kept while the server restarts or has failed,
   * so its hooks stay registered and fail by their own policy instead of silently vanishing.
   */
  capabilities(): RpcCapabilities | undefined {
    return this.caps;
  }

  stderrTail(): string | undefined {
    return this.latest?.stderrTail();
  }

  /** Starts (or retries a failed server); a running one is left alone. */
  start(): void {
    if (this.state !== 'stopped' && this.state !== 'failed') return;
    this.crashTimes = [];
    this.lastError = undefined;
    this.launch('starting');
  }

  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const running = this.process;
    this.process = undefined;
    this.caps = undefined;
    this.setState('stopped');
    await running?.stop(this.context.stopGraceMs);
  }

  /** Synchronous last resort when the host itself is exiting. */
  killNow(): void {
    this.process?.terminate(`${this.label} was killed because the host exited`);
  }

  notify(event: HookEventName, payload: HookPayload): string | undefined {
    const running = this.process;
    if (this.state !== 'ready' || !running) return `${this.label} is ${this.describeState()}; ${event} notification dropped`;
    return running.notify((connection) => connection.sendNotification(HookObserveNotification, { event, payload }));
  }

  /** Waits for the handshake within the deadline; a hook registered before it needs its answer. */
  async whenReady(limits: { timeoutMs: number; signal?: AbortSignal }): Promise<{ status: 'ok' } | RpcCallFailure> {
    const ready = await this.waitReady(performance.now() + limits.timeoutMs, limits.signal);
    return ready.status === 'ok' ? { status: 'ok' } : ready;
  }

  async intercept(event: HookEventName, payload: HookPayload, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<RpcCallResult> {
    const deadline = performance.now() + limits.timeoutMs;
    const ready = await this.waitReady(deadline, limits.signal);
    if (ready.status !== 'ok') return ready;
    const remaining = Math.max(1, Math.round(deadline - performance.now()));
    return ready.process.call(HookInterceptRequest, { event, payload }, { timeoutMs: remaining, signal: limits.signal });
  }

  private describeState(): string {
    return this.lastError ? `${this.state} (${this.lastError})` : this.state;
  }

  private async waitReady(deadline: number, signal?: AbortSignal): Promise<{ status: 'ok'; process: RpcServerProcess } | RpcCallFailure> {
    for (;;) {
      if (signal?.aborted) return { status: 'cancelled' };
      if (this.state === 'ready' && this.process) return { status: 'ok', process: this.process };
      if (this.state === 'failed' || this.state === 'stopped')
        return { status: 'error', error: `${this.label} is ${this.describeState()}` };
      const remaining = deadline - performance.now();
      if (remaining <= 0) return { status: 'timeout', error: `${this.label} was not ready in time: ${this.describeState()}` };
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          this.stateWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, remaining);
        signal?.addEventListener('abort', done, { once: true });
        this.stateWaiters.add(done);
      });
    }
  }

  private setState(state: RpcServerState): void {
    this.state = state;
    for (const wake of [...this.stateWaiters]) wake();
    this.context.onChange();
  }

  private launch(state: 'starting' | 'restarting'): void {
    this.restartTimer = undefined;
    const refused = this.context.verify?.();
    if (refused !== undefined) {
      this.fail(`${this.label} was not ${state === 'starting' ? 'started' : 'restarted'}: ${refused}`);
      return;
    }
    let running: RpcServerProcess;
    try {
      running = new RpcServerProcess({
        server: this.server,
        projectDir: this.context.projectDir,
        env: this.context.env,
        log: this.context.log,
      });
    } catch (error) {
      this.fail(`${this.label} could not start: ${errorMessage(error)}`);
      return;
    }
    this.process = running;
    this.latest = running;
    this.setState(state);
    void this.supervise(running);
  }

  private async supervise(running: RpcServerProcess): Promise<void> {
    const handshake = await this.handshake(running);
    if (this.process !== running) return;
    if (handshake.fatal) {
      this.process = undefined;
      await running.stop(this.context.stopGraceMs);
      this.fail(handshake.fatal);
      return;
    }
    if (handshake.caps) {
      this.caps = handshake.caps;
      this.lastError = undefined;
      const { observe, intercept } = handshake.caps;
      const list = (events?: HookEventName[]) => (events ? `[${events.join(', ')}]` : 'not announced');
      this.context.log('info', `${this.label} ready (pid ${running.pid}): observe ${list(observe)}, intercept ${list(intercept)}`);
      this.context.onHandshake?.(handshake.caps);
      this.setState('ready');
    }
    const exit = await running.exited;
    if (this.process !== running) return;
    this.process = undefined;
    this.onCrash(exit, running.stderrTail());
  }

  /** fatal: retrying cannot help (the server refused, answered nonsense, or cannot start). */
  private async handshake(running: RpcServerProcess): Promise<{ caps?: RpcCapabilities; fatal?: string }> {
    const params: InitializeParams = { ...this.context.initialize, projectDir: this.context.projectDir };
    const answer = await running.call(InitializeRequest, params, { timeoutMs: this.context.handshakeTimeoutMs });
    if (answer.status === 'timeout') {
      running.terminate(answer.error);
      return {};
    }
    if (answer.status !== 'ok') {
      const exit = running.alive ? undefined : await running.exited;
      if (exit?.spawnFailed) return { fatal: exit.reason };
      return exit ? {} : { fatal: answer.status === 'error' ? answer.error : `${this.label} handshake cancelled` };
    }
    const parsed = initializeResultSchema.safeParse(answer.value);
    if (!parsed.success) {
      return {
        fatal: `${this.label} answered initialize with an invalid result: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      };
    }
    const unknownEvents: string[] = [];
    const caps: RpcCapabilities = {
      serverName: parsed.data.name,
      serverVersion: parsed.data.version,
      observe: resolveEvents(parsed.data.observe, unknownEvents),
      intercept: resolveEvents(parsed.data.intercept, unknownEvents),
      unknownEvents,
      ...(parsed.data.intercept?.includes(APPROVE_EVERY_CALL) ? { approveEveryCall: true } : {}),
    };
    if (unknownEvents.length > 0) this.context.log('warn', `${this.label} declared unknown events: ${unknownEvents.join(', ')}`);
    const sent = running.notify((connection) => connection.sendNotification(InitializedNotification));
    return sent === undefined ? { caps } : {};
  }

  private onCrash(exit: RpcExit, stderr: string): void {
    const hint = lastLine(stderr);
    this.lastError = hint ? `${exit.reason}; stderr: ${hint}` : exit.reason;
    this.crashes++;
    const now = performance.now();
    this.crashTimes = [...this.crashTimes.filter((t) => now - t < this.context.backoff.windowMs), now];
    const { initialMs, maxMs, maxCrashes, windowMs } = this.context.backoff;
    if (this.crashTimes.length >= maxCrashes) {
      this.fail(`${this.lastError} (gave up after ${this.crashTimes.length} crashes within ${windowMs / 1000} s)`);
      return;
    }
    const delay = Math.min(maxMs, initialMs * 2 ** (this.crashTimes.length - 1));
    this.context.log('warn', `${this.lastError}; restarting in ${delay} ms`);
    this.setState('restarting');
    this.restartTimer = setTimeout(() => this.launch('restarting'), delay);
  }

  private fail(error: string): void {
    this.lastError = error;
    this.context.log('error', `${error}; the server's hooks fail until it is restarted`);
    this.setState('failed');
  }
}
