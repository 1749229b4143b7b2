import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { AuditLog } from '../core/audit/audit-log';
import { STOP_READING } from '../core/audit/audit-reader';
import { ModelRequestExpander } from '../core/audit/model-request-delta';
import type { AuditRecord } from '../core/audit/records';
import { capStrings, longestString } from '../core/audit/record-truncation';
import { MAX_TIMELINE_CHARS, MAX_TIMELINE_RECORDS, type HostToManager } from '../shared/manager-protocol';
import type { TimelineSession } from '../shared/manager-views';
import { Disposable } from './lifecycle';
import { listSessions } from './session-catalog';

/**
 * The list needs a record's kind, time, names and decision: its strings are cut past this, and the
 * detail pane fetches a cut record whole when it is selected.
 */
const LISTED_STRING_CHARS = 2_048;
const APPEND_BATCH_MS = 50;

/** A record as the list gets it: strings cut, and whether they were (the detail pane then fetches it whole). */
function listedRecord(record: AuditRecord): { record: AuditRecord; cut: boolean } {
  const cut = longestString(record) > LISTED_STRING_CHARS;
  return { record: cut ? (capStrings(record, LISTED_STRING_CHARS) as AuditRecord) : record, cut };
}

/** Records as the list gets them, strings cut (listed in `shortened`). */
function listed(records: readonly AuditRecord[]): { records: AuditRecord[]; shortened: number[] } {
  const kept = records.map(listedRecord);
  return { records: kept.map((k) => k.record), shortened: kept.filter((k) => k.cut).map((k) => k.record.seq) };
}

/**
 * The newest records as the list gets them, fed in log order: at most MAX_TIMELINE_RECORDS, long
 * strings cut as they come, so a log of any size is read holding no more than the list could
 * get. Older ones are let go as newer come.
 */
class NewestListed {
  private readonly kept: Array<{ record: AuditRecord; cut: boolean }> = [];
  /** Index of the oldest kept in `kept`: dropping from the front without shifting every time. */
  private head = 0;

  add(record: AuditRecord): void {
    this.kept.push(listedRecord(record));
    if (this.kept.length - this.head > MAX_TIMELINE_RECORDS) this.head++;
    if (this.head > 1024 && this.head * 2 > this.kept.length) {
      this.kept.splice(0, this.head);
      this.head = 0;
    }
  }

  get lastSeq(): number {
    return this.kept.length > this.head ? this.kept[this.kept.length - 1].record.seq : 0;
  }

  /** The newest that fit in `maxChars` of JSON (at least one): sized only now, newest first, as few as fit. */
  result(maxChars: number): { records: AuditRecord[]; shortened: number[] } {
    let first = this.kept.length;
    let chars = 0;
    while (first > this.head) {
      chars += JSON.stringify(this.kept[first - 1].record).length;
      if (chars > maxChars && first < this.kept.length) break;
      first--;
    }
    const kept = this.kept.slice(first);
    return { records: kept.map((k) => k.record), shortened: kept.filter((k) => k.cut).map((k) => k.record.seq) };
  }
}

/**
 * The Hook Manager's Timeline: one session's audit log, then its new records as they are
 * written (batched), and the list of sessions that have a log. Starts on the live chat
 * session, else the newest one.
 */
export class TimelineFeed extends Disposable {
  private selected: string | undefined;
  private batch: AuditRecord[] = [];
  private batchTimer: NodeJS.Timeout | undefined;
  private lastSeq = 0;

  constructor(
    private readonly audit: AuditLog,
    private readonly transcriptDir: string,
    private readonly liveSessionId: () => string | undefined,
    private readonly post: (message: HostToManager) => void,
  ) {
    super();
    this._register(audit.onRecord((record, sessionId) => this.onRecord(record, sessionId)));
  }

