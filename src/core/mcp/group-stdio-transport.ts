import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../error-message';
import { sizeText } from './mcp-limits';

export interface GroupStdioOptions {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Most bytes of one message from the server; a bigger one closes the connection. */
  maxMessageBytes: number;
  /**
   * Most bytes of messages to the server waiting to be written to its stdin: a server that
   * sends requests (pings) and never reads our answers is closed past it, instead of our
   * memory holding every answer.
   */
  maxPendingWriteBytes: number;
  onStderr: (line: string) => void;
  /** SIGTERM to the group, then SIGKILL after this many ms. */
  killGraceMs?: number;
}

/**
 * The SDK's stdio transport, but the server runs in its own process group and close()
 * kills the whole group: servers started through npx, uvx or a shell leave no orphans.
 *
 * The connection ends when the server process exits, not when its pipes close: a helper it
 * started in a session of its own (a daemon, a browser, `setsid`) keeps them open as long as
 * it lives, and neither a crash nor close() would ever be seen to end.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: ChildProcess;
  private readonly buffer: ReadBuffer;
  private stderrTail = '';
  /** Messages to the server while stdin's buffer is over its mark, written together at 'drain'. */
  private queue: string[] = [];
  private queuedBytes = 0;
  private waitingForDrain = false;
  private failureReason?: string;
  /** How the server process ended ("exited with code 7"), once it has. */
  private exitText?: string;
  private closing = false;
  /** Our requests the server has not answered: the connection's end answers them with an error saying why. */
  private readonly unanswered = new Set<RequestId>();
  /** Settles once the connection has ended (the server exited, or close() gave up waiting for it). */
  private readonly ended: Promise<void>;
  private markEnded!: () => void;
  private hasEnded = false;

  constructor(private readonly options: GroupStdioOptions) {
    this.buffer = new ReadBuffer({ maxBufferSize: options.maxMessageBytes });
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Why this transport closed the server itself (a message too big, stdin not read), if it did. */
  get failure(): string | undefined {
    return this.failureReason;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args, {
        cwd: this.options.cwd,
        env: this.options.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
        this.end();
      });
      child.once('spawn', () => resolve());
      // What the server wrote before exiting is in the pipe already, read by the poll that saw the
      // exit at the latest: ending in that turn's check phase reads it without waiting for EOF.
      child.once('exit', (code, signal) => {
        this.exitText = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        // What is left of its group is orphaned: it goes now, while the group's id is still
        // provably ours (a live member keeps it from reuse), not at a close() that may never come.
        if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
        setImmediate(() => this.end());
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
      child.stderr.on('data', (chunk: Buffer) => this.stderr(chunk.toString('utf8')));
    });
  }

  /**
   * Writes the message, or queues it while stdin waits for 'drain' (one listener, whatever the
   * number of messages). The promise resolves once the message is written or queued: the SDK
   * keeps state for every request until its answer's send settles, so a server sending
   * requests it never reads the answers to would otherwise cost far more than their bytes.
   * Past maxPendingWriteBytes waiting (stdin's buffer and the queue) the server is closed.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.failureReason) return Promise.reject(new Error(this.failureReason));
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the server process is not running'));
    this.track(message);
    const data = serializeMessage(message);
    if (!this.waitingForDrain) {
      if (!stdin.write(data)) this.waitForDrain(stdin);
      return Promise.resolve();
    }
    const bytes = Buffer.byteLength(data);
    if (stdin.writableLength + this.queuedBytes + bytes > this.options.maxPendingWriteBytes) {
      const reason = `the server is not reading its stdin: over ${sizeText(this.options.maxPendingWriteBytes)} of messages to it wait to be written`;
      this.fail(reason);
      return Promise.reject(new Error(reason));
    }
    this.queue.push(data);
    this.queuedBytes += bytes;
    return Promise.resolve();
  }

  private waitForDrain(stdin: Writable): void {
    this.waitingForDrain = true;
    stdin.once('drain', () => {
      if (stdin.destroyed) return;
      const data = this.queue.join('');
      this.queue = [];
      this.queuedBytes = 0;
      if (data === '' || stdin.write(data)) this.waitingForDrain = false;
      else this.waitForDrain(stdin);
    });
  }

  /** SIGTERM to the group, SIGKILL after the grace; the connection ends at the server's exit, or one more grace after SIGKILL. */
  async close(): Promise<void> {
    const child = this.child;
    this.buffer.clear();
    this.queue = [];
    this.queuedBytes = 0;
    if (!child || child.pid === undefined) return;
    this.closing = true;
    const graceMs = this.options.killGraceMs ?? 1_000;
    killGroup(child.pid, 'SIGTERM');
    if (!(await settlesWithin(this.ended, graceMs))) {
      killGroup(child.pid, 'SIGKILL');
      if (!(await settlesWithin(this.ended, graceMs))) this.end();
    }
    // The leader may be gone while its children still run: the group goes too.
    killGroup(child.pid, 'SIGKILL');
  }

  /** At process exit, where nothing can be awaited: the group dies at once. */
  killNow(): void {
    if (this.child?.pid !== undefined) killGroup(this.child.pid, 'SIGKILL');
  }

  /**
   * The connection's end, once: the pipes are let go (a helper may hold them open for ever),
   * each unanswered request is answered with an error saying why, then onclose.
   */
  private end(): void {
    if (this.hasEnded) return;
    this.hasEnded = true;
    const child = this.child;
    this.child = undefined;
    child?.stdin?.destroy();
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    this.flushStderr();
    const reason =
      this.failureReason ??
      (this.closing ? 'the connection was closed before the server answered' : `the server ${this.exitText ?? 'stopped'} before answering`);
    for (const id of this.unanswered)
      this.onmessage?.({ jsonrpc: '2.0', id, error: { code: ErrorCode.ConnectionClosed, message: reason } });
    this.unanswered.clear();
    this.markEnded();
    this.onclose?.();
  }

  /** Keeps the ids of our requests until they are answered or cancelled. */
  private track(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    if ('id' in message) this.unanswered.add(message.id);
    else if (message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) this.unanswered.delete(id);
    }
  }

  private read(chunk: Buffer): void {
    if (this.failureReason !== undefined) return;
    try {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) {
        if (!('method' in message) && message.id !== undefined) this.unanswered.delete(message.id);
        this.onmessage?.(message);
      }
    } catch (error) {
      const message = errorMessage(error);
      this.fail(
        /exceeded maximum size/.test(message)
          ? `the server sent a message over ${sizeText(this.options.maxMessageBytes)}`
          : `the server sent a line that is not a JSON-RPC message (${message.slice(0, 200)})`,
      );
    }
  }

  /** Closes the server for a reason of ours, which `failure` then tells. */
  private fail(reason: string): void {
    if (this.failureReason !== undefined) return;
    this.failureReason = reason;
    this.onerror?.(new Error(reason));
    void this.close();
  }

  private stderr(text: string): void {
    const lines = (this.stderrTail + text).split('\n');
    this.stderrTail = lines.pop() ?? '';
    // A server that never ends a line still cannot grow our memory.
    if (this.stderrTail.length > 8192) {
      lines.push(this.stderrTail.slice(0, 8192));
      this.stderrTail = '';
    }
    for (const line of lines) if (line.trim() !== '') this.options.onStderr(line);
  }

  private flushStderr(): void {
    if (this.stderrTail.trim() !== '') this.options.onStderr(this.stderrTail);
    this.stderrTail = '';
  }
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
