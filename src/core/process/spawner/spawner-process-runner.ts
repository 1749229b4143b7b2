import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { Disposable } from '../../events-emitter';
import { timerDelay } from '../../timer-delay';
import { isSecretEnvEntry } from '../../secret-env-names';
import { childProcessesOf } from '../child-processes';
import { killMarkedProcesses, markerEntry, RUN_MARKER_VARIABLE } from '../marked-processes';
import type { ProcessRunner } from '../process-runner';
import { noOutputResult, runProcess, type ProcessResult, type RunProcessOptions } from '../run-process';
import { spawnerToHostSchema, type HostToSpawner, type SpawnerToHost, type SpawnRequestOptions } from './spawner-protocol';

export interface SpawnerProcessRunnerOptions {
  /** The built helper script (dist/process-spawner.js). */
  modulePath: string;
  /** Node flags for the helper (a TypeScript loader in tests); never the host's own, which may hold --inspect. */
  execArgv?: string[];
  /** The helper's arguments: `--bash-shells` prestarts bash for the Bash tool (see PrestartedShells). */
  args?: string[];
  log?: (level: 'info' | 'warn', message: string) => void;
}

interface PendingRun {
  options: RunProcessOptions;
  resolve(result: ProcessResult): void;
  /** Set once the helper has spawned the process (its process group id). */
  pid?: number;
  started: number;
  detach(): void;
}

/** After this many helper deaths without a single finished run, processes are spawned directly. */
const MAX_CONSECUTIVE_FAILURES = 3;
const STDERR_TAIL_BYTES = 2048;
// Generous: a helper starved of CPU on a loaded machine still stops its own processes first.
const HELPER_EXIT_GRACE_MS = 5000;
/** Should its streams stay open after it exited (they should not), its end is handled anyway. */
const HELPER_CLOSE_WAIT_MS = 2000;
/** A helper that served this long before dying was not failing to start: its death resets the count. */
const HEALTHY_UPTIME_MS = 30_000;
/**
 * How long past a run's timeout (and its kill grace), or after its abort, the host waits for
 * the helper's answer. A helper that has not answered by then (stopped by what it ran, or
 * starved) is replaced, and the run is ended here.
 */
const ANSWER_GRACE_MS = 3000;
/** Debugger and loader flags of the host are not the helper's. */
const HOST_ONLY_VARIABLES = ['NODE_OPTIONS', 'VSCODE_INSPECTOR_OPTIONS'];

/**
 * Runs processes through one long-lived spawner helper (see spawner-main.ts), so the host
 * never forks itself. Until the helper is ready, and whenever it cannot run, processes are
 * spawned directly: a hook always runs. A helper that dies takes its running processes
 * with it (their groups are killed) and is started again on the next run.
 */
export class SpawnerProcessRunner implements ProcessRunner, Disposable {
  private helper: ChildProcess | undefined;
  private ready = false;
  private readyAt = 0;
  private failures = 0;
  private disposed = false;
  private nextId = 1;
  private stderrTail = '';
  private readonly pending = new Map<number, PendingRun>();
  /** Helpers this side killed for not answering: their end is no failure to start. */
  private readonly replaced = new WeakSet<ChildProcess>();

  constructor(private readonly options: SpawnerProcessRunnerOptions) {}

  /** Starts the helper ahead of the first run, so that run does not pay for its start. */
  warmUp(): void {
    this.ensureHelper();
  }

  /** Whether runs currently go through the helper (false: spawned directly). */
  get viaHelper(): boolean {
    return this.helper !== undefined && this.ready;
  }

  /** Runs in flight through the helper. */
  get load(): number {
    return this.pending.size;
  }

  /** The helper's pid while it runs (for diagnostics). */
  get helperPid(): number | undefined {
    return this.helper?.pid;
  }

