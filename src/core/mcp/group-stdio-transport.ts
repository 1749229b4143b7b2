import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { toError } from '../error-message';

export interface GroupStdioOptions {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Most bytes of one message from the server; a bigger one closes the connection. */
  maxMessageBytes: number;
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

  constructor(private readonly options: GroupStdioOptions) {
    this.buffer = new ReadBuffer({ maxBufferSize: options.maxMessageBytes });
  }

  get pid(): number | undefined {
    return this.child?.pid;
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

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the server process is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.buffer.clear();
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
    try {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(toError(error));
      void this.close();
    }
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
