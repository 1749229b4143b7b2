import type { AuditRecord } from '../../src/core/audit/records';
import type { ManagerToHost } from '../../src/shared/manager-protocol';
import type { TraceSpan } from '../../src/shared/trace-tree';
import { h, icon, toolbarButton } from '../common/dom';
import { renderRecordDetail } from './timeline-detail';
import { toTimelineRow } from './timeline-rows';
import { renderSpanSummary } from './trace-detail';

/** What the pane shows: a record picked in the table, or a span (and its record) picked in the trace. */
export interface DetailSubject {
  record: AuditRecord | undefined;
  span: TraceSpan | undefined;
  title: string;
}

interface TimelineDetailDeps {
  post(message: ManagerToHost): void;
  sessionId(): string;
  /** The session's start, which a span's summary counts from. */
  traceStartMs(): number;
  /** A person closed the pane. */
  onClose(): void;
}

/** A model request logged as a delta of the previous one: the host rebuilds it in full for the detail pane. */
function isDeltaRequest(record: AuditRecord | undefined): boolean {
  if (record?.type !== 'event' || record.event !== 'BeforeLLM') return false;
  const request = (record.payload as { llm_request?: unknown } | null)?.llm_request;
  return typeof request === 'object' && request !== null && 'messages_delta' in request;
}

/**
 * The timeline's detail pane: the selected record (a hook run's stdin is its event's payload)
 * and, for a span, what ran under it. A model request is logged as a delta of the one
 * before; the pane asks the host once for the request the model was sent and shows it, and
 * so does the stdin of a hook that ran on it.
 */
export class TimelineDetailPane {
  readonly el = h('aside', { class: 'tl-detail', attrs: { 'data-testid': 'timeline-detail' } });
  private shown: DetailSubject | undefined;
  /** The event record of each dispatch: a hook run's stdin is its payload. */
  private readonly events = new Map<string, AuditRecord>();
  /** Records the host sent whole on request (model requests rebuilt in full, records the list got cut), by seq. */
  private readonly fullRecords = new Map<number, AuditRecord>();
  /** Records whose long strings the host cut for the list. */
  private readonly shortened = new Set<number>();
  private readonly requested = new Set<number>();

  constructor(private readonly deps: TimelineDetailDeps) {
    this.el.hidden = true;
  }

  /** A new session: nothing shown, nothing known. */
  reset(): void {
    this.events.clear();
    this.fullRecords.clear();
    this.shortened.clear();
    this.requested.clear();
    this.shown = undefined;
    this.el.hidden = true;
  }

  /** The timeline dropped its records before `seq`: what the pane kept of them goes too. */
  forgetBefore(seq: number): void {
    for (const [id, record] of this.events) if (record.seq < seq) this.events.delete(id);
    for (const old of this.fullRecords.keys()) if (old < seq) this.fullRecords.delete(old);
    for (const old of this.shortened) if (old < seq) this.shortened.delete(old);
    for (const old of this.requested) if (old < seq) this.requested.delete(old);
  }

  /** Keeps what a later detail needs from the session's records. */
  noteRecords(records: readonly AuditRecord[]): void {
    for (const record of records) if (record.type === 'event') this.events.set(record.dispatch_id, record);
  }

  noteShortened(seqs: readonly number[]): void {
    for (const seq of seqs) this.shortened.add(seq);
  }

  show(subject: DetailSubject): void {
    this.shown = subject;
    this.render();
  }

  /** The host sent a record whole: a model request logged as a delta, or one the list got cut. */
  showFullRecord(record: AuditRecord): void {
    this.fullRecords.set(record.seq, record);
    if (this.shown) this.render();
  }

  private render(): void {
    const shown = this.shown;
    if (!shown) return;
    const record = shown.record;
    const eventOf = (dispatchId: string) => this.events.get(dispatchId);
    const full = (r: AuditRecord | undefined) => (r ? (this.fullRecords.get(r.seq) ?? r) : undefined);
    const subject = record?.type === 'hook_run' && record.input === undefined ? eventOf(record.dispatch_id) : record;
    const partial = subject !== undefined && (isDeltaRequest(subject) || this.shortened.has(subject.seq));
    const waiting = partial && !this.fullRecords.has(subject.seq);
    if (waiting && subject && !this.requested.has(subject.seq)) {
      this.requested.add(subject.seq);
      this.deps.post({ type: 'timelineDetail', sessionId: this.deps.sessionId(), seq: subject.seq });
    }
    this.el.hidden = false;
    const close = toolbarButton('close', 'Close details', () => {
      this.shown = undefined;
      this.el.hidden = true;
      this.deps.onClose();
    });
    const kindIcon = record?.type === 'hook_run' ? 'zap' : 'symbol-event';
    const shownRecord = full(record);
    this.el.replaceChildren(
      h('div', { class: 'detail-head' }, icon(kindIcon), h('strong', { text: ` ${shown.title}` }), h('span', { class: 'spacer' }), close),
      ...(shown.span ? [renderSpanSummary(shown.span, this.deps.traceStartMs())] : []),
      ...(waiting
        ? [
            h('div', {
              class: 'detail-loading',
              text: isDeltaRequest(subject) ? 'Rebuilding the full model request from the log…' : 'Reading the whole record from the log…',
              attrs: { 'data-testid': 'detail-loading' },
            }),
          ]
        : []),
      ...(shownRecord
        ? renderRecordDetail(
            toTimelineRow(shownRecord),
            (dispatchId) => (full(eventOf(dispatchId)) as { payload?: unknown } | undefined)?.payload,
            this.deps.post,
          )
        : []),
    );
  }
}
