import type { Writable } from 'node:stream';
import { StreamMessageWriter, type Message } from 'vscode-jsonrpc/node';

/** Messages that may wait behind a write the server's stdin has not taken. */
export const MAX_WAITING_WRITES = 128;

/**
 * The host's writer to one server. vscode-jsonrpc queues each message behind the one being
 * written: a server that stops reading its stdin would make that queue, payloads and all,
 * grow without bound. Past MAX_WAITING_WRITES while the pipe is full, `onStalled` is told
 * once and further writes are dropped. A burst queued within one tick is fine while the
 * pipe still takes it.
 *
 * It also swallows write failures: vscode-jsonrpc rethrows them inside a promise executor,
 * where nobody can catch them, so writing to a dead server would become an unhandled
 * rejection in the host. The failure still reaches onError, and the process's exit settles
 * the requests that wait on it.
 */
export class BoundedMessageWriter extends StreamMessageWriter {
  private waiting = 0;
  private stalled = false;

  constructor(
    private readonly stdin: Writable,
    private readonly onStalled: (waiting: number) => void,
  ) {
    super(stdin);
  }

  override async write(message: Message): Promise<void> {
    if (this.stalled) return;
    if (this.waiting >= MAX_WAITING_WRITES && this.stdin.writableLength > 0) {
      this.stalled = true;
      this.onStalled(this.waiting);
      return;
    }
    this.waiting++;
    try {
      await super.write(message);
    } catch {
      // Reported through onError; see above.
    } finally {
      this.waiting--;
    }
  }
}
