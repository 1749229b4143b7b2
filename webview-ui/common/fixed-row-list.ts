export interface FixedRowListOptions<T> {
  scroller: HTMLElement;
  rowHeight: number;
  createRow(): HTMLElement;
  /** Fills a pooled row with `item`; called only when the row shows a different item or index. */
  fillRow(row: HTMLElement, item: T, index: number): void;
  overscanRows?: number;
}

interface PooledRow<T> {
  el: HTMLElement;
  item: T | undefined;
  index: number;
}

/**
 * A list of same-height rows for very long tables (the timeline): a sized spacer gives
 * the scrollbar its length, and a small pool of absolutely positioned rows is refilled
 * as the window moves. The DOM holds viewport / rowHeight + 2 * overscan rows, whatever
 * the number of items.
 */
export class FixedRowList<T> {
  private items: readonly T[] = [];
  private readonly spacer: HTMLElement;
  private readonly pool: Array<PooledRow<T>> = [];
  private readonly overscan: number;
  private frame = 0;
  private atEnd = false;

  constructor(private readonly options: FixedRowListOptions<T>) {
    this.overscan = options.overscanRows ?? 8;
    this.spacer = document.createElement('div');
    this.spacer.className = 'frl-spacer';
    this.spacer.style.position = 'relative';
    options.scroller.replaceChildren(this.spacer);
    options.scroller.addEventListener('scroll', () => {
      const s = options.scroller;
      this.atEnd = s.scrollTop + s.clientHeight >= s.scrollHeight - options.rowHeight;
      this.schedule();
    });
    new ResizeObserver(() => this.schedule()).observe(options.scroller);
  }

  /** Replaces the items; with `follow`, a view that was at the end stays at the end. */
  setItems(items: readonly T[], follow = false): void {
    const stick = follow && this.atEnd;
    this.items = items;
    for (const row of this.pool) row.item = undefined;
    this.renderNow();
    if (stick) this.scrollToIndex(items.length - 1);
  }

  get length(): number {
    return this.items.length;
  }

  scrollToIndex(index: number): void {
    const { scroller, rowHeight } = this.options;
    const top = index * rowHeight;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + rowHeight > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = top + rowHeight - scroller.clientHeight;
    this.atEnd = index >= this.items.length - 1;
    this.renderNow();
  }

  schedule(): void {
    if (this.frame === 0) this.frame = requestAnimationFrame(() => this.renderNow());
  }

  /** Re-fills every visible row (after a selection change, say). */
  refresh(): void {
    for (const row of this.pool) row.item = undefined;
    this.renderNow();
  }

  renderNow(): void {
    if (this.frame !== 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const { scroller, rowHeight } = this.options;
    this.spacer.style.height = `${this.items.length * rowHeight}px`;
    const first = Math.max(0, Math.floor(scroller.scrollTop / rowHeight) - this.overscan);
    const count = Math.min(this.items.length - first, Math.ceil(scroller.clientHeight / rowHeight) + 2 * this.overscan);
    while (this.pool.length < count) {
      const el = this.options.createRow();
      el.style.position = 'absolute';
      el.style.left = '0';
      el.style.right = '0';
      el.style.height = `${rowHeight}px`;
      this.spacer.append(el);
      this.pool.push({ el, item: undefined, index: -1 });
    }
    for (let k = 0; k < this.pool.length; k++) {
      const row = this.pool[k];
      if (k >= count) {
        if (!row.el.hidden) row.el.hidden = true;
        row.index = -1;
        continue;
      }
      // Index i lives in slot i % count, so scrolling by a row refills only the row that came in.
      const index = first + ((((k - first) % count) + count) % count);
      const item = this.items[index];
      if (row.el.hidden) row.el.hidden = false;
      if (row.item !== item || row.index !== index) {
        row.item = item;
        row.index = index;
        row.el.style.transform = `translateY(${index * rowHeight}px)`;
        this.options.fillRow(row.el, item, index);
      }
    }
  }
}
