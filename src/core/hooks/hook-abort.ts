import { onAbort } from './abort-fanout';
import type { HookOutcome } from './types';

/** An AbortController linked to the caller's signal, created only when someone needs it. */
export class HookAbort {
  private controller?: AbortController;
  private readonly waiters: Array<() => void> = [];
  private readonly unsubscribe: (() => void) | undefined;

  constructor(parent?: AbortSignal) {
    this.unsubscribe = parent && onAbort(parent, () => this.abort(parent.reason));
  }

  get created(): boolean {
    return this.controller !== undefined;
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    this.controller?.abort(reason);
    for (const w of this.waiters.splice(0)) w();
  }

  /** For in-process hooks that never looked at their signal: stop waiting on abort. */
  whenAborted(started: number): Promise<HookOutcome> {
    return new Promise((resolve) =>
      this.waiters.push(() => resolve({ status: 'cancelled', trace: { durationMs: performance.now() - started } })),
    );
  }

  dispose(): void {
    this.unsubscribe?.();
  }
}
