/**
 * Runs at most `limit` tasks at once; later ones wait their turn, in order, and past
 * `maxWaiting` waiting a task is refused (not run). A task is started synchronously when a
 * slot is free, so that what it does first happens where it did without the limiter.
 */
export class RunLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly maxWaiting: number,
  ) {}

  /** The task's promise, or undefined when it was refused (too many waiting already). */
  run<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.running < this.limit) {
      this.running++;
      return this.settle(task);
    }
    if (this.waiting.length >= this.maxWaiting) return undefined;
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.settle(task));
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
    if (next) next();
    else this.running--;
  }
}
