import type { AuditRecord } from '../../src/core/audit/records';
import { MAX_TIMELINE_CHARS, MAX_TIMELINE_RECORDS } from '../../src/shared/manager-protocol';

/**
 * A cut keeps this share of the cap, so that the views, made again from the records kept, are
 * rebuilt once per many appended records rather than on every append.
 */
const KEPT_AFTER_CUT = 0.9;

/**
 * The records of the session shown, the newest within the cap a reset has (live appends would
 * otherwise grow the panel's memory for as long as it is open). Older records stay in the log:
 * export writes them all.
 */
export class HeldRecords {
  private records: AuditRecord[] = [];
  /** Each record's size, measured at the first append: a reset alone is within the cap already, and shows sooner unmeasured. */
  private sizes: number[] | undefined;
  private chars = 0;

  /** Whether the session has records before the first one held (a log's records are numbered from 1). */
  get dropsOlder(): boolean {
    return this.records.length > 0 && this.records[0].seq > 1;
  }

  reset(records: readonly AuditRecord[]): void {
    this.records = records.slice();
    this.sizes = undefined;
  }

  /** Adds `records`; when that passed the cap, drops the oldest and returns the records kept (the views are made again from them). */
  append(records: readonly AuditRecord[]): AuditRecord[] | undefined {
    if (!this.sizes) {
      this.sizes = this.records.map(size);
      this.chars = this.sizes.reduce((sum, n) => sum + n, 0);
    }
    for (const record of records) {
      const n = size(record);
      this.records.push(record);
      this.sizes.push(n);
      this.chars += n;
    }
    if (this.records.length <= MAX_TIMELINE_RECORDS && this.chars <= MAX_TIMELINE_CHARS) return undefined;
    const sizes = this.sizes;
    let drop = 0;
    while (
      drop < this.records.length - 1 &&
      (this.records.length - drop > MAX_TIMELINE_RECORDS * KEPT_AFTER_CUT || this.chars > MAX_TIMELINE_CHARS * KEPT_AFTER_CUT)
    ) {
      this.chars -= sizes[drop];
      drop++;
    }
    this.records.splice(0, drop);
    sizes.splice(0, drop);
    return this.records;
  }
}

/** Measured as the host measures a reset (JSON characters). */
const size = (record: AuditRecord): number => JSON.stringify(record).length;
