import type { Disposable } from '../events-emitter';

/** Claude Code notifies after 60 s of the prompt waiting for the user. */
export const IDLE_PROMPT_MS = 60_000;

/**
 * Claude Code's `idle_prompt` Notification: once a turn has ended and the prompt has waited
 * `delayMs` for the user, `notify` runs, once per idle period. A turn starting cancels it;
 * it is armed again only when that turn ends.
 */
export class IdlePromptTimer implements Disposable {
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly delayMs: number,
    private readonly notify: () => void,
  ) {
    if (!Number.isFinite(delayMs) || delayMs <= 0)
      throw new Error(`idle prompt delay must be a positive number of milliseconds, got ${delayMs}`);
  }

  turnStarted(): void {
    this.cancel();
  }

  turnEnded(): void {
    this.cancel();
    if (this.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.notify();
    }, this.delayMs);
    // Waiting for a person must not keep a process alive on its own.
    this.timer.unref();
  }

  dispose(): void {
    this.disposed = true;
    this.cancel();
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
