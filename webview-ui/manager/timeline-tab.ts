import type { AuditRecord } from '../../src/core/audit/records';
import type { ManagerToHost } from '../../src/shared/manager-protocol';
import type { TimelineSession } from '../../src/shared/manager-views';
import { TraceTree, type TraceSpan } from '../../src/shared/trace-tree';
import { button, formatDuration, h, icon, setText, toolbarButton } from '../common/dom';
import { FixedRowList } from '../common/fixed-row-list';
import { fillSelect } from './select-options';
import { renderRecordDetail } from './timeline-detail';
import {
  DECISION_BADGES,
  NO_FILTER,
  eventNameOf,
  formatTime,
  isFilterActive,
  matchesFilter,
  maxDuration,
  toTimelineRow,
  type DecisionBadge,
  type TimelineFilter,
  type TimelineFocus,
  type TimelineRow,
} from './timeline-rows';
import { renderSpanSummary } from './trace-detail';
import { SLOW_FLOOR_MS } from './trace-rows';
import { TraceView } from './trace-view';

const ROW_HEIGHT = 24;
const TEXT_FILTER_DELAY_MS = 150;
/**
 * A reset builds the trace of its first records before the first paint and the rest in
 * chunks right after, so a long session shows its first screen without waiting for its end.
 */
const FIRST_TREE_RECORDS = 1_000;
const TREE_CHUNK_RECORDS = 5_000;

type TimelineView = 'trace' | 'table';
const VIEWS: ReadonlyArray<[TimelineView, string]> = [
  ['trace', 'Trace'],
  ['table', 'Table'],
];
const FOCUS_OPTIONS: ReadonlyArray<[TimelineFocus, string]> = [
  ['', 'All runs'],
  ['failures', 'Failures only'],
  ['slowest', 'Slowest hook runs'],
];

/** A model request logged as a delta of the previous one: the host rebuilds it in full for the detail pane. */
function isDeltaRequest(record: AuditRecord | undefined): boolean {
  if (record?.type !== 'event' || record.event !== 'BeforeLLM') return false;
  const request = (record.payload as { llm_request?: unknown } | null)?.llm_request;
  return typeof request === 'object' && request !== null && 'messages_delta' in request;
}

/**
 * The audit timeline of one session, as a trace (a waterfall of turns, steps, model
 * requests, tool calls, events and hook runs) or as a virtualized table of every record,
 * with filters shared by both, a detail pane, export, and live appends that follow the end
 * while the view is scrolled to it.
 */
export class TimelineTab {
  readonly el: HTMLElement;
  private sessionId = '';
  private records: AuditRecord[] = [];
  /** The table's rows and the filtered ones, made when first needed: the trace alone needs neither. */
  private rows: TimelineRow[] | undefined;
  private filtered: TimelineRow[] | undefined;
  private tree = new TraceTree();
  /** The records of a reset not in the tree yet (added in chunks). */
  private building: { records: readonly AuditRecord[]; next: number; cancel: () => void } | undefined;
  /** The event record of each dispatch: a hook run's stdin is its payload. */
  private readonly events = new Map<string, AuditRecord>();
  /** Model requests rebuilt in full by the host, by seq. */
  private readonly fullRecords = new Map<number, AuditRecord>();
  private readonly requested = new Set<number>();
  private lastSeq = -1;
  private maxMs = 0;
  private filter: TimelineFilter = { ...NO_FILTER };
  private view: TimelineView = 'trace';
  /** The hidden view is brought up to date when it is shown. */
  private readonly stale = new Set<TimelineView>();
  private selectedSeq: number | undefined;
  private shown: { record: AuditRecord | undefined; span: TraceSpan | undefined; title: string } | undefined;
  private eventNames = new Set<string>();
  private hooks = new Set<string>();
  private textTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly list: FixedRowList<TimelineRow>;
  private readonly trace: TraceView;
  private readonly table: HTMLElement;
  private readonly viewButtons = new Map<TimelineView, HTMLElement>();
  private readonly filled = new WeakMap<HTMLElement, string>();
  private readonly scroller = h('div', { class: 'tl-scroller', attrs: { tabindex: '0', 'data-testid': 'timeline-scroller' } });
  private readonly sessionSelect = document.createElement('vscode-single-select');
  private readonly eventSelect = document.createElement('vscode-single-select');
  private readonly hookSelect = document.createElement('vscode-single-select');
  private readonly decisionSelect = document.createElement('vscode-single-select');
  private readonly focusSelect = document.createElement('vscode-single-select');
  private readonly textField = document.createElement('vscode-textfield');
  private readonly count = h('span', { class: 'tl-count', attrs: { 'data-testid': 'timeline-count' } });
  private readonly detail = h('aside', { class: 'tl-detail', attrs: { 'data-testid': 'timeline-detail' } });
  private readonly empty = h('div', { class: 'tl-empty', text: 'No records match.' });

