export interface VirtualListOptions<T> {
  /** The element that scrolls (overflow: auto); the list owns its children. */
  scroller: HTMLElement;
  key(item: T): string;
  /** Builds the row for `item`; `previous` is the row built for an older version of it, to update in place. */
  render(item: T, previous: HTMLElement | undefined): HTMLElement;
  /** A guess used until the row has been measured once. */
  estimateHeight(item: T): number;
  /** Pixels rendered beyond each edge of the viewport. */
  overscanPx?: number;
}

interface RenderedRow<T> {
  item: T;
  el: HTMLElement;
  /** `el` is the placeholder of a render that threw: the next version of the item starts afresh. */
  failed?: boolean;
}

/**
 * A list of variable-height rows that keeps only the visible window (plus overscan) in
 * the DOM. Heights start as estimates and are corrected by measuring each row once it is
 * rendered (and whenever it resizes); the first visible row stays put on screen while
 * estimates above it are corrected. While scrolled to the end it follows new content.
 */
export class VirtualList<T> {
  private items: readonly T[] = [];
  private readonly heights = new Map<string, number>();
  private readonly rendered = new Map<string, RenderedRow<T>>();
  private offsets = new Float64Array(1);
  private readonly topPad: HTMLElement;
  private readonly bottomPad: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly overscan: number;
  private atEnd = true;
  private frame = 0;
  private readonly resizes: ResizeObserver;

  constructor(private readonly options: VirtualListOptions<T>) {
    this.overscan = options.overscanPx ?? 600;
    const { scroller } = options;
    scroller.style.overflowAnchor = 'none';
    this.topPad = document.createElement('div');
    this.bottomPad = document.createElement('div');
    this.rows = document.createElement('div');
    this.rows.className = 'vlist-rows';
    scroller.replaceChildren(this.topPad, this.rows, this.bottomPad);
    scroller.addEventListener('scroll', () => {
      this.atEnd = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 4;
      this.schedule();
    });
    // Rows grow when their content changes (an expanded output, a font that loaded): re-measure.
    this.resizes = new ResizeObserver(() => this.schedule());
    this.resizes.observe(scroller);
  }

  setItems(items: readonly T[]): void {
    this.items = items;
    if (this.heights.size > items.length + 1000) this.pruneHeights();
    this.schedule();
  }

  /** Whether the view follows the end of the list. */
  get followsEnd(): boolean {
    return this.atEnd;
  }

  scrollToEnd(): void {
    this.atEnd = true;
    this.renderNow();
  }

  /** Renders in the next animation frame; many updates in one frame cost one render. */
  schedule(): void {
    if (this.frame === 0) this.frame = requestAnimationFrame(() => this.renderNow());
  }

  renderNow(): void {
    if (this.frame !== 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const { scroller } = this.options;
    const anchor = this.anchor();
    for (let pass = 0; pass < 4; pass++) {
      this.computeOffsets();
      const total = this.offsets[this.items.length];
      const viewport = scroller.clientHeight;
      const top = this.atEnd ? Math.max(0, total - viewport) : anchor ? this.offsets[anchor.index] + anchor.delta : scroller.scrollTop;
      const start = this.indexAt(top - this.overscan);
      const end = Math.min(this.items.length, this.indexAt(top + viewport + this.overscan) + 1);
      this.reconcile(start, end);
      this.topPad.style.height = `${this.offsets[start]}px`;
      this.bottomPad.style.height = `${total - this.offsets[end]}px`;
      const changed = this.measure(start, end);
      if (changed) this.computeOffsets();
      const target = this.atEnd
        ? scroller.scrollHeight - viewport
        : anchor
          ? this.offsets[anchor.index] + anchor.delta
          : scroller.scrollTop;
      if (Math.abs(scroller.scrollTop - target) > 0.5) {
        scroller.scrollTop = target;
      }
      if (!changed) break;
      this.topPad.style.height = `${this.offsets[start]}px`;
      this.bottomPad.style.height = `${this.offsets[this.items.length] - this.offsets[end]}px`;
    }
  }

  /** The first visible row and how far the viewport top is into it, to keep it in place. */
  private anchor(): { index: number; delta: number } | undefined {
    if (this.atEnd || this.items.length === 0 || this.offsets.length !== this.items.length + 1) return undefined;
    const top = this.options.scroller.scrollTop;
    const index = Math.min(this.items.length - 1, this.indexAt(top));
    return { index, delta: top - this.offsets[index] };
  }

  private computeOffsets(): void {
    const n = this.items.length;
    if (this.offsets.length !== n + 1) this.offsets = new Float64Array(n + 1);
    let y = 0;
    for (let i = 0; i < n; i++) {
      this.offsets[i] = y;
      const item = this.items[i];
      y += this.heights.get(this.options.key(item)) ?? this.options.estimateHeight(item);
    }
    this.offsets[n] = y;
  }

  /** The index of the row containing y (binary search over the offsets). */
  private indexAt(y: number): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid + 1] <= y) lo = mid + 1;
      else hi = mid;
    }
    return Math.min(lo, Math.max(0, this.items.length - 1));
  }

  private reconcile(start: number, end: number): void {
    const keep = new Set<string>();
    const ordered: HTMLElement[] = [];
    for (let i = start; i < end; i++) {
      const item = this.items[i];
      const key = this.options.key(item);
      keep.add(key);
      const row = this.rendered.get(key);
      if (row && row.item === item) {
        ordered.push(row.el);
        continue;
      }
      const { el, failed } = this.renderRow(item, row && !row.failed ? row.el : undefined);
      if (row && row.el !== el) this.dropRow(row.el);
      if (!row || row.el !== el) this.resizes.observe(el);
      this.rendered.set(key, { item, el, failed });
      ordered.push(el);
    }
    for (const [key, row] of this.rendered) {
      if (keep.has(key)) continue;
      this.dropRow(row.el);
      this.rendered.delete(key);
    }
    // Insert in order, moving only rows that are out of place.
    let cursor = this.rows.firstElementChild;
    for (const el of ordered) {
      if (cursor === el) cursor = el.nextElementSibling;
      else this.rows.insertBefore(el, cursor);
    }
  }

  /**
   * One row's render, its failure kept to that row: a row that throws would otherwise throw out of
   * every render while it is near the view, and the rows after it would never appear.
   */
  private renderRow(item: T, previous: HTMLElement | undefined): { el: HTMLElement; failed?: boolean } {
    try {
      return { el: this.options.render(item, previous) };
    } catch (error) {
      console.error('A list row could not be shown:', error);
      const el = document.createElement('div');
      el.className = 'vlist-row-error';
      el.textContent = `This item could not be shown (${error instanceof Error ? error.message : String(error)}).`;
      return { el, failed: true };
    }
  }

  /** Forgets heights of rows that left the list (after a new chat), so the map stays bounded. */
  private pruneHeights(): void {
    const live = new Set(this.items.map((item) => this.options.key(item)));
    for (const key of this.heights.keys()) if (!live.has(key)) this.heights.delete(key);
  }

  private dropRow(el: HTMLElement): void {
    this.resizes.unobserve(el);
    el.remove();
  }

  private measure(start: number, end: number): boolean {
    let changed = false;
    for (let i = start; i < end; i++) {
      const key = this.options.key(this.items[i]);
      const row = this.rendered.get(key);
      if (!row) continue;
      const height = row.el.offsetHeight;
      if (this.heights.get(key) !== height) {
        this.heights.set(key, height);
        changed = true;
      }
    }
    return changed;
  }
}
