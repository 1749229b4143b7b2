import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { readAuditFileTail } from './audit-reader';
import type { AuditEntry, AuditRecord, AuditSink } from './records';
import { Redactor } from './redactor';

/**
 * The append-only JSONL log of one session. `append` only redacts and serializes; the
 * file write happens on the next tick for everything queued meanwhile (group commit), in
 * one write per batch. Seqs are stamped when the batch is built, after the writer has
 * read the last seq of an existing file, so numbering continues across reopen.
 */

export interface AuditWriterIo {
  /** Writes `length` bytes of `data` from `offset`; resolves with how many were written. */
  write(handle: FileHandle, data: Buffer, offset: number, length: number): Promise<number>;
  datasync(handle: FileHandle): Promise<void>;
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
  /** Larger records have their long strings shortened (default 1 MiB). */
  maxRecordBytes?: number;
  /** Replaces the file operations (tests count writes and inject failures). */
  io?: Partial<AuditWriterIo>;
  /** Milliseconds since the epoch for `ts`. */
  now?: () => number;
}

export const DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;
// Caps one write when a large backlog has built up; a tick's batch normally fits in one.
const MAX_BATCH_CHARS = 8 * 1024 * 1024;
const SESSION_ID = /^[A-Za-z0-9_.-]{1,200}$/;

const defaultIo: AuditWriterIo = {
  write: async (handle, data, offset, length) => (await handle.write(data, offset, length)).bytesWritten,
  datasync: (handle) => handle.datasync(),
};

export function isValidSessionId(sessionId: string): boolean {
  return SESSION_ID.test(sessionId) && sessionId !== '.' && sessionId !== '..';
}

export function auditFilePath(dir: string, sessionId: string): string {
  if (!isValidSessionId(sessionId)) throw new Error(`invalid audit session id ${JSON.stringify(sessionId)}: use letters, digits, '_', '.', '-'`);
  return join(dir, `${sessionId}.jsonl`);
}

interface Batch {
  data: Buffer;
  /** Bytes of `data` already in the file. */
  offset: number;
  count: number;
  lastSeq: number;
  records: AuditRecord[];
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

