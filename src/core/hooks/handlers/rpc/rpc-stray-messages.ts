import type { RpcLogger } from './rpc-types';

export const STRAY_LOG_INTERVAL_MS = 1_000;
/** How many stray messages per interval get a log line of their own; the rest are counted. */
export const STRAY_LOG_LINES = 10;
/**
 * How many messages the protocol does not have a server may send per interval before it is
 * stopped: a stray one now and then is dropped, a flood ends the server.
 */
export const FOREIGN_MESSAGE_ALLOWANCE = 100;
const METHOD_CHARS = 80;

/** What a message the protocol does not have is, in a few words and never the whole of it. */
export function describeForeign(message: unknown): string {
  if (Array.isArray(message)) return `a batch of ${message.length} messages`;
  if (typeof message !== 'object' || message === null) return `${message === null ? 'null' : `a ${typeof message}`} instead of a message`;
  const { method } = message as { method?: unknown };
  if (typeof method !== 'string') return `a message whose method is ${method === null ? 'null' : `a ${typeof method}`}`;
  const name = JSON.stringify(method.length > METHOD_CHARS ? `${method.slice(0, METHOD_CHARS)}…` : method);
  return 'id' in message ? `a request ${name}` : `a notification ${name}`;
}

/**
 * What the host drops of a server's output: answers that settle no request, and messages
 * the protocol does not have (the protocol defines no server-to-host request or
 * notification). Each is logged within a budget per interval, like StderrLog: a server that
 * writes them without pause must not flood the host log. Past FOREIGN_MESSAGE_ALLOWANCE
 * foreign messages in one interval `onFlood` is told, once, with the reason to stop it.
 */
export class StrayMessages {
  private lines = 0;
  private unlogged = 0;
  private foreignCount = 0;
  private flooded = false;
  private interval: NodeJS.Timeout | undefined;

  constructor(
    private readonly label: string,
    private readonly log: RpcLogger,
    private readonly onFlood: (reason: string) => void,
  ) {}

  /** An answer that settles nothing; `what` says why (late, repeated, never sent, no usable id). */
  answer(what: string): void {
    this.note('debug', `${this.label} sent ${what}; ignored`);
  }

  foreign(message: unknown): void {
    if (this.flooded) return;
    const what = describeForeign(message);
    if (++this.foreignCount > FOREIGN_MESSAGE_ALLOWANCE) {
      this.flooded = true;
      this.onFlood(
        `${this.label} sent ${this.foreignCount} messages the protocol does not have within ` +
          `${STRAY_LOG_INTERVAL_MS / 1000} s (the last: ${what}); the server was stopped`,
      );
      return;
    }
    this.note('warn', `${this.label} sent ${what}, which the protocol does not have; dropped`);
  }

  /** The server is gone: what was not logged is reported now. */
  flush(): void {
    this.endInterval();
  }

  private note(level: 'debug' | 'warn', line: string): void {
    this.interval ??= setTimeout(() => this.endInterval(), STRAY_LOG_INTERVAL_MS).unref();
    if (this.lines < STRAY_LOG_LINES) {
      this.lines++;
      this.log(level, line);
    } else {
      this.unlogged++;
    }
  }

  private endInterval(): void {
    clearTimeout(this.interval);
    this.interval = undefined;
    if (this.unlogged > 0) {
      this.log(
        'warn',
        `${this.label} sent ${this.unlogged} more messages that were dropped or ignored without a log line ` +
          `(over ${STRAY_LOG_LINES} per ${STRAY_LOG_INTERVAL_MS / 1000} s)`,
      );
    }
    this.lines = 0;
    this.unlogged = 0;
    this.foreignCount = 0;
  }
}
