/**
 * A hook's run durations for percentiles. Up to `capacity` values every duration is kept
 * and the percentiles are exact; past it the set is a uniform random sample of all runs
 * (reservoir sampling, Vitter's algorithm R), so a log of millions of runs costs at most
 * `capacity` numbers per hook. Sorted lazily, when a percentile is asked for after a change.
 */
export class LatencySamples {
  private values = new Float64Array(64);
  private size = 0;
  private seen = 0;
  private sorted = true;
  private maxValue: number | undefined;

  constructor(
    private readonly capacity: number,
    private readonly random: () => number = Math.random,
  ) {}

  add(value: number): void {
    this.seen++;
    this.maxValue = this.maxValue === undefined ? value : Math.max(this.maxValue, value);
    if (this.size < this.capacity) {
      if (this.size === this.values.length) this.grow();
      this.values[this.size++] = value;
    } else {
      // Each of the `seen` values ends up in the sample with the same probability capacity/seen.
      const slot = Math.floor(this.random() * this.seen);
      if (slot >= this.capacity) return;
      this.values[slot] = value;
    }
    this.sorted = false;
  }

  /** True once more values were added than are kept. */
  get sampled(): boolean {
    return this.seen > this.size;
  }

  /** The largest value ever added (exact, sampled or not). */
  get max(): number | undefined {
    return this.maxValue;
  }

  /** Nearest rank: the smallest kept value with at least p% of the values at or below it. */
  percentile(p: number): number | undefined {
    if (this.size === 0) return undefined;
    if (!this.sorted) {
      this.values.subarray(0, this.size).sort();
      this.sorted = true;
    }
    const rank = Math.ceil((p / 100) * this.size);
    return this.values[Math.min(this.size, Math.max(1, rank)) - 1];
  }

  private grow(): void {
    const next = new Float64Array(Math.min(this.capacity, this.values.length * 2));
    next.set(this.values);
    this.values = next;
  }
}
