import type { AuditRecord } from '../core/audit/records';
import type { SpanKind, TraceSpan } from './trace-span';

/**
 * The spans of a trace and their extents on the session's clock: a span made here has none
 * until `stretch` gives it one, and widening a span widens its ancestors and the session's
 * bounds with it. Knows nothing of records' meaning (`TraceTree` does).
 */
export class SpanForest {
  readonly roots: TraceSpan[] = [];
  /** The session's first start and last end (0 while empty). */
  startMs = 0;
  endMs = 0;
  /** Spans in the forest. */
  size = 0;
  private bounded = false;
  private nextId = 0;

  /** Every span, depth first, in the order of the tree. */
  *walk(spans: readonly TraceSpan[] = this.roots): Generator<TraceSpan> {
    for (const span of spans) {
      yield span;
      yield* this.walk(span.children);
    }
  }

  /** A new span under `parent` (at the top level without one), with no extent until `stretch` gives it one. */
  span(kind: SpanKind, label: string, parent: TraceSpan | undefined, record?: AuditRecord, event = ''): TraceSpan {
    // One object shape for every span: the tree of a long session holds tens of thousands.
    const span: TraceSpan = {
      id: this.nextId++,
      kind,
      label,
      event,
      hookName: undefined,
      parent,
      children: [],
      depth: parent ? parent.depth + 1 : 0,
      startMs: Infinity,
      endMs: -Infinity,
      open: false,
      badge: 'none',
      decision: '',
      record,
      async: false,
    };
    (parent ? parent.children : this.roots).push(span);
    this.size++;
    return span;
  }

  /** Widens a span to [start, end], and its ancestors with it unless `alone`, and the session's bounds. */
  stretch(span: TraceSpan, start: number, end: number, alone = false): void {
    for (let s: TraceSpan | undefined = span; s; s = alone ? undefined : s.parent) {
      if (start >= s.startMs && end <= s.endMs) break;
      s.startMs = Math.min(s.startMs, start);
      s.endMs = Math.max(s.endMs, end);
    }
    if (!this.bounded || start < this.startMs) this.startMs = start;
    if (!this.bounded || end > this.endMs) this.endMs = end;
    this.bounded = true;
  }

  move(span: TraceSpan, parent: TraceSpan): void {
    const siblings = span.parent ? span.parent.children : this.roots;
    siblings.splice(siblings.indexOf(span), 1);
    span.parent = parent;
    parent.children.push(span);
    for (const s of this.walk([span])) s.depth = s.parent ? s.parent.depth + 1 : 0;
    if (Number.isFinite(span.startMs)) this.stretch(parent, span.startMs, span.endMs);
  }

  close(span: TraceSpan, at: number, decision: string): void {
    span.open = false;
    if (decision !== '') span.decision = decision;
    this.stretch(span, at, at);
  }

  /** Closes a span and whatever is still open under it; `outcome` names why those never ended. */
  closeSubtree(span: TraceSpan, at: number, outcome: string): void {
    for (const s of this.walk([span])) {
      if (!s.open) continue;
      s.open = false;
      if (s !== span && s.decision === '' && outcome !== '') s.decision = outcome;
    }
    this.stretch(span, at, at);
  }
}
