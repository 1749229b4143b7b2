/**
 * Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer delay fires after 1 ms
 * with only a TimeoutOverflowWarning. A configured timeout must never become "at once": for
 * a guard that would be a skipped check.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** The delay to give setTimeout for `ms`: never over the limit; NaN and Infinity mean the limit. */
export function timerDelay(ms: number): number {
  if (Number.isNaN(ms)) return MAX_TIMER_DELAY_MS;
  return Math.min(Math.max(ms, 0), MAX_TIMER_DELAY_MS);
}
