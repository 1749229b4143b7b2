import type { TraceSpan, TraceTree } from '../../src/shared/trace-tree';
import { formatDuration, h, setText, toolbarButton } from '../common/dom';
import { FixedRowList } from '../common/fixed-row-list';
import type { TimelineFilter } from './timeline-rows';
import { SPAN_ICONS, isFailure, isSlow, spanDuration, visibleSpans } from './trace-rows';

const ROW_HEIGHT = 24;
const INDENT_PX = 14;

/** The window of the session's clock the bars are drawn on (the whole session unless zoomed). */
interface Axis {
  start: number;
  end: number;
}

/**
 * The timeline as a waterfall: one row per span, indented by depth, with a bar placed by
 * start and duration on an axis all rows share. Turns, steps and calls collapse; a
 * double-click zooms the axis to a span. Rows are virtualized (FixedRowList), and the list
 * of rows is rebuilt from the tree only when the tree, the filters or a collapse changed.
 */
export class TraceView {
  readonly el: HTMLElement;
  private tree: TraceTree | undefined;
  private rows: TraceSpan[] = [];
  private filter: TimelineFilter | undefined;
  private slowMs = Infinity;
  private readonly collapsed = new Set<number>();
  private selected: TraceSpan | undefined;
  private zoom: Axis | undefined;
  private axis: Axis = { start: 0, end: 0 };
  private readonly list: FixedRowList<TraceSpan>;
  private readonly scroller = h('div', { class: 'tl-scroller', attrs: { tabindex: '0', 'data-testid': 'trace-scroller' } });
  private readonly axisLabels = [h('span'), h('span'), h('span')];
  private readonly zoomOut: HTMLElement;

  constructor(private readonly onSelect: (span: TraceSpan | undefined) => void) {
    this.zoomOut = toolbarButton('zoom-out', 'Show the whole session', () => this.setZoom(undefined), 'trace-zoom-out');
    this.zoomOut.hidden = true;
    const header = h(
      'div',
      { class: 'tr-row tl-header' },
      h('span', { text: 'Span' }),
      h('span', { text: 'Decision' }),
      h('span', { class: 'tr-ms', text: 'Duration' }),
      h('span', { class: 'tr-axis', attrs: { 'data-testid': 'trace-axis' } }, ...this.axisLabels, this.zoomOut),
    );
    this.list = new FixedRowList<TraceSpan>({
      scroller: this.scroller,
      rowHeight: ROW_HEIGHT,
      createRow: () => this.createRow(),
      fillRow: (row, span, index) => this.fillRow(row, span, index),
    });
    this.scroller.addEventListener('click', (event) => {
      const target = event.target as Element | null;
      const row = target?.closest<HTMLElement>('.tr-row');
      if (row?.dataset.index === undefined) return;
      const span = this.rows[Number(row.dataset.index)];
      if (target?.closest('.tr-twisty')) this.toggle(span);
      else this.select(span);
    });
    this.scroller.addEventListener('dblclick', (event) => {
      const row = (event.target as Element | null)?.closest<HTMLElement>('.tr-row');
      const span = row?.dataset.index === undefined ? undefined : this.rows[Number(row.dataset.index)];
      if (span && !(event.target as Element).closest('.tr-twisty')) this.setZoom({ start: span.startMs, end: span.endMs });
    });
    this.scroller.addEventListener('keydown', (event) => this.onKey(event));
    this.el = h(
      'div',
      { class: 'tl-table tl-view tr-view', attrs: { 'data-view': 'trace' } },
      header,
      h('div', { class: 'tl-list' }, this.scroller),
    );
  }

  get length(): number {
    return this.rows.length;
  }

  /** Shows `tree`: a new one as `setTree` does, the same one (grown, or refiltered) as `update` does. */
  show(tree: TraceTree, filter: TimelineFilter, slowMs: number, follow: boolean): void {
    if (tree === this.tree) this.update(filter, slowMs, follow);
    else this.setTree(tree, filter, slowMs);
  }

  /** A new tree (another session): expansion, zoom and selection start over. */
  setTree(tree: TraceTree, filter: TimelineFilter, slowMs: number): void {
    this.tree = tree;
    this.collapsed.clear();
    this.selected = undefined;
    this.zoom = undefined;
    this.zoomOut.hidden = true;
    this.scroller.scrollTop = 0;
    this.update(filter, slowMs, false);
  }

  /** The tree grew or the filters changed: rebuild the rows; with `follow`, a view at the end stays there. */
  update(filter: TimelineFilter, slowMs: number, follow: boolean): void {
    this.filter = filter;
    this.slowMs = slowMs;
    this.rebuild(follow);
  }

  /** Selects the span that shows record `seq`, expanding what it sits in; false when no span shows it. */
  revealSeq(seq: number): boolean {
    if (!this.tree) return false;
    for (const span of this.tree.walk()) {
      if (span.record?.seq !== seq) continue;
      for (let p = span.parent; p; p = p.parent) this.collapsed.delete(p.id);
      this.rebuild(false);
      if (!this.rows.includes(span)) return false;
      this.select(span);
      return true;
    }
    return false;
  }

  clearSelection(): void {
    this.selected = undefined;
    this.list.refresh();
  }

