import { FAILURE_BADGES } from '../../src/shared/decision-badge';
import type { SpanKind, TraceSpan, TraceTree } from '../../src/shared/trace-tree';
import { isFilterActive, passesFocus, recordText, type TimelineFilter } from './timeline-rows';

/** A slow run gets the "slow" colour only when it is also slow in absolute terms. */
export const SLOW_FLOOR_MS = 100;

export const SPAN_ICONS: Record<SpanKind, string> = {
  turn: 'comment-discussion',
  step: 'debug-step-over',
  model: 'sparkle',
  tool: 'tools',
  subagent: 'hubot',
  event: 'symbol-event',
  hook: 'zap',
  permission: 'shield',
  note: 'note',
};

/** A span's own duration: a hook run's as it measured it, else its extent. */
export function spanDuration(span: TraceSpan): number {
  if (span.record?.type === 'hook_run') return span.record.duration_ms;
  return Number.isFinite(span.startMs) ? Math.max(0, span.endMs - span.startMs) : 0;
}

export const isFailure = (span: TraceSpan): boolean => FAILURE_BADGES.has(span.badge);

export function isSlow(span: TraceSpan, slowMs: number): boolean {
  return span.kind === 'hook' && spanDuration(span) >= Math.max(slowMs, SLOW_FLOOR_MS);
}

/** Whether a span itself passes the filters; spans without a record (turns, steps, calls) never do. */
export function spanMatches(span: TraceSpan, filter: TimelineFilter, slowMs: number): boolean {
  const record = span.record;
  if (!record) return false;
  if (filter.event && span.event !== filter.event) return false;
  if (filter.hook && span.hookName !== filter.hook) return false;
  if (filter.decision && span.badge !== filter.decision) return false;
  if (filter.focus && !passesFocus(filter.focus, record, span.badge, slowMs)) return false;
  if (filter.text && !recordText(record).includes(filter.text.toLowerCase())) return false;
  return true;
}

/**
 * The rows the trace shows, depth first: children of a collapsed span are left out; with a
 * filter, only matching spans and the spans they sit in (for context). One pass over the tree.
 */
export function visibleSpans(tree: TraceTree, collapsed: ReadonlySet<number>, filter: TimelineFilter, slowMs: number): TraceSpan[] {
  const out: TraceSpan[] = [];
  if (!isFilterActive(filter)) {
    const visit = (spans: readonly TraceSpan[]) => {
      for (const span of spans) {
        out.push(span);
        if (span.children.length > 0 && !collapsed.has(span.id)) visit(span.children);
      }
    };
    visit(tree.roots);
    return out;
  }
  const keep = new Uint8Array(tree.size);
  const mark = (span: TraceSpan): boolean => {
    let kept = spanMatches(span, filter, slowMs);
    for (const child of span.children) if (mark(child)) kept = true;
    if (kept) keep[span.id] = 1;
    return kept;
  };
  for (const root of tree.roots) mark(root);
  const visit = (spans: readonly TraceSpan[]) => {
    for (const span of spans) {
      if (keep[span.id] === 0) continue;
      out.push(span);
      if (span.children.length > 0 && !collapsed.has(span.id)) visit(span.children);
    }
  };
  visit(tree.roots);
  return out;
}

/** Counts of what ran under a span, for the detail of a turn, step or call. */
export function spanSummary(span: TraceSpan): { hookRuns: number; failures: number; slowest: TraceSpan | undefined } {
  let hookRuns = 0;
  let failures = 0;
  let slowest: TraceSpan | undefined;
  const visit = (s: TraceSpan) => {
    if (s.kind === 'hook') {
      hookRuns++;
      if (isFailure(s)) failures++;
      if (!slowest || spanDuration(s) > spanDuration(slowest)) slowest = s;
    }
    for (const child of s.children) visit(child);
  };
  visit(span);
  return { hookRuns, failures, slowest };
}