  private handle: FileHandle | undefined;
  private initialized = false;
  private needsNewline = false;
  private seq = 0;
  private writtenSeq = 0;
  /** Serialized records without their seq, and (only when someone listens) their objects. */
  private pendingLines: string[] = [];
  private pendingFields: Fields[] = [];
  /** A batch whose write failed or is in progress; it goes out before anything newer. */
  private batch: Batch | undefined;
  private appended = 0;
  private written = 0;
  private scheduled = false;
  private draining: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private finished = false;

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
    try {
      if (this.closing) throw new Error(`audit writer for session ${this.sessionId} is closed; record dropped`);
      const { seq: _seq, ts: _ts, ...fields } = entry as AuditEntry & { seq?: unknown; ts?: unknown };
      const redacted = this.redactor.redact({ ts: new Date(this.now()).toISOString(), ...fields }) as Fields;
      const { json, record } = fitRecord(redacted, this.maxRecordBytes);
      this.pendingLines.push(json);
      if (this.onRecord) this.pendingFields.push(record);
      this.appended++;
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          // Failures were reported through onError; the next flush retries.
          this.drain().catch(() => undefined);
        });
      }
    } catch (error) {
      this.report(error);
    }
  }

  /** Resolves once everything appended before the call is written (and synced when durable). */
  async flush(): Promise<void> {
    const target = this.appended;
    while (this.written < target && !this.finished) await this.drain();
    if (this.written < target) throw new Error(`audit writer for session ${this.sessionId} closed before ${target - this.written} record(s) were written`);
  }

  /** Flushes, then closes the file. Later appends are reported and dropped. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.flush();
      } finally {
        this.finished = true;
        const handle = this.handle;
        this.handle = undefined;
        await handle?.close();
      }
    })();
    return this.closing;
  }

  private drain(): Promise<void> {
    this.draining ??= this.writeAll().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async writeAll(): Promise<void> {
    try {
      while (!this.finished && (this.batch || this.pendingLines.length > 0)) {
        const handle = await this.openFile();
        this.batch ??= this.takeBatch();
        await this.writeBatch(handle, this.batch);
      }
    } catch (error) {
      const err = toError(error);
      this.report(err);
      throw err;
    }
  }

  private async openFile(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    await mkdir(this.dir, { recursive: true });
    const handle = await open(this.path, 'a+');
    try {
      if (!this.initialized) {
        const tail = await readAuditFileTail(handle);
        this.seq = tail.lastSeq;
        this.writtenSeq = tail.lastSeq;
        this.needsNewline = !tail.endsWithNewline;
        this.initialized = true;
        if (this.durable) await syncDirectory(this.dir);
      }
    } catch (error) {
      await handle.close();
      throw error;
    }
    this.handle = handle;
    return handle;
  }

  private takeBatch(): Batch {
    // A line cut off by a crash must not swallow the first new record.
    const parts: string[] = this.needsNewline ? ['\n'] : [];
    this.needsNewline = false;
    const records: AuditRecord[] = [];
    let chars = 0;
    let count = 0;
    while (count < this.pendingLines.length && (count === 0 || chars < MAX_BATCH_CHARS)) {
      const seq = ++this.seq;
      const json = this.pendingLines[count];
      parts.push(`{"seq":${seq},${json.slice(1)}\n`);
      if (this.onRecord) records.push({ seq, ...this.pendingFields[count] } as AuditRecord);
      chars += json.length;
      count++;
    }
    this.pendingLines.splice(0, count);
    if (this.onRecord) this.pendingFields.splice(0, count);
    return { data: Buffer.from(parts.join(''), 'utf8'), offset: 0, count, lastSeq: this.seq, records };
  }

  private async writeBatch(handle: FileHandle, batch: Batch): Promise<void> {
    while (batch.offset < batch.data.length) {
      batch.offset += await this.io.write(handle, batch.data, batch.offset, batch.data.length - batch.offset);
    }
    if (this.durable) await this.io.datasync(handle);
    this.batch = undefined;
    this.written += batch.count;
    this.writtenSeq = batch.lastSeq;
    for (const record of batch.records) {
      try {
        this.onRecord?.(record);
      } catch (error) {
        this.report(error);
      }
    }
  }

  private report(error: unknown): void {
    try {
      this.onError?.(toError(error));
    } catch {
      // An error handler that throws must not break the writer or its caller.
    }
  }
}

/** Serializes a record (without seq); one over `maxBytes` has its long strings shortened. */
export function fitRecord(record: Fields, maxBytes: number): { json: string; record: Fields } {
  // Room for the `"seq":N,` the batch splices in.
  const limit = maxBytes - 32;
  const json = JSON.stringify(record);
  if (json.length * 3 <= limit || Buffer.byteLength(json) <= limit) return { json, record };
  for (let cap = Math.floor(limit / 2); cap >= 256; cap = Math.floor(cap / 2)) {
    const capped = capStrings(record, cap) as Fields;
    const cappedJson = JSON.stringify(capped);
    if (Buffer.byteLength(cappedJson) <= limit) return { json: cappedJson, record: capped };
  }
  // The structure itself is too big (huge arrays of short strings): keep the record's
  // identity and replace its nested values with a note.
  const flat: Fields = {};
  for (const [key, value] of Object.entries(capStrings(record, 256) as Fields)) {
    flat[key] = typeof value === 'object' && value !== null ? `[truncated: ${key} too large]` : value;
  }
  return { json: JSON.stringify(flat), record: flat };
}

function capStrings(value: unknown, cap: number): unknown {
  if (typeof value === 'string') return value.length > cap ? `${value.slice(0, cap)}…[truncated ${value.length - cap} chars]` : value;
  if (Array.isArray(value)) return value.map((v: unknown) => capStrings(v, cap));
  if (typeof value === 'object' && value !== null) {
    const out: Fields = {};
    for (const [k, v] of Object.entries(value)) out[k] = capStrings(v, cap);
    return out;
  }
  return value;
}

async function syncDirectory(dir: string): Promise<void> {
  // A new file's directory entry must reach the disk too. Some platforms cannot open or
  // fsync a directory; there the file's own fdatasync is all that can be done.
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // See above: unsupported for directories on this platform.
  } finally {
    await handle.close();
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