  constructor(private readonly post: (message: ManagerToHost) => void) {
    this.sessionSelect.dataset.testid = 'timeline-session';
    this.sessionSelect.addEventListener('change', () => {
      const id = this.sessionSelect.value;
      if (id && id !== this.sessionId) post({ type: 'selectSession', sessionId: id });
    });
    for (const [select, key, label] of [
      [this.eventSelect, 'event', 'Event'],
      [this.hookSelect, 'hook', 'Hook'],
      [this.decisionSelect, 'decision', 'Decision'],
      [this.focusSelect, 'focus', 'Show'],
    ] as const) {
      select.dataset.testid = `filter-${key}`;
      select.title = key === 'focus' ? 'Show every run, the failed ones, or the slowest hook runs' : `Filter by ${label.toLowerCase()}`;
      select.addEventListener('change', () => this.setFilter({ [key]: select.value }));
    }
    fillSelect(this.decisionSelect, [['', 'All decisions'], ...DECISION_BADGES.map((d): [string, string] => [d, d])], '');
    fillSelect(this.focusSelect, FOCUS_OPTIONS, '');
    this.textField.setAttribute('placeholder', 'Filter text');
    this.textField.dataset.testid = 'filter-text';
    this.textField.addEventListener('input', () => {
      clearTimeout(this.textTimer);
      this.textTimer = setTimeout(() => this.setFilter({ text: this.textField.value.trim() }), TEXT_FILTER_DELAY_MS);
    });
    const views = h('div', { class: 'tl-views', attrs: { role: 'group', 'aria-label': 'Timeline view' } });
    for (const [view, label] of VIEWS) {
      const viewButton = h('button', { class: 'tl-view-button', text: label, attrs: { type: 'button', 'data-testid': `timeline-view-${view}` }, on: { click: () => this.setView(view) } });
      this.viewButtons.set(view, viewButton);
      views.append(viewButton);
    }
    const toolbar = h(
      'div',
      { class: 'toolbar tl-toolbar' },
      views,
      this.sessionSelect,
      this.eventSelect,
      this.hookSelect,
      this.decisionSelect,
      this.focusSelect,
      this.textField,
      this.count,
      h('span', { class: 'spacer' }),
      button('Export', () => this.sessionId && post({ type: 'exportTimeline', sessionId: this.sessionId }), { icon: 'export', secondary: true, testId: 'timeline-export' }),
    );
    const header = h(
      'div',
      { class: 'tl-row tl-header' },
      h('span', { text: 'Time' }),
      h('span', { text: 'Event' }),
      h('span', { text: 'Hook / subject' }),
      h('span', { text: 'Decision' }),
      h('span', { text: 'Duration' }),
    );
    this.list = new FixedRowList<TimelineRow>({ scroller: this.scroller, rowHeight: ROW_HEIGHT, createRow: () => this.createRow(), fillRow: (row, item, index) => this.fillRow(row, item, index) });
    this.scroller.addEventListener('click', (event) => {
      const row = (event.target as Element | null)?.closest<HTMLElement>('.tl-row');
      if (row?.dataset.index !== undefined) this.select(Number(row.dataset.index));
    });
    this.scroller.addEventListener('keydown', (event) => this.onKey(event));
    this.trace = new TraceView((span) => this.selectSpan(span));
    this.table = h('div', { class: 'tl-table tl-view', attrs: { 'data-view': 'table' } }, header, h('div', { class: 'tl-list' }, this.scroller));
    this.detail.hidden = true;
    this.el = h('div', { class: 'tab-panel timeline-tab' }, toolbar, h('div', { class: 'tl-body' }, h('div', { class: 'tl-main' }, this.trace.el, this.table, this.empty), this.detail));
    this.showView();
    this.updateFilterOptions(true);
    this.refreshCount();
  }

  reset(sessionId: string, records: readonly AuditRecord[], sessions: readonly TimelineSession[]): void {
    this.sessionId = sessionId;
    this.setSessions(sessions);
    this.events.clear();
    this.fullRecords.clear();
    this.requested.clear();
    this.eventNames = new Set();
    this.hooks = new Set();
    this.records = [];
    this.rows = undefined;
    this.filtered = undefined;
    this.lastSeq = -1;
    this.selectedSeq = undefined;
    this.shown = undefined;
    this.detail.hidden = true;
    this.addRecords(records);
    this.buildTree(records);
    this.updateFilterOptions(true);
    this.refreshViews(false);
  }

