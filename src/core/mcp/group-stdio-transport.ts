import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
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

  constructor(private readonly options: GroupStdioOptions) {
    this.buffer = new ReadBuffer({ maxBufferSize: options.maxMessageBytes });
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
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        this.flushStderr();
        this.child = undefined;
        this.onclose?.();
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

  async close(): Promise<void> {
    const child = this.child;
    this.buffer.clear();
    this.queue = [];
    this.queuedBytes = 0;
    if (!child || child.pid === undefined) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    killGroup(child.pid, 'SIGTERM');
    const grace = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), this.options.killGraceMs ?? 1_000).unref());
    if ((await Promise.race([closed, grace])) === 'late') {
      killGroup(child.pid, 'SIGKILL');
      await closed;
    }
    // The leader may be gone while its children still run: the group goes too.
    killGroup(child.pid, 'SIGKILL');
  }

  /** At process exit, where nothing can be awaited: the group dies at once. */
  killNow(): void {
    if (this.child?.pid !== undefined) killGroup(this.child.pid, 'SIGKILL');
  }

  private read(chunk: Buffer): void {
    if (this.failureReason !== undefined) return;
    try {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) this.onmessage?.(message);
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

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
