import { AbstractMessageReader, Disposable, type DataCallback, type Message, type RAL } from 'vscode-jsonrpc/node';

const HEADER_END = Buffer.from('\r\n\r\n');

/** Where the reader sends what a server writes: answers to the host's requests, and everything else. */
export interface ServerMessageSinks {
  /** A message without `method`: an answer, well formed or not, for RpcServerProcess to match. */
  onAnswer: (message: Message) => void;
  /** A request, a notification or any other JSON: the protocol has no such server-to-host message. */
  onForeign: (message: unknown) => void;
}

/**
 * The host's reader from one server, over stdout already checked by the frame guard. Each
 * message is parsed and handed on in the same turn it arrived, and none reaches the
 * vscode-jsonrpc connection: RpcServerProcess matches answers itself, and the protocol has
 * no server-to-host requests or notifications. The library would queue every message it
 * reads (one handled per turn of the event loop, so a flood grows the host's memory without
 * bound) and pretty-print an invalid one into its log (a deeply nested one overflows the
 * stack outside any catch).
 */
export class ServerMessageReader extends AbstractMessageReader {
  private chunks: Buffer[] = [];
  private size = 0;
  /** The Content-Length of the frame whose body is awaited; -1 while reading a header. */
  private bodyLength = -1;
  private failed = false;

  constructor(
    private readonly readable: RAL.ReadableStream,
    private readonly sinks: ServerMessageSinks,
  ) {
    super();
  }

  /** The connection's callback is never called; see above. */
  listen(_callback: DataCallback): Disposable {
    const subscriptions = [
      this.readable.onData((data) => this.read(data)),
      this.readable.onError((error) => this.fireError(error)),
      this.readable.onClose(() => this.fireClose()),
    ];
    return Disposable.create(() => subscriptions.forEach((s) => s.dispose()));
  }

  private read(data: Uint8Array): void {
    if (this.failed) return;
    this.chunks.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    this.size += data.byteLength;
    for (;;) {
      if (this.bodyLength < 0) {
        const buffered = this.joined();
        const end = buffered.indexOf(HEADER_END);
        if (end < 0) return;
        // The frame guard has let through only headers with one Content-Length of at most 4 MiB.
        const length = /(?:^|\n)content-length:[ \t]*(\d+)/i.exec(buffered.toString('latin1', 0, end));
        if (!length) return this.fail(new Error('message header without Content-Length'));
        this.bodyLength = Number(length[1]);
        this.consume(end + HEADER_END.length);
      }
      if (this.size < this.bodyLength) return;
      const body = this.joined().toString('utf8', 0, this.bodyLength);
      this.consume(this.bodyLength);
      this.bodyLength = -1;
      let message: unknown;
      try {
        message = JSON.parse(body);
      } catch (error) {
        return this.fail(error);
      }
      try {
        if (typeof message === 'object' && message !== null && !Array.isArray(message) && !('method' in message)) {
          this.sinks.onAnswer(message as Message);
        } else {
          this.sinks.onForeign(message);
        }
      } catch (error) {
        // In the stdout handler nothing else would catch it: the server's message broke the host's reading of it.
        return this.fail(error);
      }
    }
  }

  /** After a broken message nothing more is read: where the next one starts is unknown. */
  private fail(error: unknown): void {
    this.failed = true;
    this.chunks = [];
    this.size = 0;
    this.fireError(error);
  }

  /** The buffered bytes as one buffer; they are joined only when a header or a whole body is there. */
  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private consume(bytes: number): void {
    const rest = this.joined().subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.size = rest.length;
  }
}
