import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { timerDelay } from '../timer-delay';
import type { PrestartedShells } from './prestarted-shells';
import { armKill, killAtExit } from './pending-kills';
import { shellScriptArguments } from './shell-arguments';
import { errorMessage } from '../error-message';
import {
  killMarkedProcesses,
  killSessionProcesses,
  markedProcesses,
  markerEntry,
  RUN_MARKER_VARIABLE,
  sessionProcesses,
  signalMarkedProcesses,
  signalSessionProcesses,
  withRunMarker,
} from './marked-processes';

export interface RunProcessOptions {
  command: string;
  /** Exec form: passed verbatim. With `shell`, they become the script's `$1`, `$2`, ... */
  args?: string[];
  /** true: run `command` through /bin/sh -c; a string: that shell (e.g. 'bash') with -c. */
  shell?: boolean | string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, then stdin is closed; EPIPE is ignored (the child may not read). */
  input?: string;
  timeoutMs?: number;
  /** Abort kills the whole process group (and what carries `runMarker`). */
  signal?: AbortSignal;
  /** Per stream, default 1 MiB; beyond it output is drained and discarded (bounded memory). */
  maxOutputBytes?: number;
  /** SIGTERM to the group, then SIGKILL after this many ms, default 500. */
  killGraceMs?: number;
  /** Told the child's pid (also its process group id) once it has started. */
  onSpawn?: (pid: number) => void;
  /**
   * The value of RUN_MARKER_VARIABLE in this run's processes (not part of `env`): on timeout
   * or abort, what left the group (a job of its own, `setsid`) is killed too.
   */
  runMarker?: string;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  spawnError?: string;
  durationMs: number;
}

/** The result of a process that produced nothing: never started, aborted first, or lost. */
export function noOutputResult(durationMs: number, extra: Partial<ProcessResult> = {}): ProcessResult {
  return {
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    timedOut: false,
    aborted: false,
    durationMs,
    ...extra,
  };
}

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 500;
/**
 * After the child exits, how long to wait for its pipes to close. A backgrounded
 * grandchild can hold them open forever; its output after this point is not ours.
 */
const PIPE_DRAIN_MS = 200;

/** Keeps the first `limit` bytes of a stream and counts (but drops) the rest. */
class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (room <= 0) {
      if (chunk.length > 0) this.truncated = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept.length < chunk.length) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks, this.size).toString('utf8');
  }
}

function spawnTarget(options: RunProcessOptions): { file: string; args: string[] } {
  const args = options.args ?? [];
  if (options.shell) {
    const shell = typeof options.shell === 'string' ? options.shell : '/bin/sh';
    // `sh -c script name arg1 ...`: the name fills $0 so args land in $1...
    return { file: shell, args: [...shellScriptArguments(shell, options.command), shell, ...args] };
  }
  return { file: options.command, args };
}