  async sessions(): Promise<TimelineSession[]> {
    const [logs, chats] = await Promise.all([this.audit.listSessions(), listSessions(this.transcriptDir)]);
    const titles = new Map(chats.map((c) => [c.id, c]));
    const live = this.liveSessionId();
    return logs.map((log) => {
      const chat = titles.get(log.sessionId);
      const session: TimelineSession = { id: log.sessionId, label: chat?.title ?? `${log.sessionId} (${log.modified.toLocaleString()})` };
      if (chat?.startedAt) session.startedAt = chat.startedAt;
      if (log.sessionId === live) session.live = true;
      return session;
    });
  }

  /** Shows `sessionId` (default: the live session, else the newest with a log). */
  async select(sessionId?: string): Promise<void> {
    const sessions = await this.sessions();
    const id = sessionId ?? this.liveSessionId() ?? sessions[0]?.id ?? '';
    this.flushBatch();
    this.selected = id;
    const newest = new NewestListed();
    // A session picked meanwhile ends the read: its reset is the one that shows.
    if (id !== '') await this.audit.forEachRecord(id, (record) => (this.selected === id ? newest.add(record) : STOP_READING));
    if (this.selected !== id) return;
    this.lastSeq = newest.lastSeq;
    // The newest records within the Timeline's cap; export writes them all.
    this.post({ type: 'timelineReset', sessionId: id, ...newest.result(MAX_TIMELINE_CHARS), sessions });
  }

  /**
   * Record `seq` of the shown session whole: one the list got cut, or a model request, which the
   * log keeps as a delta of the one before, rebuilt from the requests before it (as `hookpilot
   * timeline --json` does). Read from the file on demand: the host holds no conversation.
   */
  async detail(sessionId: string, seq: number): Promise<void> {
    if (sessionId !== this.selected) return;
    // Reads up to the record, keeping of those before it only the conversation the requests build.
    const expander = new ModelRequestExpander();
    let record: AuditRecord | undefined;
    await this.audit.forEachRecord(sessionId, (r) => {
      if (this.selected !== sessionId) return STOP_READING;
      if (r.seq !== seq) return void expander.expand(r);
      record = expander.expand(r);
      return STOP_READING;
    });
    if (record && this.selected === sessionId) this.post({ type: 'timelineRecord', sessionId, record });
  }

  /** A session started or ended: the list changes, the shown timeline stays. */
  async refreshSessions(): Promise<void> {
    this.post({ type: 'timelineSessions', sessions: await this.sessions() });
  }

  private onRecord(record: AuditRecord, sessionId: string): void {
    if (sessionId !== this.selected) {
      // The first record of a session nobody has seen yet: it must show up in the list.
      if (record.seq === 1) void this.refreshSessions();
      return;
    }
    if (record.seq <= this.lastSeq) return;
    this.lastSeq = record.seq;
    this.batch.push(record);
    this.batchTimer ??= setTimeout(() => this.flushBatch(), APPEND_BATCH_MS);
  }

  private flushBatch(): void {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.batch.length === 0 || this.selected === undefined) return;
    const records = this.batch;
    this.batch = [];
    this.post({ type: 'timelineAppend', sessionId: this.selected, ...listed(records) });
  }

  /** Writes the session's whole audit log as JSONL where the user chooses, a record at a time as it is read. */
  async export(sessionId: string, defaultDir: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
    const fileName = `hookpilot-timeline-${sessionId}.jsonl`;
    const target = await vscode.window.showSaveDialog({
      defaultUri: defaultDir ? vscode.Uri.joinPath(defaultDir, fileName) : vscode.Uri.file(path.join(this.audit.dir, fileName)),
      filters: { 'JSON Lines': ['jsonl'] },
      saveLabel: 'Export Timeline',
      title: 'Export the hook timeline as JSONL',
    });
    if (!target) return undefined;
    const fd = openSync(target.fsPath, 'w');
    try {
      await this.audit.forEachRecord(sessionId, (record) => void writeSync(fd, `${JSON.stringify(record)}\n`));
    } finally {
      closeSync(fd);
    }
    return target;
  }

  override dispose(): void {
    clearTimeout(this.batchTimer);
    super.dispose();
  }
}
