import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  ResponseError,
  createMessageConnection,
  type Message,
  type MessageConnection,
  type RequestType,
  type RequestMessage,
  type RequestType0,
  type ResponseMessage,
} from 'vscode-jsonrpc/node';
import { timerDelay } from '../../../timer-delay';
import type { ServerDefinition } from '../../types';
import { guardedReadable } from './rpc-frame-guard';
import { ServerMessageReader } from './rpc-message-reader';
import { BoundedMessageWriter } from './rpc-message-writer';
import { CancelRequestNotification, ExitNotification, ShutdownRequest } from './rpc-protocol';
import { serverLaunch } from './rpc-server-env';
import { StderrLog } from './rpc-stderr-log';
import { StrayMessages } from './rpc-stray-messages';
import type { RpcCallResult, RpcLogger } from './rpc-types';
import { TailBuffer } from './tail-buffer';
import { errorMessage } from '../../../error-message';

export interface RpcServerProcessOptions {
  server: ServerDefinition;
  projectDir: string;
  env: NodeJS.ProcessEnv;
  log: RpcLogger;
}

export interface RpcExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** One sentence for users: why the process is gone. */
  reason: string;
  /** The process never started (missing executable, bad cwd): retrying will not help. */
  spawnFailed: boolean;
}

/** A request sent and not yet settled; `settle` takes its outcome, whichever comes first. */
interface PendingRequest {
  method: string;
  settle: (result: RpcCallResult) => void;
}

const STDERR_TAIL_CHARS = 16 * 1024;
/** After the process exits, how long its last stdout may still be read before giving up. */
const PIPE_DRAIN_MS = 200;
/** The longest line the connection, or a reader error, puts in the host log. */
const LOG_LINE_CHARS = 1024;

function capped(text: string): string {
  return text.length > LOG_LINE_CHARS ? `${text.slice(0, LOG_LINE_CHARS)}… (${text.length} characters)` : text;
}

/** Signals the whole process group of a detached child, so grandchildren go too. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    // The group is already gone.
  }
}

function describeError(error: unknown): string {
  if (error instanceof ResponseError) return `error ${error.code}: ${error.message}`;
  return errorMessage(error);
}

/**
 * One incarnation of a hook server: a detached child in its own process group with a
 * vscode-jsonrpc connection on its stdio. Restarts are the supervisor's business; this
 * class only runs, talks, and reports how the process ended.
 */
export class RpcServerProcess {
  readonly exited: Promise<RpcExit>;
  readonly pid: number | undefined;
  private readonly label: string;
  private readonly cwd: string;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly connection: MessageConnection;
  private readonly writer: BoundedMessageWriter;
  private readonly stderr = new TailBuffer(STDERR_TAIL_CHARS);
  private readonly stray: StrayMessages;
  /** Requests in flight by id; each leaves when settled (answer, deadline, signal or exit). */
  private readonly pending = new Map<number, PendingRequest>();
  private nextRequestId = 0;
  /** Set when we end the process on purpose; it explains the exit better than its code. */
  private endReason: string | undefined;
  /** Set by terminate: what the server still wrote before it died is not trusted, answers included. */
  private killed = false;
  private exitInfo: RpcExit | undefined;

