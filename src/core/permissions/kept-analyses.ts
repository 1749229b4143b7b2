/**
 * Recent answers by the text they answer for, most recently used last, bounded in number and
 * in the size `sizeOf` gives them (an analysis' syntax nodes: its memory grows with them).
 */
export class KeptAnalyses<T> {
  private readonly kept = new Map<string, T>();
  private size = 0;

  constructor(
    private readonly limits: { entries: number; size: number },
    private readonly sizeOf: (value: T) => number,
  ) {}

  /** The kept answer for `key`, else `compute`'s, kept unless it alone is over the size limit. */
  get(key: string, compute: () => T): T {
    const known = this.kept.get(key);
    if (known !== undefined) {
      this.kept.delete(key);
      this.kept.set(key, known);
      return known;
    }
    const value = compute();
    const size = this.sizeOf(value);
    if (size > this.limits.size) return value;
    this.kept.set(key, value);
    this.size += size;
    for (const [oldest, old] of this.kept) {
      if (this.kept.size <= this.limits.entries && this.size <= this.limits.size) break;
      this.kept.delete(oldest);
      this.size -= this.sizeOf(old);
    }
    return value;
  }
}
