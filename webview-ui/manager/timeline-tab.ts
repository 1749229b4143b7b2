import type { AuditRecord } from '../../src/core/audit/records';
import type { ManagerToHost } from '../../src/shared/manager-protocol';
import type { TimelineSession } from '../../src/shared/manager-views';
import type { TraceSpan } from '../../src/shared/trace-tree';
import { button, h, setText } from '../common/dom';
import { refillSelect } from './select-refill';
import { TimelineDetailPane, type DetailSubject } from './timeline-detail-pane';
import { TimelineFilterBar } from './timeline-filter-bar';
import { HeldRecords } from './timeline-held';
import { isFilterActive } from './timeline-rows';
import { TimelineTable } from './timeline-table';
import { TraceBuild } from './timeline-trace-build';
import { TimelineViewSwitch, type TimelineView } from './timeline-view-switch';
import { TraceView } from './trace-view';

/**
 * The audit timeline of one session, as a trace (a waterfall of turns, steps, model
 * requests, tool calls, events and hook runs) or as a virtualized table of every record,
 * with filters shared by both, a detail pane, export, and live appends that follow the end
 * while the view is scrolled to it. This class ties the parts together: the session and its
 * records, which view shows, and the selection both views share.
 */
export class TimelineTab {
  readonly el: HTMLElement;
  private sessionId = '';
  private lastSeq = -1;
  private view: TimelineView = 'trace';
  /** The hidden view is brought up to date when it is shown. */
  private readonly stale = new Set<TimelineView>();
  private selectedSeq: number | undefined;
  private readonly build: TraceBuild;
  private readonly filters: TimelineFilterBar;
  private readonly viewSwitch: TimelineViewSwitch;
  private readonly trace: TraceView;
  private readonly table: TimelineTable;
  private readonly detail: TimelineDetailPane;
  private readonly held = new HeldRecords();
  private readonly sessionSelect = document.createElement('vscode-single-select');
  private readonly count = h('span', { class: 'tl-count', attrs: { 'data-testid': 'timeline-count' } });
  private readonly dropped = h('span', {
    class: 'tl-count',
    text: '(the newest only: older ones were dropped; Export writes them all)',
    attrs: { 'data-testid': 'timeline-dropped' },
  });
  private readonly empty = h('div', { class: 'tl-empty', text: 'No records match.' });

  constructor(private readonly post: (message: ManagerToHost) => void) {
    this.sessionSelect.dataset.testid = 'timeline-session';
    this.sessionSelect.addEventListener('change', () => {
      const id = this.sessionSelect.value;
      if (id && id !== this.sessionId) post({ type: 'selectSession', sessionId: id });
    });
    this.build = new TraceBuild(() => {
      if (this.view === 'trace') this.showTrace(false);
      else this.stale.add('trace');
    });
    this.filters = new TimelineFilterBar(() => this.applyFilter());
    this.viewSwitch = new TimelineViewSwitch((view) => this.setView(view));
    this.trace = new TraceView((span) => this.selectSpan(span));
    this.table = new TimelineTable({
      build: this.build,
      filter: () => this.filters.filter,
      selectedSeq: () => this.selectedSeq,
      onSelect: (row) => this.select(row.seq, { record: row.record, span: undefined, title: row.subject || row.event }),
    });
    this.detail = new TimelineDetailPane({
      post,
      sessionId: () => this.sessionId,
      traceStartMs: () => this.build.tree.startMs,
      onClose: () => {
        this.selectedSeq = undefined;
        this.table.refresh();
        this.trace.clearSelection();
      },
    });
    const toolbar = h(
      'div',
      { class: 'toolbar tl-toolbar' },
      this.viewSwitch.el,
      this.sessionSelect,
      ...this.filters.controls,
      this.count,
      this.dropped,
      h('span', { class: 'spacer' }),
      button('Export', () => this.sessionId && post({ type: 'exportTimeline', sessionId: this.sessionId }), {
        icon: 'export',
        secondary: true,
        testId: 'timeline-export',
      }),
    );
    const main = h('div', { class: 'tl-main' }, this.trace.el, this.table.el, this.empty);
    this.el = h('div', { class: 'tab-panel timeline-tab' }, toolbar, h('div', { class: 'tl-body' }, main, this.detail.el));
    this.showView();
    this.refreshCount();
  }

  reset(sessionId: string, records: readonly AuditRecord[], sessions: readonly TimelineSession[], shortened: readonly number[] = []): void {
    this.sessionId = sessionId;
    this.setSessions(sessions);
    this.detail.reset();
    this.detail.noteShortened(shortened);
    this.filters.clearNames();
    this.lastSeq = -1;
    this.selectedSeq = undefined;
    this.held.reset(records);
    this.table.reset(records);
    this.noteRecords(records);
    this.build.reset(records);
    this.filters.updateOptions(true);
    this.refreshViews(false);
  }