  constructor(private readonly options: RpcServerProcessOptions) {
    const { server, log } = options;
    this.label = `rpc server "${server.name}"`;
    const { file, args, cwd } = serverLaunch(server, options.projectDir);
    this.cwd = cwd;
    this.child = spawn(file, args, {
      cwd: this.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
    this.pid = this.child.pid;

    this.child.stderr.setEncoding('utf8');
    const stderrLog = new StderrLog(server.name, log);
    this.child.stderr.on('data', (text: string) => {
      this.stderr.push(text);
      stderrLog.push(text);
    });
    this.child.stderr.once('close', () => stderrLog.flush());
    // Pipe errors (EPIPE after a crash) surface as the exit; they must not crash the host.
    this.child.stdin.on('error', (error) => log('debug', `${this.label} stdin: ${error.message}`));
    this.child.stdout.on('error', (error) => log('debug', `${this.label} stdout: ${error.message}`));

    this.stray = new StrayMessages(this.label, log, (reason) => this.terminate(reason));
    const reader = new ServerMessageReader(
      guardedReadable(this.child.stdout, ({ description, oversize }) =>
        this.terminate(
          oversize
            ? `${this.label} sent ${description}; the server was stopped`
            : `${this.label} wrote non-protocol output to stdout (${description}); ` +
                'servers must write only JSON-RPC messages there and log to stderr',
        ),
      ),
      {
        onAnswer: (answer) => !this.killed && this.deliver(answer),
        onForeign: (message) => !this.killed && this.stray.foreign(message),
      },
    );
    reader.onError((error) => this.terminate(`${this.label} sent an unreadable message: ${capped(describeError(error))}`));
    this.writer = new BoundedMessageWriter(this.child.stdin, (waiting) =>
      this.terminate(`${this.label} is not reading its stdin (${waiting} messages waiting); the server was stopped`),
    );
    this.writer.onError(([error]) => log('debug', `${this.label}: write failed: ${error.message}`));
    this.connection = createMessageConnection(reader, this.writer, {
      error: (message) => log('warn', `${this.label}: ${capped(message)}`),
      warn: (message) => log('warn', `${this.label}: ${capped(message)}`),
      info: (message) => log('debug', `${this.label}: ${capped(message)}`),
      log: (message) => log('debug', `${this.label}: ${capped(message)}`),
    });
    this.connection.listen();
    this.exited = new Promise((resolve) => this.watchExit(resolve));
  }

  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  stderrTail(): string {
    return this.stderr.text();
  }

  /**
   * Sends a request and settles on its first answer, the deadline, the signal, or the process's
   * death. Requests are matched to answers here, not by vscode-jsonrpc's sendRequest: that keeps
   * each request, payload and all, until an answer comes, however long after the host gave up
   * on it, and of two answers to one id read together it applies the last. Here a request given
   * up is forgotten at once, and only the first answer to an id counts.
   */
  call<P>(
    request: RequestType<P, unknown, unknown> | RequestType0<unknown, unknown>,
    params: P,
    limits: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<RpcCallResult> {
    if (this.exitInfo) return Promise.resolve({ status: 'error', error: this.exitInfo.reason });
    if (limits.signal?.aborted) return Promise.resolve({ status: 'cancelled' });
    const { method } = request;
    const id = this.nextRequestId++;
    return new Promise<RpcCallResult>((resolve) => {
      const finish = (result: RpcCallResult, cancel: boolean): void => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        limits.signal?.removeEventListener('abort', onAbort);
        if (cancel) this.notify((connection) => connection.sendNotification(CancelRequestNotification, { id }));
        resolve(result);
      };
      const onAbort = (): void => finish({ status: 'cancelled' }, true);
      this.pending.set(id, { method, settle: (result) => finish(result, false) });
      const timer = setTimeout(
        () => finish({ status: 'timeout', error: `${this.label} did not answer ${method} within ${limits.timeoutMs} ms` }, true),
        timerDelay(limits.timeoutMs),
      );
      limits.signal?.addEventListener('abort', onAbort, { once: true });
      void this.writer.write({ jsonrpc: '2.0', id, method, params } as RequestMessage);
    });
  }

  /** Fire-and-forget; returns an error message when the process is already gone. */
  notify(send: (connection: MessageConnection) => Promise<void>): string | undefined {
    if (this.exitInfo) return this.exitInfo.reason;
    try {
      send(this.connection).catch(() => undefined);
      return undefined;
    } catch (error) {
      return `${this.label}: cannot send notification: ${describeError(error)}`;
    }
  }

  /** Ends the process now (SIGKILL to its group); `reason` becomes the exit's explanation. */
  terminate(reason: string): void {
    if (!this.alive) return;
    this.endReason ??= reason;
    this.killed = true;
    if (this.pid !== undefined) signalGroup(this.pid, 'SIGKILL');
  }

  /** `shutdown` then `exit`; the whole group is killed if it is not gone within `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (!this.alive) return;
    this.endReason ??= `${this.label} was stopped`;
    const deadline = performance.now() + graceMs;
    const answer = await this.call(ShutdownRequest, undefined, { timeoutMs: graceMs });
    if (answer.status === 'ok') this.notify((connection) => connection.sendNotification(ExitNotification));
    const remaining = Math.max(0, deadline - performance.now());
    let timer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), remaining))),
    ]);
    clearTimeout(timer);
    if (!inTime && this.pid !== undefined) signalGroup(this.pid, 'SIGKILL');
    await this.exited;
  }

  /** An answer from the server: it settles the request of its id if that still waits, else it is ignored. */
  private deliver(answer: Message): void {
    const { id, result, error } = answer as Partial<ResponseMessage>;
    const request = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (!request) {
      const what =
        typeof id === 'number'
          ? `an answer to request ${id}, which is not waiting (late, repeated or never sent)`
          : 'an answer without a numeric id';
      this.stray.answer(what);
      return;
    }
    if (error) {
      // Only a number and a string are read: ResponseError would stringify any value, recursively.
      const code = typeof error.code === 'number' ? error.code : '?';
      const message = typeof error.message === 'string' ? capped(error.message) : '(no message)';
      request.settle({ status: 'error', error: `${this.label} answered ${request.method} with error ${code}: ${message}` });
    } else if (result === undefined) {
      request.settle({ status: 'error', error: `${this.label} answered ${request.method} with neither a result nor an error` });
    } else {
      request.settle({ status: 'ok', value: result });
    }
  }

  private watchExit(resolve: (exit: RpcExit) => void): void {
    const finish = (exit: RpcExit): void => {
      if (this.exitInfo) return;
      this.exitInfo = exit;
      for (const request of [...this.pending.values()]) request.settle({ status: 'error', error: exit.reason });
      this.connection.dispose();
      this.stray.flush();
      resolve(exit);
    };
    // `on`, not `once`: a second 'error' without a listener would crash the host.
    this.child.on('error', (error) => {
      if (this.pid !== undefined) {
        this.options.log('warn', `${this.label}: ${error.message}`);
        return;
      }
      // Node reports a missing cwd as a missing executable; say which it is.
      const why = existsSync(this.cwd) ? error.message : `working directory does not exist: ${this.cwd}`;
      finish({ code: null, signal: null, reason: `${this.label} could not start: ${why}`, spawnFailed: true });
    });
    this.child.once('exit', (code, signal) => {
      // Leftover children of the server die with it; that also closes the pipes they hold.
      if (this.pid !== undefined) signalGroup(this.pid, 'SIGKILL');
      const reason = this.endReason ?? (signal ? `${this.label} was killed by ${signal}` : `${this.label} exited (code ${code})`);
      const exit = { code, signal, reason, spawnFailed: false };
      // Let a last answer written just before exiting still be read and delivered.
      const drained = setTimeout(() => finish(exit), PIPE_DRAIN_MS);
      this.child.stdout.once('close', () => {
        clearTimeout(drained);
        setImmediate(() => finish(exit));
      });
      if (this.child.stdout.closed) {
        clearTimeout(drained);
        setImmediate(() => finish(exit));
      }
    });
  }
}
