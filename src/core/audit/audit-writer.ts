import { close, fdatasync, fsync, mkdirSync, open, openSync, writev, writevSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readAuditFileTail } from './audit-reader';
import { ModelRequestDeltas } from './model-request-delta';
import { PendingLines } from './pending-lines';
import type { AuditEntry, AuditRecord, AuditSink } from './records';
import { fitRecord } from './record-truncation';
import { Redactor } from './redactor';
import { toError } from '../error-message';
import { isValidSessionId } from '../session-id';

/**
 * The append-only JSONL log of one session. `append` stamps, redacts and serializes the
 * record into an off-heap buffer; everything queued during a tick goes to the file in one
 * gathered write on the next tick (group commit). The constructor reads the last seq of
 * an existing file, so numbering continues across reopen.
 */

export interface AuditWriterIo {
  /** Writes the buffers in order; resolves with the bytes written, which may be fewer. */
  writev(fd: number, buffers: Buffer[]): Promise<number>;
  writevSync(fd: number, buffers: Buffer[]): number;
  datasync(fd: number): Promise<void>;
}

export interface AuditWriterOptions {
  dir: string;
  sessionId: string;
  /** Shared so that secret values registered at runtime apply; a default one otherwise. */
  redactor?: Redactor;
  /** fdatasync after each write, so flush() means "on disk", not just "in the OS". */
  durable?: boolean;
  /** Write failures (retried on the next flush) and records that could not be queued. */
  onError?: (error: Error) => void;
  /** Called with each record once it is written. */
  onRecord?: (record: AuditRecord) => void;
  /**
   * Whether `onRecord` has anyone to tell as a record is appended (default: yes). A record
   * appended while nobody listens is serialized without the copy listeners need, and is not
   * handed to `onRecord`.
   */
  listened?: () => boolean;
  /** Larger records have their long strings shortened (default 1 MiB). */
  maxRecordBytes?: number;
  /** Replaces the file operations (tests count writes and inject failures). */
  io?: Partial<AuditWriterIo>;
  /** Milliseconds since the epoch for `ts`. */
  now?: () => number;
}

export const DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;
// Caps one write when a large backlog has built up; a tick's batch normally fits in one.
const MAX_BATCH_BYTES = 8 * 1024 * 1024;
// A single tick that queues more than this (thousands of records) is written at once,
// synchronously, so memory stays bounded however long the burst.
const SPILL_BYTES = 4 * 1024 * 1024;
/**
 * The most a writer queues while its file cannot take the records (a write failed, or one has
 * hung for STALL_MS): later records are dropped, and counted in a note once writing resumes.
 */
export const MAX_BACKLOG_BYTES = 16 * 1024 * 1024;
/** A write or sync in flight this long is a stalled disk, not a slow one. */
export const STALL_MS = 10_000;
/** Audit logs hold the session (prompts, commands, tool output) even redacted: for the user alone. */
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

const openAsync = promisify(open);
const closeAsync = promisify(close);
const defaultIo: AuditWriterIo = {
  writev: (fd, buffers) =>
    new Promise((resolve, reject) => writev(fd, buffers, (error, bytesWritten) => (error ? reject(error) : resolve(bytesWritten)))),
  writevSync,
  datasync: promisify(fdatasync),
};

export function auditFilePath(dir: string, sessionId: string): string {
  if (!isValidSessionId(sessionId))
    throw new Error(`invalid audit session id ${JSON.stringify(sessionId)}: use letters, digits, '_', '.', '-'`);
  return join(dir, `${sessionId}.jsonl`);
}

interface Batch {
  /** What is still to be written. */
  slices: Buffer[];
  count: number;
  lastSeq: number;
  /** Each record's copy for onRecord; undefined where nobody listened. */
  records: Array<AuditRecord | undefined>;
  /** Pending-line chunks to recycle once the slices are written. */
  release: Buffer[];
}

