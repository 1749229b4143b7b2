import { errorMessage } from '../core/error-message';

export interface ChatActivityListener {
  /** Work started or finished: the chat shows whether it is busy. */
  busyChanged(): void;
  /** Work threw: `what` names it. */
  failed(what: string, message: string): void;
  /** After each piece of work, failed or not. */
  finished(): Promise<void>;
}

interface Run {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * One thing at a time talks to the chat's session: a turn, a compaction or a replay, each
 * cancellable. Switching the session is one at a time too, and whatever would talk to the
 * session waits for a switch to end first.
 */
export class ChatActivity {
  private run: Run | undefined;
  private switching: Promise<void> | undefined;

  constructor(private readonly listener: ChatActivityListener) {}

  get busy(): boolean {
    return this.run !== undefined;
  }

  /** Resolves once no session switch is going on. */
  async afterSwitches(): Promise<void> {
    while (this.switching) await this.switching;
  }

  /**
   * Runs `work` unless something else runs (then it does nothing and returns false). True when
   * it was interrupted: cancelled, or the session ended under it.
   */
  async exclusive(what: string, work: (signal: AbortSignal) => Promise<void>): Promise<boolean> {
    if (this.run) return false;
    const controller = new AbortController();
    let finish: () => void = () => undefined;
    this.run = { controller, done: new Promise<void>((resolve) => (finish = resolve)) };
    this.listener.busyChanged();
    try {
      await work(controller.signal);
    } catch (error) {
      this.listener.failed(what, errorMessage(error));
    } finally {
      this.run = undefined;
      finish();
      this.listener.busyChanged();
      await this.listener.finished();
    }
    return controller.signal.aborted;
  }

  cancel(): void {
    this.run?.controller.abort();
  }

  /** Cancels what runs and waits until it has ended. */
  async stop(): Promise<void> {
    const run = this.run;
    if (!run) return;
    run.controller.abort();
    await run.done;
  }

  /** One switch at a time; what would talk to the session meanwhile waits (see afterSwitches). */
  async switchSession(work: () => Promise<void>): Promise<void> {
    await this.afterSwitches();
    let done: () => void = () => undefined;
    this.switching = new Promise<void>((resolve) => (done = resolve));
    try {
      await work();
    } finally {
      this.switching = undefined;
      done();
    }
  }
}