function spawnFresh(options: RunProcessOptions): ChildProcess {
  const target = spawnTarget(options);
  return spawn(target.file, target.args, {
    cwd: options.cwd,
    env: withRunMarker(options),
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
}

/** Sends `signal` to the child's whole process group (falls back to the child alone). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // No such group (already gone) or a platform without process groups.
    try {
      child.kill(signal);
    } catch {
      // Already exited.
    }
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function describeSpawnError(error: NodeJS.ErrnoException, options: RunProcessOptions): string {
  // ENOENT for a missing cwd is reported by Node as a missing executable; say what it is.
  if (error.code === 'ENOENT' && !existsSync(options.cwd)) return `working directory does not exist: ${options.cwd}`;
  return error.message;
}

/**
 * Runs a process in its own session and process group, feeding `input` on stdin and collecting
 * capped stdout/stderr. Never throws: spawn failures come back as `spawnError`. On timeout or
 * abort the whole group and session, and every process that carries the run's marker, gets SIGTERM,
 * then SIGKILL after the grace period, so grandchildren die too, also those that left the
 * group. With `shells`, a waiting shell runs the command when one fits.
 */
export function runProcess(options: RunProcessOptions, shells?: PrestartedShells): Promise<ProcessResult> {
  const started = performance.now();
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const stdout = new CappedBuffer(maxBytes);
  const stderr = new CappedBuffer(maxBytes);

  const emptyResult = (extra: Partial<ProcessResult>): ProcessResult => noOutputResult(performance.now() - started, extra);

  if (options.signal?.aborted) return Promise.resolve(emptyResult({ aborted: true }));

  return new Promise<ProcessResult>((resolveRun) => {
    const resolve = (result: ProcessResult) => {
      shells?.release();
      resolveRun(result);
    };
    // A run whose process is reported (a spawner helper tells its host) starts through a shell
    // that waits for its command, so the report is out before the command runs.
    const prestarted = shells?.acquire(options) ?? (options.onSpawn ? shells?.startFor(options) : undefined);
    let child: ChildProcess;
    try {
      child = prestarted?.child ?? spawnFresh(options);
    } catch (error) {
      resolve(emptyResult({ spawnError: errorMessage(error) }));
      return;
    }

    if (child.pid !== undefined) options.onSpawn?.(child.pid);

    let settled = false;
    let timedOut = false;
    let aborted = false;
    let killing = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let cancelKill: (() => void) | undefined;

    const onAbort = () => {
      aborted = true;
      kill();
    };

    const cleanup = () => {
      if (timeoutTimer) clearTimeout(timeoutTimer);
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
    };

    const marker = options.runMarker === undefined ? undefined : markerEntry(RUN_MARKER_VARIABLE, options.runMarker);
    /** Whether anything of the run is left: its group or session, or a process that carries its marker. */
    const runSurvives = () =>
      (child.pid !== undefined && (groupAlive(child.pid) || sessionProcesses(child.pid).length > 0)) ||
      (marker !== undefined && markedProcesses(marker).length > 0);
    // The host exits while the run goes on (a second Ctrl-C while SessionEnd hooks run): it ends with it.
    const forgetAtExit = killAtExit(() => {
      killing = true;
      killAll();
    });
    const settle = (result: ProcessResult) => {
      if (settled) return;
      settled = true;
      forgetAtExit();
      cleanup();
      // The SIGKILL stays armed while anything of a killed run survives.
      if (cancelKill && !runSurvives()) cancelKill();
      resolve(result);
    };

    const finish = () => {
      settle({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        timedOut,
        aborted,
        durationMs: performance.now() - started,
      });
    };

    function kill(): void {
      if (killing || settled) return;
      killing = true;
      // The run leads a session of its own (detached): what job control moved to other groups is still in it.
      const session = child.pid;
      signalGroup(child, 'SIGTERM');
      if (session !== undefined) signalSessionProcesses(session, 'SIGTERM');
      if (marker !== undefined) signalMarkedProcesses(marker, 'SIGTERM');
      cancelKill = armKill(killAll, graceMs);
    }

    function killAll(): void {
      const session = child.pid;
      signalGroup(child, 'SIGKILL');
      if (session !== undefined) killSessionProcesses(session);
      if (marker !== undefined) killMarkedProcesses(marker);
    }

    const collect = (stream: Readable | null, into: CappedBuffer) => {
      stream?.on('data', (chunk: Buffer) => into.push(chunk));
      stream?.on('error', () => undefined);
    };
    collect(child.stdout, stdout);
    collect(child.stderr, stderr);

    child.on('error', (error: NodeJS.ErrnoException) => {
      // With a pid the process started; any later error (e.g. a failed kill) waits for 'exit'.
      if (exit || child.pid !== undefined) return;
      settle(emptyResult({ spawnError: describeSpawnError(error, options), timedOut, aborted }));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // What outlives the child (a grandchild holding the pipes) no longer times it out.
      if (timeoutTimer) clearTimeout(timeoutTimer);
      options.signal?.removeEventListener('abort', onAbort);
      drainTimer = setTimeout(finish, PIPE_DRAIN_MS);
    });
    child.on('close', () => {
      if (exit) finish();
    });

    if (options.timeoutMs !== undefined) {
      timeoutTimer = setTimeout(() => {
        timedOut = true;
        kill();
      }, timerDelay(options.timeoutMs));
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });

    // The child may exit without reading stdin; a broken pipe is not an error here.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end((prestarted?.commandLine ?? '') + (options.input ?? ''));
  });
}
