/** How many of the slowest hook runs "slowest" keeps. */
export const SLOWEST_COUNT = 20;

/**
 * The durations of a session's slowest SLOWEST_COUNT hook runs, kept as runs arrive, so the
 * "slowest" filter's threshold is known without sorting every run again.
 */
export class SlowestDurations {
  /** Descending, at most SLOWEST_COUNT. */
  private readonly list: number[] = [];

  /** Runs at least this long are among the slowest (Infinity while there are none). */
  get thresholdMs(): number {
    const list = this.list;
    return list.length === 0 ? Infinity : list[list.length - 1];
  }

  note(ms: number): void {
    const list = this.list;
    if (list.length === SLOWEST_COUNT && ms <= list[list.length - 1]) return;
    let i = list.length;
    while (i > 0 && list[i - 1] < ms) i--;
    list.splice(i, 0, ms);
    if (list.length > SLOWEST_COUNT) list.pop();
  }
}