  private rebuild(follow: boolean): void {
    const tree = this.tree;
    if (!tree || !this.filter) return;
    this.rows = visibleSpans(tree, this.collapsed, this.filter, this.slowMs);
    this.axis = this.zoom ?? { start: tree.startMs, end: tree.endMs };
    this.fillAxis();
    this.list.setItems(this.rows, follow);
  }

  private fillAxis(): void {
    const range = this.axis.end - this.axis.start;
    const [start, middle, end] = this.axisLabels;
    setText(start, this.zoom ? `+${formatDuration(this.axis.start - (this.tree?.startMs ?? 0))}` : '0');
    setText(middle, range > 0 ? formatDuration(range / 2) : '');
    setText(end, range > 0 ? formatDuration(range) : '');
  }

  private setZoom(axis: Axis | undefined): void {
    this.zoom = axis && axis.end > axis.start ? axis : undefined;
    this.zoomOut.hidden = this.zoom === undefined;
    this.rebuild(false);
  }

  private toggle(span: TraceSpan): void {
    if (span.children.length === 0) return;
    if (!this.collapsed.delete(span.id)) this.collapsed.add(span.id);
    this.rebuild(false);
  }

  private select(span: TraceSpan | undefined): void {
    if (!span) return;
    this.selected = span;
    const index = this.rows.indexOf(span);
    if (index >= 0) this.list.scrollToIndex(index);
    this.list.refresh();
    this.onSelect(span);
  }

  private createRow(): HTMLElement {
    return h(
      'div',
      { class: 'tr-row' },
      h(
        'span',
        { class: 'tr-name' },
        h('span', { class: 'tr-twisty codicon' }),
        h('span', { class: 'tr-icon codicon' }),
        h('span', { class: 'tr-label' }),
      ),
      h('span', { class: 'tl-decision' }, h('span', { class: 'badge' })),
      h('span', { class: 'tr-ms' }),
      h('span', { class: 'tr-track' }, h('span', { class: 'tr-bar' })),
    );
  }

  private fillRow(el: HTMLElement, span: TraceSpan, index: number): void {
    const [name, decision, ms, track] = el.children as unknown as HTMLElement[];
    const [twisty, kindIcon, label] = name.children as unknown as HTMLElement[];
    const slow = isSlow(span, this.slowMs);
    el.dataset.index = String(index);
    el.dataset.kind = span.kind;
    el.dataset.spanId = String(span.id);
    if (span.record) el.dataset.seq = String(span.record.seq);
    else delete el.dataset.seq;
    el.className = `tr-row${span === this.selected ? ' is-selected' : ''}${isFailure(span) ? ' is-failure' : ''}${slow ? ' is-slow' : ''}${span.open ? ' is-open' : ''}`;
    el.setAttribute('aria-level', String(span.depth + 1));
    name.style.paddingLeft = `${span.depth * INDENT_PX}px`;
    const expandable = span.children.length > 0;
    twisty.className = `tr-twisty codicon${expandable ? ` codicon-chevron-${this.collapsed.has(span.id) ? 'right' : 'down'}` : ''}`;
    if (expandable) el.setAttribute('aria-expanded', String(!this.collapsed.has(span.id)));
    else el.removeAttribute('aria-expanded');
    kindIcon.className = `tr-icon codicon codicon-${isFailure(span) ? 'error' : slow ? 'flame' : SPAN_ICONS[span.kind]}`;
    label.textContent = span.label;
    label.title = span.label;
    const badge = decision.firstElementChild as HTMLElement;
    badge.className = `badge badge-${span.badge}`;
    badge.textContent = span.decision;
    badge.hidden = span.decision === '';
    const duration = spanDuration(span);
    const point = duration === 0 && span.children.length === 0;
    ms.textContent = point ? '' : `${formatDuration(duration)}${span.open ? '…' : ''}`;
    const bar = track.firstElementChild as HTMLElement;
    const range = this.axis.end - this.axis.start;
    const start = Number.isFinite(span.startMs) ? span.startMs : this.axis.start;
    const left = range > 0 ? ((start - this.axis.start) / range) * 100 : 0;
    const width = range > 0 ? (duration / range) * 100 : 0;
    const outside = left > 100 || left + width < 0;
    bar.hidden = outside;
    bar.className = `tr-bar bar-${span.badge}${point ? ' is-point' : ''}`;
    bar.style.left = `${Math.max(0, left)}%`;
    bar.style.width = `${Math.max(0, Math.min(100 - Math.max(0, left), width + Math.min(0, left)))}%`;
    bar.title = `${span.label}: ${formatDuration(duration)} from +${formatDuration(start - (this.tree?.startMs ?? start))}`;
  }

  private onKey(event: KeyboardEvent): void {
    const index = this.selected ? this.rows.indexOf(this.selected) : -1;
    const span = this.selected;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        const next = Math.min(this.rows.length - 1, Math.max(0, index + (event.key === 'ArrowDown' ? 1 : -1)));
        this.select(this.rows[next]);
        break;
      }
      case 'ArrowRight':
        if (span && this.collapsed.has(span.id)) this.toggle(span);
        break;
      case 'ArrowLeft':
        if (span && span.children.length > 0 && !this.collapsed.has(span.id)) this.toggle(span);
        else if (span?.parent) this.select(span.parent);
        break;
      default:
        return;
    }
    event.preventDefault();
  }
}
