import type { AuditRecord } from '../../src/core/audit/records';
import { formatDuration, h } from '../common/dom';
import { FixedRowList } from '../common/fixed-row-list';
import {
  formatTime,
  isFilterActive,
  matchesFilter,
  maxDuration,
  toTimelineRow,
  type TimelineFilter,
  type TimelineRow,
} from './timeline-rows';
import type { TraceBuild } from './timeline-trace-build';
import { SLOW_FLOOR_MS } from './trace-rows';

const ROW_HEIGHT = 24;

interface TimelineTableDeps {
  /** The trace's tree knows the slowest runs ("slowest" and the slow colour are relative to them). */
  readonly build: TraceBuild;
  filter(): TimelineFilter;
  /** The record selected in either view. */
  selectedSeq(): number | undefined;
  /** A person picked a row (click or arrow key). */
  onSelect(row: TimelineRow): void;
}

/**
 * Every record of the session as a virtualized table: time, event, hook or subject,
 * decision, and a duration bar scaled to the longest run. Rows and the filtered rows are made
 * when first needed: the trace alone needs neither.
 */
export class TimelineTable {
  readonly el: HTMLElement;
  private records: AuditRecord[] = [];
  private rows: TimelineRow[] | undefined;
  private filtered: TimelineRow[] | undefined;
  private maxMs = 0;
  private readonly list: FixedRowList<TimelineRow>;
  private readonly scroller = h('div', { class: 'tl-scroller', attrs: { tabindex: '0', 'data-testid': 'timeline-scroller' } });

  constructor(private readonly deps: TimelineTableDeps) {
    const header = h(
      'div',
      { class: 'tl-row tl-header' },
      h('span', { text: 'Time' }),
      h('span', { text: 'Event' }),
      h('span', { text: 'Hook / subject' }),
      h('span', { text: 'Decision' }),
      h('span', { text: 'Duration' }),
    );
    this.list = new FixedRowList<TimelineRow>({
      scroller: this.scroller,
      rowHeight: ROW_HEIGHT,
      createRow: () => this.createRow(),
      fillRow: (row, item, index) => this.fillRow(row, item, index),
    });
    this.scroller.addEventListener('click', (event) => {
      const row = (event.target as Element | null)?.closest<HTMLElement>('.tl-row');
      if (row?.dataset.index !== undefined) this.select(Number(row.dataset.index));
    });
    this.scroller.addEventListener('keydown', (event) => this.onKey(event));
    this.el = h(
      'div',
      { class: 'tl-table tl-view', attrs: { 'data-view': 'table' } },
      header,
      h('div', { class: 'tl-list' }, this.scroller),
    );
  }

  /** Records in the session. */
  get total(): number {
    return this.records.length;
  }

  /** A new session's records. */
  reset(records: readonly AuditRecord[]): void {
    this.records = records.slice();
    this.rows = undefined;
    this.filtered = undefined;
  }

  /** Live records, already in the trace's tree; `slowChanged`: they changed which runs are the slowest. */
  append(records: readonly AuditRecord[], slowChanged: boolean): void {
    for (const record of records) this.records.push(record);
    if (!this.rows) return;
    const added = records.map(toTimelineRow);
    this.rows.push(...added);
    this.maxMs = Math.max(this.maxMs, maxDuration(added));
    // "Slowest" is relative: a slower run can push earlier ones out.
    if (this.deps.filter().focus === 'slowest' && slowChanged) this.filtered = undefined;
    else this.filtered = this.filtered?.concat(this.filterRows(added));
  }

  /** The filters changed: the filtered rows are made again when next needed. */
  refilter(): void {
    this.filtered = undefined;
  }

  filteredRows(): TimelineRow[] {
    this.filtered ??= this.filterRows(this.tableRows());
    return this.filtered;
  }

  /** Shows the filtered rows (and refills the visible ones, so bars rescale when a longer run arrived). */
  show(follow = false): void {
    this.list.setItems(this.filteredRows(), follow);
  }

  /** Scrolls to record `seq`'s row when it passes the filters. */
  reveal(seq: number): void {
    const index = this.filteredRows().findIndex((row) => row.seq === seq);
    if (index >= 0) this.list.scrollToIndex(index);
  }

  /** Refills the visible rows (the selection moved). */
  refresh(): void {
    this.list.refresh();
  }

  private tableRows(): TimelineRow[] {
    if (!this.rows) {
      this.rows = this.records.map(toTimelineRow);
      this.maxMs = maxDuration(this.rows);
    }
    return this.rows;
  }

  private filterRows(rows: TimelineRow[]): TimelineRow[] {
    const f = this.deps.filter();
    if (!isFilterActive(f)) return rows.slice();
    if (f.focus === 'slowest') this.deps.build.finish();
    const slowMs = this.deps.build.tree.slowThresholdMs;
    return rows.filter((row) => matchesFilter(row, f, slowMs));
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
    const slowMs = this.deps.build.tree.slowThresholdMs;
    el.dataset.index = String(index);
    el.dataset.seq = String(row.seq);
    el.dataset.type = row.record.type;
    el.classList.toggle('is-selected', row.seq === this.deps.selectedSeq());
    el.classList.toggle('is-failure', row.badge === 'error' || row.badge === 'timeout');
    el.classList.toggle('is-slow', row.record.type === 'hook_run' && row.record.duration_ms >= Math.max(slowMs, SLOW_FLOOR_MS));
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
    if (bar)
      bar.style.width = row.durationMs === undefined || this.maxMs === 0 ? '0' : `${Math.max(1, (row.durationMs / this.maxMs) * 100)}%`;
    if (ms) ms.textContent = row.durationMs === undefined ? '' : formatDuration(row.durationMs);
  }

  private select(index: number): void {
    const row = this.filteredRows()[index];
    if (!row) return;
    this.deps.onSelect(row);
    this.list.scrollToIndex(index);
    this.list.refresh();
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const rows = this.filteredRows();
    const selected = this.deps.selectedSeq();
    const current = selected === undefined ? -1 : rows.findIndex((row) => row.seq === selected);
    const next = Math.min(rows.length - 1, Math.max(0, current + (event.key === 'ArrowDown' ? 1 : -1)));
    this.select(next);
  }
}
