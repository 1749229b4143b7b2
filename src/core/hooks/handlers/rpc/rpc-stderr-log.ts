import type { RpcLogger } from './rpc-types';

/** How much of a server's stderr reaches the host log per interval; the rest is counted, not logged. */
export const STDERR_LOG_BUDGET_CHARS = 64 * 1024;
export const STDERR_LOG_INTERVAL_MS = 1_000;
/** A line without an end is logged in pieces of this size, so holding it stays bounded. */
const MAX_LINE_CHARS = 4 * 1024;

/**
 * Forwards a server's stderr to the host log by whole lines, at most a budget per interval:
 * a server writing without pause must not flood the log (VS Code's output channel). What is
 * over the budget is dropped and reported once at the end of the interval.
 */
export class StderrLog {
  private partial = '';
  private used = 0;
  private dropped = 0;
  private interval: NodeJS.Timeout | undefined;

  constructor(
    private readonly serverName: string,
    private readonly log: RpcLogger,
  ) {}

  push(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    while (this.partial.length >= MAX_LINE_CHARS) {
      lines.push(this.partial.slice(0, MAX_LINE_CHARS));
      this.partial = this.partial.slice(MAX_LINE_CHARS);
    }
    this.forward(lines);
  }

  /** stderr closed: its last unterminated line and the count of what was dropped are logged now. */
  flush(): void {
    if (this.partial !== '') this.forward([this.partial]);
    this.partial = '';
    this.endInterval();
  }

  private forward(lines: string[]): void {
    const kept: string[] = [];
    for (const line of lines.map((l) => l.trimEnd())) {
      if (line === '') continue;
      this.interval ??= setTimeout(() => this.endInterval(), STDERR_LOG_INTERVAL_MS).unref();
      const size = line.length + 1;
      if (this.used + size > STDERR_LOG_BUDGET_CHARS) {
        this.dropped += size;
        continue;
      }
      this.used += size;
      kept.push(`[${this.serverName}] ${line}`);
    }
    if (kept.length > 0) this.log('debug', kept.join('\n'));
  }

  private endInterval(): void {
    clearTimeout(this.interval);
    this.interval = undefined;
    if (this.dropped > 0) {
      this.log(
        'warn',
        `rpc server "${this.serverName}": ${this.dropped} characters of stderr were not logged ` +
          `(over ${STDERR_LOG_BUDGET_CHARS / 1024} KiB per ${STDERR_LOG_INTERVAL_MS / 1000} s); its last lines stay in the hook's trace`,
      );
    }
    this.used = 0;
    this.dropped = 0;
  }
}