type Fields = Record<string, unknown>;

export class AuditWriter implements AuditSink {
  readonly sessionId: string;
  readonly path: string;
  private readonly dir: string;
  private readonly redactor: Redactor;
  private readonly durable: boolean;
  private readonly io: AuditWriterIo;
  private readonly maxRecordBytes: number;
  private readonly now: () => number;
  private readonly onError: ((error: Error) => void) | undefined;
  private readonly onRecord: ((record: AuditRecord) => void) | undefined;
  private readonly listened: () => boolean;

  private fd: number | undefined;
  private seq: number;
  private writtenSeq: number;
  private readonly pending = new PendingLines();
  private readonly requestDeltas = new ModelRequestDeltas();
  /** The queued records' objects, kept only when someone listens. */
  private pendingRecords: Array<AuditRecord | undefined> = [];
  /** A batch whose write failed or is in progress; it goes out before anything newer. */
  private batch: Batch | undefined;
  private appended = 0;
  /** Records in the file (and synced, when durable). */
  private written = 0;
  /** Records in the file that a durable writer has not synced yet. */
  private unsynced = 0;
  private scheduled = false;
  private draining: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private finished = false;
  /** A durable writer syncs the directory once, so that a new file's entry survives too. */
  private needsDirectorySync: boolean;
  private lastTsMs = NaN;
  /** When the write or sync in flight was issued (this.now()), if one is. */
  private writeStartedAt: number | undefined;
  /** The last write failed: nothing reaches the file until one succeeds. */
  private failing = false;
  /** Records dropped since the backlog filled, told in a note once it drains. */
  private dropped = 0;
  private lastTs = '';

  /** Throws on an invalid session id or an existing log that cannot be read. */
  constructor(options: AuditWriterOptions) {
    this.sessionId = options.sessionId;
    this.path = auditFilePath(options.dir, options.sessionId);
    this.dir = options.dir;
    this.redactor = options.redactor ?? new Redactor();
    this.durable = options.durable ?? false;
    this.io = { ...defaultIo, ...options.io };
    this.maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    this.now = options.now ?? Date.now;
    this.onError = options.onError;
    this.onRecord = options.onRecord;
    this.listened = options.listened ?? (() => true);
    this.needsDirectorySync = this.durable;
    const tail = readAuditFileTail(this.path);
    this.seq = tail.lastSeq;
    this.writtenSeq = tail.lastSeq;
    // A line cut off by a crash must not swallow the first new record.
    if (!tail.endsWithNewline) this.pending.prefix = '\n';
  }

