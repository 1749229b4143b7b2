import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import type { AuditLog } from '../core/audit/audit-log';
import { expandModelRequests } from '../core/audit/model-request-delta';
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

/** Records as the list gets them, strings cut (listed in `shortened`), the newest first kept within `maxBytes`. */
function listed(records: readonly AuditRecord[], maxBytes = Infinity): { records: AuditRecord[]; shortened: number[] } {
  const kept: AuditRecord[] = [];
  const shortened: number[] = [];
  let bytes = 0;
  for (let i = records.length - 1; i >= 0 && kept.length < MAX_TIMELINE_RECORDS; i--) {
    const cut = longestString(records[i]) > LISTED_STRING_CHARS;
    const record = cut ? (capStrings(records[i], LISTED_STRING_CHARS) as AuditRecord) : records[i];
    // Measured only against a cap: a live batch has none, and the post serializes it anyway.
    if (maxBytes !== Infinity) bytes += JSON.stringify(record).length;
    if (bytes > maxBytes && kept.length > 0) break;
    kept.push(record);
    if (cut) shortened.push(record.seq);
  }
  return { records: kept.reverse(), shortened: shortened.reverse() };
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
    const { records } = id === '' ? { records: [] } : await this.audit.read(id);
    if (this.selected !== id) return;
    this.lastSeq = records.at(-1)?.seq ?? 0;
    // The newest records within the Timeline's cap; export writes them all.
    this.post({ type: 'timelineReset', sessionId: id, ...listed(records, MAX_TIMELINE_CHARS), sessions });
  }

  /**
   * Record `seq` of the shown session whole: one the list got cut, or a model request, which the
   * log keeps as a delta of the one before, rebuilt from the requests before it (as `hookpilot
   * timeline --json` does). Read from the file on demand: the host holds no conversation.
   */
  async detail(sessionId: string, seq: number): Promise<void> {
    if (sessionId !== this.selected) return;
    const { records } = await this.audit.read(sessionId);
    const index = records.findIndex((r) => r.seq === seq);
    if (index < 0 || this.selected !== sessionId) return;
    const chain = records.slice(0, index).filter((r) => r.type === 'event' && r.event === 'BeforeLLM');
    const record = expandModelRequests([...chain, records[index]]).at(-1);
    if (record) this.post({ type: 'timelineRecord', sessionId, record });
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

  /** Writes the session's whole audit log as JSONL where the user chooses. */
  async export(sessionId: string, defaultDir: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
    const { records } = await this.audit.read(sessionId);
    const fileName = `hookpilot-timeline-${sessionId}.jsonl`;
    const target = await vscode.window.showSaveDialog({
      defaultUri: defaultDir ? vscode.Uri.joinPath(defaultDir, fileName) : vscode.Uri.file(path.join(this.audit.dir, fileName)),
      filters: { 'JSON Lines': ['jsonl'] },
      saveLabel: 'Export Timeline',
      title: 'Export the hook timeline as JSONL',
    });
    if (!target) return undefined;
    await writeFile(target.fsPath, records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : ''));
    return target;
  }

  override dispose(): void {
    clearTimeout(this.batchTimer);
    super.dispose();
  }
}