  run(options: RunProcessOptions): Promise<ProcessResult> {
    const helper = this.ensureHelper();
    if (!helper || !this.ready || !helper.connected || options.signal?.aborted) return runProcess(options);
    return new Promise<ProcessResult>((resolve) => {
      const id = this.nextId++;
      const answerGraceMs = (options.killGraceMs ?? 0) + ANSWER_GRACE_MS;
      const deadlines: NodeJS.Timeout[] = [];
      const onAbort = () => {
        this.post({ type: 'abort', id });
        deadlines.push(setTimeout(() => this.endUnanswered(id, { aborted: true }), answerGraceMs));
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (options.timeoutMs !== undefined)
        deadlines.push(setTimeout(() => this.endUnanswered(id, { timedOut: true }), timerDelay(options.timeoutMs + answerGraceMs)));
      this.pending.set(id, {
        options,
        resolve,
        started: performance.now(),
        detach: () => {
          options.signal?.removeEventListener('abort', onAbort);
          for (const deadline of deadlines) clearTimeout(deadline);
        },
      });
      if (this.pending.size === 1) this.keepHostAlive(true);
      // A request that never reached the helper runs here: a hook is never skipped.
      helper.send({ type: 'run', id, options: requestOptions(options) } satisfies HostToSpawner, (error) => {
        if (error) this.runDirectly(id);
      });
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const helper = this.helper;
    this.helper = undefined;
    const groups = [...this.pending.values()].flatMap((run) => (run.pid === undefined ? [] : [run.pid]));
    // The helper stops what it runs once the channel closes; its answers can no longer arrive.
    this.settleAll((run) => noOutputResult(performance.now() - run.started, { aborted: true }));
    if (!helper) return;
    if (helper.connected) helper.disconnect();
    // Should the helper not have finished by then, nothing it started survives it: not the
    // groups it reported, nor those whose report had not been read yet (its direct children).
    const deadline = setTimeout(() => {
      const children =
        helper.pid === undefined || helper.exitCode !== null || helper.signalCode !== null ? [] : childProcessesOf(helper.pid);
      for (const pid of new Set([...groups, ...children])) killGroup(pid);
      helper.kill('SIGKILL');
    }, HELPER_EXIT_GRACE_MS).unref();
    // A helper that left as it does once its host is gone (exit 0) stopped its runs first: their
    // numbers are free by now and may already name another program's group, which must not be
    // signalled. One that died otherwise left them running: their groups are killed at once.
    const exited = (code: number | null) => {
      clearTimeout(deadline);
      if (code !== 0) for (const pid of groups) killGroup(pid);
    };
    if (helper.exitCode !== null || helper.signalCode !== null) exited(helper.exitCode);
    else helper.once('exit', exited);
  }

  private ensureHelper(): ChildProcess | undefined {
    if (this.helper || this.disposed || this.failures >= MAX_CONSECUTIVE_FAILURES) return this.helper;
    if (!existsSync(this.options.modulePath)) {
      this.failures = MAX_CONSECUTIVE_FAILURES;
      this.options.log?.('info', `process spawner ${this.options.modulePath} is not built; hook processes are spawned directly`);
      return undefined;
    }
    const helper = fork(this.options.modulePath, this.options.args ?? [], {
      execArgv: this.options.execArgv ?? [],
      // Inside VS Code, process.execPath is Electron: ELECTRON_RUN_AS_NODE makes it behave as Node.
      env: { ...helperEnvironment(process.env), ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      // A session of its own: a terminal's Ctrl-C, Ctrl-\ or hangup signals the host's whole
      // foreground group, and would end the helper at once, its runs unstopped (the host decides
      // what stops; the helper leaves once the host is gone).
      detached: process.platform !== 'win32',
    });
    this.helper = helper;
    this.ready = false;
    this.stderrTail = '';
    helper.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    (helper.stderr as Socket | null)?.unref();
    helper.on('message', (raw: unknown) => this.onMessage(raw));
    helper.on('error', (error) => this.onHelperGone(helper, error.message));
    // Its end is handled at 'close', once every message it sent has been read: at 'exit' a
    // `started` report may still wait in the channel, and a run that looks unstarted would be
    // run a second time while the first one's process group lives on.
    let exitedWhy: string | undefined;
    let closeFallback: NodeJS.Timeout | undefined;
    helper.on('exit', (code, signal) => {
      exitedWhy = signal ? `killed by ${signal}` : `exit code ${code}`;
      closeFallback = setTimeout(() => this.onHelperGone(helper, exitedWhy!), HELPER_CLOSE_WAIT_MS).unref();
    });
    helper.on('close', () => {
      clearTimeout(closeFallback);
      this.onHelperGone(helper, exitedWhy ?? 'its channel closed');
    });
    this.keepHostAlive(false);
    return helper;
  }

  private onMessage(raw: unknown): void {
    const parsed = spawnerToHostSchema.safeParse(raw);
    if (!parsed.success) return;
    const message: SpawnerToHost = parsed.data;
    if (message.type === 'ready') {
      this.ready = true;
      this.readyAt = performance.now();
      return;
    }
    const run = this.pending.get(message.id);
    if (!run) return;
    if (message.type === 'started') {
      run.pid = message.pid;
      run.options.onSpawn?.(message.pid);
      return;
    }
    this.failures = 0;
    this.settle(message.id, run, { ...message.result, signal: message.result.signal as NodeJS.Signals | null });
  }

  private onHelperGone(helper: ChildProcess, why: string): void {
    if (helper !== this.helper) return;
    if (this.ready && performance.now() - this.readyAt >= HEALTHY_UPTIME_MS) this.failures = 0;
    this.helper = undefined;
    this.ready = false;
    if (!this.replaced.has(helper)) this.failures++;
    const stderr = this.stderrTail.trim();
    this.options.log?.(
      'warn',
      `process spawner stopped (${why})${stderr ? `: ${stderr}` : ''}; ${this.failures >= MAX_CONSECUTIVE_FAILURES ? 'hook processes are spawned directly from now on' : 'it restarts on the next hook'}`,
    );
    for (const [id, run] of [...this.pending]) {
      if (run.pid === undefined) {
        this.runDirectly(id);
        continue;
      }
      // Orphaned hook processes would otherwise run on unobserved.
      killGroup(run.pid);
      this.settle(
        id,
        run,
        noOutputResult(performance.now() - run.started, {
          spawnError: `the process spawner stopped while the process ran (${why}); the process was killed`,
        }),
      );
    }
  }

  /**
   * A run the helper did not answer in time: what it started is killed (its group, what
   * carries its marker, and the helper's children, reported or not), the run ends as timed
   * out or aborted, and the helper is replaced (the next run starts a new one).
   */
  private endUnanswered(id: number, outcome: Pick<ProcessResult, 'timedOut'> | Pick<ProcessResult, 'aborted'>): void {
    const run = this.pending.get(id);
    const helper = this.helper;
    if (!run) return;
    const children = helper?.pid === undefined ? [] : childProcessesOf(helper.pid);
    for (const pid of new Set([...(run.pid === undefined ? [] : [run.pid]), ...children])) killGroup(pid);
    if (run.options.runMarker !== undefined) killMarkedProcesses(markerEntry(RUN_MARKER_VARIABLE, run.options.runMarker));
    this.settle(id, run, noOutputResult(performance.now() - run.started, outcome));
    if (!helper) return;
    this.options.log?.('warn', 'the process spawner did not answer in time; the process was killed and the spawner is replaced');
    this.replaced.add(helper);
    helper.kill('SIGKILL');
  }

  /** A run the helper never started (its channel failed, or it died first) runs in this process instead. */
  private runDirectly(id: number): void {
    const run = this.pending.get(id);
    if (!run || run.pid !== undefined) return;
    this.pending.delete(id);
    run.detach();
    if (this.pending.size === 0) this.keepHostAlive(false);
    void runProcess(run.options).then(run.resolve);
  }

  private settle(id: number, run: PendingRun, result: ProcessResult): void {
    this.pending.delete(id);
    run.detach();
    if (this.pending.size === 0) this.keepHostAlive(false);
    run.resolve(result);
  }

  private settleAll(result: (run: PendingRun) => ProcessResult): void {
    for (const [id, run] of [...this.pending]) this.settle(id, run, result(run));
  }

  private post(message: HostToSpawner): void {
    // A closed channel surfaces as the helper's exit, which settles every pending run.
    if (this.helper?.connected) this.helper.send(message, () => undefined);
  }

  /** An idle helper must not keep the host (a CLI run) alive; a busy one must. */
  private keepHostAlive(busy: boolean): void {
    const helper = this.helper;
    if (!helper) return;
    if (busy) {
      helper.ref();
      helper.channel?.ref();
    } else {
      helper.unref();
      helper.channel?.unref();
    }
  }
}

/**
 * The helper's own environment: the host's, without what only the host may use, nor any
 * credential. Each run brings its environment; the helper's is readable by every process it
 * starts (/proc/PPID/environ), the model's commands included.
 */
function helperEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([name, value]) => !HOST_ONLY_VARIABLES.includes(name) && !isSecretEnvEntry(name, value)),
  );
}

function requestOptions(options: RunProcessOptions): SpawnRequestOptions {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
  const { command, args, shell, cwd, input, timeoutMs, maxOutputBytes, killGraceMs, runMarker } = options;
  return { command, args, shell, cwd, env, input, timeoutMs, maxOutputBytes, killGraceMs, runMarker };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
