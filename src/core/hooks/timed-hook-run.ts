import { errorMessage } from '../error-message';
import { timerDelay } from '../timer-delay';
import { HookAbort } from './hook-abort';
import type { HookDefinition, HookHandler, HookOutcome, HookPayload } from './types';

/** Extra time a handler gets to honour the abort before the dispatcher stops waiting. */
const BACKSTOP_MS = 2_000;

export interface TimedRunOptions {
  timeoutMs: number;
  projectDir: string;
  parent?: AbortSignal;
  env?: Readonly<Record<string, string>>;
}

/**
 * Runs one hook's handler within its timeout: the handler is aborted when it passes, and a
 * handler that ignores the abort is given up on after a backstop. Never throws: a handler
 * that throws or rejects is an `error` outcome.
 */
export async function runTimed(
  handler: HookHandler,
  hook: HookDefinition,
  payload: HookPayload,
  options: TimedRunOptions,
): Promise<HookOutcome> {
  const { timeoutMs, projectDir, parent, env } = options;
  const abort = new HookAbort(parent);
  const started = performance.now();
  let running: HookOutcome | Promise<HookOutcome>;
  try {
    running = handler.start
      ? handler.start(hook, payload, () => abort.signal)
      : handler.run({ hook, payload, signal: abort.signal, timeoutMs, projectDir, env });
  } catch (err) {
    abort.dispose();
    return { status: 'error', error: errorMessage(err), trace: { durationMs: performance.now() - started } };
  }
  if (!(running instanceof Promise)) {
    abort.dispose();
    return running;
  }
  let timedOut = false;
  let backstop: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort(new Error('timeout'));
  }, timerDelay(timeoutMs));
  try {
    const guard = new Promise<HookOutcome>((resolve) => {
      backstop = setTimeout(
        () =>
          resolve({
            status: 'timeout',
            error: `hook did not stop within ${timeoutMs + BACKSTOP_MS} ms`,
            trace: { durationMs: performance.now() - started },
          }),
        timerDelay(timeoutMs + BACKSTOP_MS),
      );
    });
    const aborted = abort.created || handler.start === undefined ? undefined : abort.whenAborted(started);
    const outcome = await Promise.race(aborted ? [running, guard, aborted] : [running, guard]).catch((err: unknown): HookOutcome => ({
      status: 'error',
      error: errorMessage(err),
      trace: { durationMs: performance.now() - started },
    }));
    if (timedOut && (outcome.status === 'cancelled' || outcome.status === 'error')) {
      return { status: 'timeout', error: `hook timed out after ${timeoutMs} ms`, trace: outcome.trace };
    }
    return outcome;
  } finally {
    clearTimeout(timer);
    clearTimeout(backstop);
    abort.dispose();
  }
}