  append(sessionId: string, records: readonly AuditRecord[]): void {
    if (sessionId !== this.sessionId) return;
    const fresh = records.filter((r) => r.seq > this.lastSeq);
    if (fresh.length === 0) return;
    // Records are numbered by the log: a hole means some were missed, so reload the session.
    if (this.lastSeq >= 0 && fresh[0].seq !== this.lastSeq + 1) {
      this.post({ type: 'selectSession', sessionId });
      return;
    }
    this.finishTree();
    const known = this.eventNames.size + this.hooks.size;
    const slowBefore = this.tree.slowThresholdMs;
    this.addRecords(fresh);
    this.tree.add(fresh);
    if (this.eventNames.size + this.hooks.size !== known) this.updateFilterOptions(false);
    if (this.rows) {
      const added = fresh.map(toTimelineRow);
      this.rows.push(...added);
      this.maxMs = Math.max(this.maxMs, maxDuration(added));
      // "Slowest" is relative: a slower run can push earlier ones out.
      if (this.filter.focus === 'slowest' && this.tree.slowThresholdMs !== slowBefore) this.filtered = undefined;
      else this.filtered = this.filtered?.concat(this.filterRows(added));
    }
    this.refreshViews(true);
  }

  /** Shows only hook `name`'s runs (a health notification's "Show Runs"); kept across the session reset that follows. */
  showHook(name: string): void {
    this.hooks.add(name);
    this.setFilter({ hook: name });
    this.updateFilterOptions(false);
  }

  setSessions(sessions: readonly TimelineSession[]): void {
    this.fillOnce(
      this.sessionSelect,
      sessions.map((s): [string, string] => [s.id, `${s.live ? '● ' : ''}${s.label}${s.records !== undefined ? ` (${s.records})` : ''}`]),
      this.sessionId,
    );
    this.sessionSelect.hidden = sessions.length === 0;
  }

  /** The host rebuilt a model request logged as a delta: the detail shows it whole. */
  showFullRecord(sessionId: string, record: AuditRecord): void {
    if (sessionId !== this.sessionId) return;
    this.fullRecords.set(record.seq, record);
    if (this.shown) this.renderDetail();
  }

  private addRecords(records: readonly AuditRecord[]): void {
    for (const record of records) {
      this.records.push(record);
      if (record.type === 'event') this.events.set(record.dispatch_id, record);
      this.eventNames.add(eventNameOf(record));
      if (record.type === 'hook_run') this.hooks.add(record.hook_name);
      this.lastSeq = Math.max(this.lastSeq, record.seq);
    }
  }

  private buildTree(records: readonly AuditRecord[]): void {
    this.building?.cancel();
    this.tree = new TraceTree();
    this.building = { records, next: 0, cancel: () => undefined };
    this.growTree(FIRST_TREE_RECORDS);
  }

