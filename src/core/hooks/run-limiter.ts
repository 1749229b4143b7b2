/** What a task that waited and never started resolves with (its signal aborted, or the limiter was cleared). */
export const NOT_RUN: unique symbol = Symbol('not run');

interface Waiting {
  start(): void;
  cancel(): void;
}

/**
 * Runs at most `limit` tasks at once; later ones wait their turn, in order, and past
 * `maxWaiting` waiting a task is refused (not run). A task is started synchronously when a
 * slot is free, so that what it does first happens where it did without the limiter. A task
 * still waiting when its signal aborts, or when the limiter is cleared, never starts.
 */
export class RunLimiter {
  private running = 0;
  private readonly waiting: Waiting[] = [];

  constructor(
    readonly limit: number,
    readonly maxWaiting: number,
  ) {}

  /** The task's promise (NOT_RUN if it waited and never started), or undefined when it was refused. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T | typeof NOT_RUN> | undefined {
    if (this.running < this.limit) {
      this.running++;
      return this.settle(task);
    }
    if (this.waiting.length >= this.maxWaiting) return undefined;
    return new Promise<T | typeof NOT_RUN>((resolve) => {
      const onAbort = () => entry.cancel();
      const entry: Waiting = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.settle(task));
        },
        cancel: () => {
          signal?.removeEventListener('abort', onAbort);
          const index = this.waiting.indexOf(entry);
          if (index >= 0) this.waiting.splice(index, 1);
          resolve(NOT_RUN);
        },
      };
      this.waiting.push(entry);
      if (signal?.aborted) entry.cancel();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Every task still waiting resolves with NOT_RUN, never started (the host is stopping). */
  clear(): void {
    for (const entry of [...this.waiting]) entry.cancel();
  }

  private settle<T>(task: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = task();
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.finally(() => this.release());
  }

  /** A finished task hands its slot to the next one waiting. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running--;
  }
}
