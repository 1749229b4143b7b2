import type { AuditRecord } from '../../src/core/audit/records';
import type { ManagerToHost } from '../../src/shared/manager-protocol';
import type { TimelineSession } from '../../src/shared/manager-views';
import { button, formatDuration, h, icon, setText, toolbarButton } from '../common/dom';
import { FixedRowList } from '../common/fixed-row-list';
import { fillSelect } from './select-options';
import { renderRecordDetail } from './timeline-detail';
import { DECISION_BADGES, NO_FILTER, formatTime, matchesFilter, maxDuration, toTimelineRow, type DecisionBadge, type TimelineFilter, type TimelineRow } from './timeline-rows';

const ROW_HEIGHT = 24;
const TEXT_FILTER_DELAY_MS = 150;

/**
 * The audit timeline of one session: a virtualized table of every event, hook run,
 * dispatch, permission decision and note, with filters, a detail pane, export and live
 * appends that follow the end while the view is scrolled to it.
 */
export class TimelineTab {
  readonly el: HTMLElement;
  private sessionId = '';
  private rows: TimelineRow[] = [];
  private filtered: TimelineRow[] = [];
  private readonly payloads = new Map<string, unknown>();
  private lastSeq = -1;
  private maxMs = 0;
  private filter: TimelineFilter = { ...NO_FILTER };
  private selectedSeq: number | undefined;
  private events = new Set<string>();
  private hooks = new Set<string>();
  private textTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly list: FixedRowList<TimelineRow>;
  private readonly scroller = h('div', { class: 'tl-scroller', attrs: { tabindex: '0', 'data-testid': 'timeline-scroller' } });
  private readonly sessionSelect = document.createElement('vscode-single-select');
  private readonly eventSelect = document.createElement('vscode-single-select');
  private readonly hookSelect = document.createElement('vscode-single-select');
  private readonly decisionSelect = document.createElement('vscode-single-select');
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
    ] as const) {
      select.dataset.testid = `filter-${key}`;
      select.title = `Filter by ${label.toLowerCase()}`;
      select.addEventListener('change', () => this.setFilter({ [key]: select.value }));
    }
    fillSelect(this.decisionSelect, [['', 'All decisions'], ...DECISION_BADGES.map((d): [string, string] => [d, d])], '');
    this.textField.setAttribute('placeholder', 'Filter text');
    this.textField.dataset.testid = 'filter-text';
    this.textField.addEventListener('input', () => {
      clearTimeout(this.textTimer);
      this.textTimer = setTimeout(() => this.setFilter({ text: this.textField.value.trim() }), TEXT_FILTER_DELAY_MS);
    });
    const toolbar = h(
      'div',
      { class: 'toolbar tl-toolbar' },
      this.sessionSelect,
      this.eventSelect,
      this.hookSelect,
      this.decisionSelect,
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
    this.detail.hidden = true;
    this.el = h('div', { class: 'tab-panel timeline-tab' }, toolbar, h('div', { class: 'tl-body' }, h('div', { class: 'tl-table' }, header, h('div', { class: 'tl-list' }, this.scroller, this.empty)), this.detail));
    this.updateFilterOptions(true);
    this.refreshCount();
  }

  reset(sessionId: string, records: readonly AuditRecord[], sessions: readonly TimelineSession[]): void {
    this.sessionId = sessionId;
    this.setSessions(sessions);
    this.payloads.clear();
    this.events = new Set();
    this.hooks = new Set();
    this.rows = [];
    this.lastSeq = -1;
    this.selectedSeq = undefined;
    this.detail.hidden = true;
    this.addRecords(records);
    this.maxMs = maxDuration(this.rows);
    this.updateFilterOptions(true);
    this.applyFilter(false);
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
    const before = this.rows.length;
    const known = this.events.size + this.hooks.size;
    this.addRecords(fresh);
    const added = this.rows.slice(before);
    const longest = maxDuration(added);
    if (this.events.size + this.hooks.size !== known) this.updateFilterOptions(false);
    if (longest > this.maxMs) this.maxMs = longest;
    this.filtered = this.filtered.concat(added.filter((row) => matchesFilter(row, this.filter)));
    // setItems refills the visible rows, so bars rescale when a longer run arrived.
    this.list.setItems(this.filtered, true);
    this.refreshCount();
  }

  /** Shows only hook `name`'s runs (a health notification's "Show Runs"); kept across the session reset that follows. */
  showHook(name: string): void {
    this.hooks.add(name);
    this.setFilter({ hook: name });
    this.updateFilterOptions(false);
  }

  setSessions(sessions: readonly TimelineSession[]): void {
    fillSelect(
      this.sessionSelect,
      sessions.map((s): [string, string] => [s.id, `${s.live ? '● ' : ''}${s.label}${s.records !== undefined ? ` (${s.records})` : ''}`]),
      this.sessionId,
    );
    this.sessionSelect.hidden = sessions.length === 0;
  }

  private addRecords(records: readonly AuditRecord[]): void {
    for (const record of records) {
      const row = toTimelineRow(record);
      this.rows.push(row);
      if (record.type === 'event') this.payloads.set(record.dispatch_id, record.payload);
      if (row.event) this.events.add(row.event);
      if (row.hookName) this.hooks.add(row.hookName);
      this.lastSeq = Math.max(this.lastSeq, record.seq);
    }
  }

  private updateFilterOptions(resetValues: boolean): void {
    if (resetValues) this.filter = { ...this.filter, event: this.events.has(this.filter.event) ? this.filter.event : '', hook: this.hooks.has(this.filter.hook) ? this.filter.hook : '' };
    fillSelect(this.eventSelect, [['', 'All events'], ...[...this.events].sort().map((e): [string, string] => [e, e])], this.filter.event);
    fillSelect(this.hookSelect, [['', 'All hooks'], ...[...this.hooks].sort().map((name): [string, string] => [name, name])], this.filter.hook);
  }

  private setFilter(change: Partial<TimelineFilter>): void {
    const next = { ...this.filter, ...change } as TimelineFilter;
    if (next.decision && !DECISION_BADGES.includes(next.decision as DecisionBadge)) next.decision = '';
    if (next.event === this.filter.event && next.hook === this.filter.hook && next.decision === this.filter.decision && next.text === this.filter.text) return;
    this.filter = next;
    this.applyFilter(true);
  }

  private applyFilter(keepSelection: boolean): void {
    const f = this.filter;
    const active = f.event !== '' || f.hook !== '' || f.decision !== '' || f.text !== '';
    this.filtered = active ? this.rows.filter((row) => matchesFilter(row, f)) : this.rows.slice();
    this.list.setItems(this.filtered);
    if (keepSelection && this.selectedSeq !== undefined) {
      const index = this.filtered.findIndex((row) => row.seq === this.selectedSeq);
      if (index >= 0) this.list.scrollToIndex(index);
    }
    this.refreshCount();
  }

  private refreshCount(): void {
    const total = this.rows.length;
    setText(this.count, this.filtered.length === total ? `${total.toLocaleString()} records` : `${this.filtered.length.toLocaleString()} of ${total.toLocaleString()}`);
    this.empty.hidden = this.filtered.length > 0;
    setText(this.empty, total === 0 ? 'No records in this session yet.' : 'No records match the filters.');
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
    const row = this.filtered[index];
    if (!row) return;
    this.selectedSeq = row.seq;
    this.list.scrollToIndex(index);
    this.list.refresh();
    this.detail.hidden = false;
    const close = toolbarButton('close', 'Close details', () => {
      this.selectedSeq = undefined;
      this.detail.hidden = true;
      this.list.refresh();
    });
    this.detail.replaceChildren(
      h('div', { class: 'detail-head' }, icon(row.record.type === 'hook_run' ? 'zap' : 'symbol-event'), h('strong', { text: ` ${row.subject || row.event}` }), h('span', { class: 'spacer' }), close),
      ...renderRecordDetail(row, (dispatchId) => this.payloads.get(dispatchId)),
    );
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const current = this.selectedSeq === undefined ? -1 : this.filtered.findIndex((row) => row.seq === this.selectedSeq);
    const next = Math.min(this.filtered.length - 1, Math.max(0, current + (event.key === 'ArrowDown' ? 1 : -1)));
    this.select(next);
  }
}