  private growTree(count: number): void {
    const building = this.building;
    if (!building) return;
    const end = Math.min(building.records.length, building.next + count);
    this.tree.add(building.records.slice(building.next, end));
    building.next = end;
    if (end >= building.records.length) {
      this.building = undefined;
      return;
    }
    // After the next paint: a timer alone would run before it, and the first screen would wait for the whole tree.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => {
        this.growTree(TREE_CHUNK_RECORDS);
        if (this.view === 'trace') this.trace.show(this.tree, this.filter, this.tree.slowThresholdMs, false);
        else this.stale.add('trace');
      }, 0);
    });
    building.cancel = () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }

  /** What needs the whole tree (a live append, "slowest", a selection to reveal) finishes it first. */
  private finishTree(): void {
    const building = this.building;
    if (!building) return;
    building.cancel();
    this.building = undefined;
    this.tree.add(building.records.slice(building.next));
  }

  private tableRows(): TimelineRow[] {
    if (!this.rows) {
      this.rows = this.records.map(toTimelineRow);
      this.maxMs = maxDuration(this.rows);
    }
    return this.rows;
  }

  private filteredRows(): TimelineRow[] {
    this.filtered ??= this.filterRows(this.tableRows());
    return this.filtered;
  }

  /** Brings the view shown up to date (the other one when it is shown), and the count. */
  private refreshViews(follow: boolean): void {
    if (this.view === 'table') {
      // setItems refills the visible rows, so bars rescale when a longer run arrived.
      this.list.setItems(this.filteredRows(), follow);
      this.stale.add('trace');
    } else {
      this.trace.show(this.tree, this.filter, this.tree.slowThresholdMs, follow);
      this.stale.add('table');
    }
    this.refreshCount();
  }

  private filterRows(rows: TimelineRow[]): TimelineRow[] {
    const f = this.filter;
    if (!isFilterActive(f)) return rows.slice();
    if (f.focus === 'slowest') this.finishTree();
    const slowMs = this.tree.slowThresholdMs;
    return rows.filter((row) => matchesFilter(row, f, slowMs));
  }

  private updateFilterOptions(resetValues: boolean): void {
    if (resetValues) this.filter = { ...this.filter, event: this.eventNames.has(this.filter.event) ? this.filter.event : '', hook: this.hooks.has(this.filter.hook) ? this.filter.hook : '' };
    this.fillOnce(this.eventSelect, [['', 'All events'], ...[...this.eventNames].sort().map((e): [string, string] => [e, e])], this.filter.event);
    this.fillOnce(this.hookSelect, [['', 'All hooks'], ...[...this.hooks].sort().map((name): [string, string] => [name, name])], this.filter.hook);
  }

  /**
   * Refills a select only when its options or value changed: the select reads each option's
   * text back, which costs a layout per option while the rows below are new.
   */
  private fillOnce(select: HTMLElement & { value: string }, options: ReadonlyArray<readonly [string, string]>, value: string): void {
    const key = JSON.stringify([options, value]);
    if (this.filled.get(select) === key && select.value === value) return;
    this.filled.set(select, key);
    fillSelect(select, options, value);
  }

  private setFilter(change: Partial<TimelineFilter>): void {
    const next = { ...this.filter, ...change } as TimelineFilter;
    if (next.decision && !DECISION_BADGES.includes(next.decision as DecisionBadge)) next.decision = '';
    if (!FOCUS_OPTIONS.some(([focus]) => focus === next.focus)) next.focus = '';
    const same = (Object.keys(next) as Array<keyof TimelineFilter>).every((key) => next[key] === this.filter[key]);
    if (same) return;
    this.filter = next;
    this.applyFilter();
  }

  private applyFilter(): void {
    if (this.filter.focus === 'slowest') this.finishTree();
    this.filtered = undefined;
    this.refreshViews(false);
    if (this.view === 'table' && this.selectedSeq !== undefined) {
      const index = this.filteredRows().findIndex((row) => row.seq === this.selectedSeq);
      if (index >= 0) this.list.scrollToIndex(index);
    }
  }

  private setView(view: TimelineView): void {
    if (view === this.view) return;
    this.view = view;
    this.showView();
    if (this.stale.delete(view)) {
      if (view === 'table') this.list.setItems(this.filteredRows());
      else this.trace.show(this.tree, this.filter, this.tree.slowThresholdMs, false);
    }
    // The selection follows to the other view when it shows there.
    if (this.selectedSeq === undefined) return;
    if (view === 'trace' && this.building) {
      this.finishTree();
      this.trace.show(this.tree, this.filter, this.tree.slowThresholdMs, false);
    }
    if (view === 'trace') this.trace.revealSeq(this.selectedSeq);
    else {
      const index = this.filteredRows().findIndex((row) => row.seq === this.selectedSeq);
      if (index >= 0) this.list.scrollToIndex(index);
      this.list.refresh();
    }
  }

  private showView(): void {
    this.trace.el.hidden = this.view !== 'trace';
    this.table.hidden = this.view !== 'table';
    this.el.setAttribute('data-view', this.view);
    for (const [view, viewButton] of this.viewButtons) {
      viewButton.setAttribute('aria-pressed', String(view === this.view));
      viewButton.classList.toggle('is-active', view === this.view);
    }
  }

  private refreshCount(): void {
    const total = this.records.length;
    const shown = isFilterActive(this.filter) ? this.filteredRows().length : total;
    setText(this.count, shown === total ? `${total.toLocaleString()} records` : `${shown.toLocaleString()} of ${total.toLocaleString()}`);
    this.empty.hidden = shown > 0;
    setText(this.empty, total === 0 ? 'No records in this session yet.' : this.filter.focus === 'failures' ? 'No hook run failed or timed out.' : 'No records match the filters.');
  }

  private createRow(): HTMLElement {
    const bar = h('span', { class: 'tl-bar' });
    return h(
      'div',
      { class: 'tl-row' },
      h('span', { class: 'tl-time' }),
      h('span', { class: 'tl-event' }),
      h('span', { class: 'tl-subject' }),
      h('span', { class: 'tl-decision' }, h('span', { class: 'badge' })),
      h('span', { class: 'tl-duration' }, h('span', { class: 'tl-bar-track' }, bar), h('span', { class: 'tl-ms' })),
    );
  }

  private fillRow(el: HTMLElement, row: TimelineRow, index: number): void {
    const [time, event, subject, decision, duration] = el.children as unknown as HTMLElement[];
    el.dataset.index = String(index);
    el.dataset.seq = String(row.seq);
    el.dataset.type = row.record.type;
    el.classList.toggle('is-selected', row.seq === this.selectedSeq);
    el.classList.toggle('is-failure', row.badge === 'error' || row.badge === 'timeout');
    el.classList.toggle('is-slow', row.record.type === 'hook_run' && row.record.duration_ms >= Math.max(this.tree.slowThresholdMs, SLOW_FLOOR_MS));
    time.textContent = formatTime(row.record.ts);
    event.textContent = row.event;
    subject.textContent = row.subject;
    subject.title = row.subject;
    const badge = decision.firstElementChild as HTMLElement;
    badge.className = `badge badge-${row.badge}`;
    badge.textContent = row.decisionText;
    badge.hidden = row.decisionText === '';
    const bar = duration.querySelector<HTMLElement>('.tl-bar');
    const ms = duration.querySelector<HTMLElement>('.tl-ms');
    if (bar) bar.style.width = row.durationMs === undefined || this.maxMs === 0 ? '0' : `${Math.max(1, (row.durationMs / this.maxMs) * 100)}%`;
    if (ms) ms.textContent = row.durationMs === undefined ? '' : formatDuration(row.durationMs);
  }

  private select(index: number): void {
    const row = this.filteredRows()[index];
    if (!row) return;
    this.selectedSeq = row.seq;
    this.list.scrollToIndex(index);
    this.list.refresh();
    this.show({ record: row.record, span: undefined, title: row.subject || row.event });
  }

  private selectSpan(span: TraceSpan | undefined): void {
    if (!span) return;
    this.selectedSeq = span.record?.seq;
    this.show({ record: span.record, span, title: span.label });
  }

  private show(shown: NonNullable<TimelineTab['shown']>): void {
    this.shown = shown;
    this.renderDetail();
  }

  /**
   * The detail of the selected record (and span). A model request is logged as a delta of
   * the one before; it shows the request the model was sent, rebuilt by the host, and so
   * does the stdin of a hook that ran on it.
   */
  private renderDetail(): void {
    const shown = this.shown;
    if (!shown) return;
    const record = shown.record;
    const eventOf = (dispatchId: string) => this.events.get(dispatchId);
    const full = (r: AuditRecord | undefined) => (r ? (this.fullRecords.get(r.seq) ?? r) : undefined);
    const subject = record?.type === 'hook_run' && record.input === undefined ? eventOf(record.dispatch_id) : record;
    const waiting = isDeltaRequest(subject) && subject && !this.fullRecords.has(subject.seq);
    if (waiting && subject && !this.requested.has(subject.seq)) {
      this.requested.add(subject.seq);
      this.post({ type: 'timelineDetail', sessionId: this.sessionId, seq: subject.seq });
    }
    this.detail.hidden = false;
    const close = toolbarButton('close', 'Close details', () => {
      this.selectedSeq = undefined;
      this.shown = undefined;
      this.detail.hidden = true;
      this.list.refresh();
      this.trace.clearSelection();
    });
    const kindIcon = record?.type === 'hook_run' ? 'zap' : 'symbol-event';
    const shownRecord = full(record);
    this.detail.replaceChildren(
      h('div', { class: 'detail-head' }, icon(kindIcon), h('strong', { text: ` ${shown.title}` }), h('span', { class: 'spacer' }), close),
      ...(shown.span ? [renderSpanSummary(shown.span, this.tree.startMs)] : []),
      ...(waiting ? [h('div', { class: 'detail-loading', text: 'Rebuilding the full model request from the log…', attrs: { 'data-testid': 'detail-loading' } })] : []),
      ...(shownRecord ? renderRecordDetail(toTimelineRow(shownRecord), (dispatchId) => (full(eventOf(dispatchId)) as { payload?: unknown } | undefined)?.payload, this.post) : []),
    );
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const rows = this.filteredRows();
    const current = this.selectedSeq === undefined ? -1 : rows.findIndex((row) => row.seq === this.selectedSeq);
    const next = Math.min(rows.length - 1, Math.max(0, current + (event.key === 'ArrowDown' ? 1 : -1)));
    this.select(next);
  }
}
