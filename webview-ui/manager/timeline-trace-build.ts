import type { AuditRecord } from '../../src/core/audit/records';
import { TraceTree } from '../../src/shared/trace-tree';

/**
 * A reset builds the trace of its first records before the first paint and the rest in
 * chunks right after, so a long session shows its first screen without waiting for its end.
 */
const FIRST_TREE_RECORDS = 1_000;
const TREE_CHUNK_RECORDS = 5_000;

/** The trace tree of the session shown, built in chunks after a reset (see above); `onChunk` runs after each later chunk. */
export class TraceBuild {
  private current = new TraceTree();
  /** The records of a reset not in the tree yet. */
  private building: { records: readonly AuditRecord[]; next: number; cancel: () => void } | undefined;

  constructor(private readonly onChunk: () => void) {}

  get tree(): TraceTree {
    return this.current;
  }

  /** Whether records of the last reset are still to be added. */
  get pending(): boolean {
    return this.building !== undefined;
  }

  /** Starts a new tree of `records`: the first chunk now, the rest after the next paint. */
  reset(records: readonly AuditRecord[]): void {
    this.building?.cancel();
    this.current = new TraceTree();
    this.building = { records, next: 0, cancel: () => undefined };
    this.grow(FIRST_TREE_RECORDS);
  }

  /** What needs the whole tree (a live append, "slowest", a selection to reveal) finishes it first. */
  finish(): void {
    const building = this.building;
    if (!building) return;
    building.cancel();
    this.building = undefined;
    this.current.add(building.records.slice(building.next));
  }

  private grow(count: number): void {
    const building = this.building;
    if (!building) return;
    const end = Math.min(building.records.length, building.next + count);
    this.current.add(building.records.slice(building.next, end));
    building.next = end;
    if (end >= building.records.length) {
      this.building = undefined;
      return;
    }
    // After the next paint: a timer alone would run before it, and the first screen would wait for the whole tree.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => {
        this.grow(TREE_CHUNK_RECORDS);
        this.onChunk();
      }, 0);
    });
    building.cancel = () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }
}
