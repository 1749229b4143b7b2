import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { forEachAuditRecord, type AuditReadProblem, type AuditReadResult } from './audit-reader';
import { auditFilePath, AuditWriter, type AuditWriterOptions } from './audit-writer';
import { isValidSessionId } from '../session-id';
import type { AuditRecord } from './records';
import { Redactor } from './redactor';
import type { Disposable } from '../events-emitter';
import { toError } from '../error-message';

/**
 * The audit directory: one JSONL file per session, one writer per session (shared by
 * everyone who asks), and a live feed of written records for the timeline view.
 */

export interface AuditLogOptions {
  dir: string;
  /** Shared by all writers, so a secret registered once is redacted in every session. */
  redactor?: Redactor;
  durable?: boolean;
  onError?: (error: Error, sessionId: string) => void;
  maxRecordBytes?: number;
  io?: AuditWriterOptions['io'];
}

export interface AuditSessionInfo {
  sessionId: string;
  file: string;
  sizeBytes: number;
  modified: Date;
}

export type AuditRecordListener = (record: AuditRecord, sessionId: string) => void;

export class AuditLog {
  readonly dir: string;
  readonly redactor: Redactor;
  private readonly options: AuditLogOptions;
  private readonly writers = new Map<string, AuditWriter>();
  private readonly listeners = new Set<AuditRecordListener>();

  constructor(options: AuditLogOptions) {
    this.options = options;
    this.dir = options.dir;
    this.redactor = options.redactor ?? new Redactor();
  }

  /** The session's writer; the same instance until it is closed. Throws on an invalid session id. */
  writerFor(sessionId: string): AuditWriter {
    const existing = this.writers.get(sessionId);
    if (existing && !existing.closed) return existing;
    const writer = new AuditWriter({
      dir: this.dir,
      sessionId,
      redactor: this.redactor,
      durable: this.options.durable,
      maxRecordBytes: this.options.maxRecordBytes,
      io: this.options.io,
      onError: (error) => this.options.onError?.(error, sessionId),
      onRecord: (record) => this.emit(record, sessionId),
      listened: () => this.listeners.size > 0,
    });
    this.writers.set(sessionId, writer);
    return writer;
  }

  /** Sessions with a log file, most recently modified first. */
  async listSessions(): Promise<AuditSessionInfo[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const sessions: AuditSessionInfo[] = [];
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      const sessionId = name.slice(0, -'.jsonl'.length);
      if (!isValidSessionId(sessionId)) continue;
      const file = join(this.dir, name);
      const info = await stat(file).catch(() => undefined);
      if (info?.isFile()) sessions.push({ sessionId, file, sizeBytes: info.size, modified: info.mtime });
    }
    return sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime() || a.sessionId.localeCompare(b.sessionId));
  }

  /**
   * Hands the session's records as on disk to `onRecord` one at a time, after flushing its
   * writer (see forEachAuditRecord); an unknown session has none.
   */
  async forEachRecord(sessionId: string, onRecord: (record: AuditRecord) => unknown): Promise<AuditReadProblem[]> {
    const file = auditFilePath(this.dir, sessionId);
    const writer = this.writers.get(sessionId);
    // A failed flush was already reported through onError; read what did reach the file.
    if (writer && !writer.closed) await writer.flush().catch(() => undefined);
    try {
      return await forEachAuditRecord(file, onRecord);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** The session's records as on disk, all in memory: for a small log; a timeline uses forEachRecord. */
  async read(sessionId: string): Promise<AuditReadResult> {
    const records: AuditRecord[] = [];
    const problems = await this.forEachRecord(sessionId, (record) => void records.push(record));
    return { records, problems };
  }

  /** Called for every record appended after it subscribed, once it is written, in any session. */
  onRecord(listener: AuditRecordListener): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  async flush(): Promise<void> {
    await Promise.all([...this.writers.values()].filter((w) => !w.closed).map((w) => w.flush()));
  }

  /**
   * Releases an ended session's writer: a host that lives for days must not keep a file and a
   * line buffer open per session. The writer stays this log's until its records are written,
   * so that `close()` waits for them and a late record continues its numbering; it is
   * forgotten once idle, and a later record opens the file again, after its last seq.
   */
  async closeSession(sessionId: string): Promise<void> {
    const writer = this.writers.get(sessionId);
    if (!writer) return;
    const idle = await writer.release().catch((error: unknown) => {
      this.options.onError?.(toError(error), sessionId);
      return false;
    });
    // A writer that took records meanwhile serves a session in use again: it stays.
    if (idle && this.writers.get(sessionId) === writer) this.writers.delete(sessionId);
  }

  async close(): Promise<void> {
    const writers = [...this.writers.values()];
    this.writers.clear();
    const results = await Promise.allSettled(writers.map((w) => w.close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private emit(record: AuditRecord, sessionId: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(record, sessionId);
      } catch (error) {
        this.options.onError?.(toError(error), sessionId);
      }
    }
  }
}
