/** One row of the benchmark table. Times are in microseconds unless `unit` says otherwise. */
export interface BenchRow {
  name: string;
  unit: string;
  p50?: number;
  p99?: number;
  /** For throughput rows: the measured value (e.g. records per second). */
  value?: number;
  target?: string;
  /** Whether the target is met; undefined when the row has no target. */
  ok?: boolean;
}

export interface BenchSuite {
  title: string;
  run(): Promise<BenchRow[]>;
}

/** p50 and p99 of samples. */
export function percentiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99) };
}