  /** The seq of the last record known to be in the file. */
  get lastWrittenSeq(): number {
    return this.writtenSeq;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** Queues a record; never throws (problems go to `onError`). */
  append(entry: AuditEntry): void {
    if (this.closing) this.report(new Error(`audit writer for session ${this.sessionId} is closed; record dropped`));
    else this.enqueue(entry);
  }

  private enqueue(entry: AuditEntry): void {
    try {
      if (this.pending.bytes >= MAX_BACKLOG_BYTES && this.blocked()) {
        if (this.dropped++ === 0)
          this.report(new Error(`audit log ${this.path} cannot be written: records are dropped until it can (the count is logged)`));
        // The retry that finds the disk writable again clears `failing`.
        this.scheduleDrain();
        return;
      }
      this.noteDropped();
      const seq = this.seq + 1;
      const ts = this.timestamp();
      // Serialized at once, so only listeners need a copy that the caller cannot change later.
      const listened = this.onRecord !== undefined && this.listened();
      // A model request is logged as what changed since the previous one, before the
      // redactor and JSON.stringify walk it: both would otherwise cost the whole history.
      const compacted = unstamped(this.requestDeltas.compact(entry));
      const body = (listened ? this.redactor.redact(compacted) : this.redactor.redactForSerialization(compacted)) as Fields;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('audit entry is not an object; record dropped');
      this.requestDeltas.record(body);
      const bodyJson = JSON.stringify(body);
      let json = bodyJson === '{}' ? `{"seq":${seq},"ts":"${ts}"}` : `{"seq":${seq},"ts":"${ts}",${bodyJson.slice(1)}`;
      let record: Fields | undefined;
      if (json.length * 3 > this.maxRecordBytes - 1) {
        const full = { seq, ts, ...body };
        ({ json, record } = fitRecord(full, this.maxRecordBytes));
        // Shortened messages cannot be a base a reader could check: the next request is logged in full.
        if (record !== full) this.requestDeltas.reset();
      }
      this.pending.push(json);
      this.seq = seq;
      if (this.onRecord) this.pendingRecords.push(listened ? ((record ?? { seq, ts, ...body }) as AuditRecord) : undefined);
      this.appended++;
      if (this.pending.bytes >= SPILL_BYTES && !this.draining && !this.batch) this.spill();
      this.scheduleDrain();
    } catch (error) {
      this.report(error);
    }
  }

  /** Writes what is queued on the next tick (group commit). */
  private scheduleDrain(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // Failures were reported through onError; the next flush retries.
      this.drain().catch(() => undefined);
    });
  }

  /** Records dropped while the log could not be written are told in a note, once it can be again. */
  private noteDropped(): void {
    if (this.dropped === 0 || this.blocked() || this.finished) return;
    const count = this.dropped;
    this.dropped = 0;
    this.enqueue({
      type: 'note',
      session_id: this.sessionId,
      level: 'error',
      message: `${count} audit record(s) dropped: the log could not be written`,
    });
  }

  /** Resolves once everything appended before the call is written (and synced when durable). */
  async flush(): Promise<void> {
    // The backlog written first: a failing writer is blocked until a write succeeds.
    if (this.dropped > 0) await this.drain().catch(() => undefined);
    this.noteDropped();
    const target = this.appended;
    while (this.written < target && !this.finished) await this.drain();
    if (this.written < target)
      throw new Error(`audit writer for session ${this.sessionId} closed before ${target - this.written} record(s) were written`);
  }

  /** Flushes, then closes the file. Later appends are reported and dropped. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.flush();
      } finally {
        this.finished = true;
        const fd = this.fd;
        this.fd = undefined;
        if (fd !== undefined) await closeAsync(fd);
      }
    })();
    return this.closing;
  }

  /**
   * Writes what is queued, then closes the file: for a session that ended, so that a host
   * living for days keeps no file open per session. The writer stays usable: a later
   * append opens the file again and continues the numbering. Resolves with whether the
   * writer is idle (nothing appended since), so that its owner may forget it.
   */
  async release(): Promise<boolean> {
    await this.flush();
    if (this.closing || !this.idle) return false;
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) await closeAsync(fd);
    return this.idle;
  }

  private get idle(): boolean {
    return !this.scheduled && !this.draining && !this.batch && this.written === this.appended;
  }

  private drain(): Promise<void> {
    this.draining ??= this.writeAll().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async writeAll(): Promise<void> {
    try {
      while (!this.finished && (this.batch || this.pending.count > 0 || this.unsynced > 0)) {
        const fd = await this.openFile();
        if (this.batch || this.pending.count > 0) {
          const batch = (this.batch ??= this.takeBatch());
          while (batch.slices.length > 0) consume(batch.slices, await this.timed(() => this.io.writev(fd, batch.slices)));
          this.completeBatch(batch);
        }
        if (this.unsynced > 0) {
          const count = this.unsynced;
          if (this.needsDirectorySync) await syncDirectory(this.dir);
          this.needsDirectorySync = false;
          await this.timed(() => this.io.datasync(fd));
          this.unsynced -= count;
          this.written += count;
        }
      }
    } catch (error) {
      const err = toError(error);
      this.failing = true;
      this.report(err);
      throw err;
    }
  }

  /** A file operation, timed: one that does not end is a stalled disk (see blocked). */
  private async timed<T>(operation: () => Promise<T>): Promise<T> {
    this.writeStartedAt = this.now();
    // A write that is trying again is judged as any write in flight (STALL_MS); a failure sets `failing` again.
    this.failing = false;
    try {
      return await operation();
    } finally {
      this.writeStartedAt = undefined;
    }
  }

  /** Whether the file takes no records now: the last write failed, or the one in flight has hung. */
  private blocked(): boolean {
    return this.failing || (this.writeStartedAt !== undefined && this.now() - this.writeStartedAt >= STALL_MS);
  }

  /** Writes the queue now, synchronously; a failure leaves the batch for the next flush. */
  private spill(): void {
    try {
      if (this.fd === undefined) {
        mkdirSync(this.dir, { recursive: true, mode: PRIVATE_DIR });
        this.fd = openSync(this.path, 'a', PRIVATE_FILE);
      }
      while (this.pending.count > 0) {
        const batch = (this.batch = this.takeBatch());
        while (batch.slices.length > 0) consume(batch.slices, this.io.writevSync(this.fd, batch.slices));
        this.failing = false;
        this.completeBatch(batch);
      }
    } catch (error) {
      this.failing = true;
      this.report(error);
    }
  }

  private async openFile(): Promise<number> {
    if (this.fd !== undefined) return this.fd;
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR });
    this.fd = await openAsync(this.path, 'a', PRIVATE_FILE);
    return this.fd;
  }

  private takeBatch(): Batch {
    const { slices, count, release } = this.pending.take(MAX_BATCH_BYTES);
    const records = this.onRecord ? this.pendingRecords.splice(0, count) : [];
    return { slices, count, lastSeq: this.writtenSeq + count, records, release };
  }

  private completeBatch(batch: Batch): void {
    this.batch = undefined;
    this.pending.recycle(batch.release);
    if (this.durable) this.unsynced += batch.count;
    else this.written += batch.count;
    this.writtenSeq = batch.lastSeq;
    for (const record of batch.records) {
      if (record === undefined) continue;
      try {
        this.onRecord?.(record);
      } catch (error) {
        this.report(error);
      }
    }
  }

  private timestamp(): string {
    // toISOString costs about a microsecond; many records share a millisecond.
    const ms = this.now();
    if (ms !== this.lastTsMs) {
      this.lastTsMs = ms;
      this.lastTs = new Date(ms).toISOString();
    }
    return this.lastTs;
  }

  private report(error: unknown): void {
    try {
      this.onError?.(toError(error));
    } catch {
      // An error handler that throws must not break the writer or its caller.
    }
  }
}

/** Drops the first `written` bytes from `slices` (after a possibly partial write). */
function consume(slices: Buffer[], written: number): void {
  let left = written;
  while (left > 0 && slices.length > 0) {
    if (slices[0].length <= left) {
      left -= slices[0].length;
      slices.shift();
    } else {
      slices[0] = slices[0].subarray(left);
      left = 0;
    }
  }
}

/** The entry without a `seq` or `ts` of its own (the types forbid them; JavaScript callers may not know). */
function unstamped(entry: AuditEntry): object {
  if (!('seq' in entry) && !('ts' in entry)) return entry;
  const { seq: _seq, ts: _ts, ...fields } = entry as AuditEntry & { seq?: unknown; ts?: unknown };
  return fields;
}

async function syncDirectory(dir: string): Promise<void> {
  // Some platforms cannot open or fsync a directory; there the file's own fdatasync is
  // all that can be done, so those failures are not errors.
  const fd = await openAsync(dir, 'r').catch(() => undefined);
  if (fd === undefined) return;
  try {
    await promisify(fsync)(fd).catch(() => undefined);
  } finally {
    await closeAsync(fd);
  }
}
