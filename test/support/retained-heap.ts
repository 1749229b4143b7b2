import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { vi } from 'vitest';
import type { AuditLog } from '../../src/core/audit/audit-log';

/**
 * Watches what a reader of `log` holds: the heap still reachable after a full collection,
 * sampled every `every` records it reads. Returns the growth so far, in MiB, over the heap
 * when it was called.
 */
export function watchRetainedHeap(log: AuditLog, every = 32): () => number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const retained = () => (gc(), process.memoryUsage().heapUsed);
  const before = retained();
  let peak = before;
  const read = log.forEachRecord.bind(log);
  vi.spyOn(log, 'forEachRecord').mockImplementation((id, onRecord) =>
    read(id, (record) => {
      if (record.seq % every === 0) peak = Math.max(peak, retained());
      return onRecord(record);
    }),
  );
  return () => (peak - before) / 2 ** 20;
}