  append(sessionId: string, records: readonly AuditRecord[], shortened: readonly number[] = []): void {
    if (sessionId !== this.sessionId) return;
    const fresh = records.filter((r) => r.seq > this.lastSeq);
    if (fresh.length === 0) return;
    this.detail.noteShortened(shortened);
    // Records are numbered by the log: a hole means some were missed, so reload the session.
    if (this.lastSeq >= 0 && fresh[0].seq !== this.lastSeq + 1) {
      this.post({ type: 'selectSession', sessionId });
      return;
    }
    const newNames = this.noteRecords(fresh);
    if (newNames) this.filters.updateOptions(false);
    const kept = this.held.append(fresh);
    if (kept) {
      // Spans cannot be taken out of a trace tree: both views are made again from the records kept.
      this.detail.forgetBefore(kept[0].seq);
      this.table.reset(kept);
      this.build.reset(kept);
    } else {
      this.build.finish();
      const tree = this.build.tree;
      const slowBefore = tree.slowThresholdMs;
      tree.add(fresh);
      this.table.append(fresh, tree.slowThresholdMs !== slowBefore);
    }
    this.refreshViews(true);
  }

  /** Shows only hook `name`'s runs (a health notification's "Show Runs"); kept across the session reset that follows. */
  showHook(name: string): void {
    this.filters.showHook(name);
  }

  setSessions(sessions: readonly TimelineSession[]): void {
    refillSelect(
      this.sessionSelect,
      sessions.map((s): [string, string] => [s.id, `${s.live ? '● ' : ''}${s.label}${s.records !== undefined ? ` (${s.records})` : ''}`]),
      this.sessionId,
    );
    this.sessionSelect.hidden = sessions.length === 0;
  }

  /** The host rebuilt a model request logged as a delta: the detail shows it whole. */
  showFullRecord(sessionId: string, record: AuditRecord): void {
    if (sessionId !== this.sessionId) return;
    this.detail.showFullRecord(record);
  }

  /** Takes the session's new records into the detail pane and the filter lists; true when they name a new event or hook. */
  private noteRecords(records: readonly AuditRecord[]): boolean {
    for (const record of records) this.lastSeq = Math.max(this.lastSeq, record.seq);
    this.detail.noteRecords(records);
    return this.filters.noteNames(records);
  }

  private showTrace(follow: boolean): void {
    const tree = this.build.tree;
    this.trace.show(tree, this.filters.filter, tree.slowThresholdMs, follow);
  }

  /** Brings the view shown up to date (the other one when it is shown), and the count. */
  private refreshViews(follow: boolean): void {
    if (this.view === 'table') {
      this.table.show(follow);
      this.stale.add('trace');
    } else {
      this.showTrace(follow);
      this.stale.add('table');
    }
    this.refreshCount();
  }

  private applyFilter(): void {
    if (this.filters.filter.focus === 'slowest') this.build.finish();
    this.table.refilter();
    this.refreshViews(false);
    if (this.view === 'table' && this.selectedSeq !== undefined) this.table.reveal(this.selectedSeq);
  }

  private setView(view: TimelineView): void {
    if (view === this.view) return;
    this.view = view;
    this.showView();
    if (this.stale.delete(view)) {
      if (view === 'table') this.table.show();
      else this.showTrace(false);
    }
    // The selection follows to the other view when it shows there.
    if (this.selectedSeq === undefined) return;
    if (view === 'trace' && this.build.pending) {
      this.build.finish();
      this.showTrace(false);
    }
    if (view === 'trace') this.trace.revealSeq(this.selectedSeq);
    else {
      this.table.reveal(this.selectedSeq);
      this.table.refresh();
    }
  }

  private showView(): void {
    this.trace.el.hidden = this.view !== 'trace';
    this.table.el.hidden = this.view !== 'table';
    this.el.setAttribute('data-view', this.view);
    this.viewSwitch.mark(this.view);
  }

  private refreshCount(): void {
    const total = this.table.total;
    const filter = this.filters.filter;
    const shown = isFilterActive(filter) ? this.table.filteredRows().length : total;
    setText(this.count, shown === total ? `${total.toLocaleString()} records` : `${shown.toLocaleString()} of ${total.toLocaleString()}`);
    this.dropped.hidden = !this.held.dropsOlder;
    this.empty.hidden = shown > 0;
    setText(
      this.empty,
      total === 0
        ? 'No records in this session yet.'
        : filter.focus === 'failures'
          ? 'No hook run failed or timed out.'
          : 'No records match the filters.',
    );
  }

  private selectSpan(span: TraceSpan | undefined): void {
    if (!span) return;
    this.select(span.record?.seq, { record: span.record, span, title: span.label });
  }

  private select(seq: number | undefined, subject: DetailSubject): void {
    this.selectedSeq = seq;
    this.detail.show(subject);
  }
}
