import type { TraceSpan } from '../../src/shared/trace-tree';
import { formatDuration, h } from '../common/dom';
import { spanDuration, spanSummary } from './trace-rows';

function field(label: string, value: string | number | undefined): HTMLElement | null {
  if (value === undefined || value === '') return null;
  return h(
    'div',
    { class: 'detail-field' },
    h('span', { class: 'detail-label', text: label }),
    h('span', { class: 'detail-value', text: String(value) }),
  );
}

const KIND_NAMES: Record<TraceSpan['kind'], string> = {
  turn: 'Turn',
  step: 'Step',
  model: 'Model request',
  tool: 'Tool call',
  subagent: 'Subagent',
  event: 'Event (one dispatch)',
  hook: 'Hook run',
  permission: 'Permission',
  note: 'Note',
};

/**
 * Where a span sits in the trace: when it started (after the session's first record), how
 * long it took, and for a turn, step or call, how many hook runs it holds, how many failed and
 * the slowest. The record's own detail (payload, output, stderr, reason) follows it.
 */
export function renderSpanSummary(span: TraceSpan, sessionStartMs: number): HTMLElement {
  const offset = span.startMs - sessionStartMs;
  const started = !Number.isFinite(offset)
    ? undefined
    : offset < 1
      ? 'at the start of the session'
      : `+${formatDuration(offset)} into the session`;
  const holdsRuns = span.kind !== 'hook' && span.children.length > 0;
  const summary = holdsRuns ? spanSummary(span) : undefined;
  return h(
    'div',
    { class: 'detail-fields', attrs: { 'data-testid': 'span-summary' } },
    field('Span', KIND_NAMES[span.kind]),
    field('Started', started),
    field('Took', `${formatDuration(spanDuration(span))}${span.open ? ' (not ended in the log)' : ''}`),
    field('Outcome', span.decision),
    summary ? field('Hook runs', summary.hookRuns) : null,
    summary && summary.failures > 0 ? field('Failed runs', summary.failures) : null,
    summary?.slowest ? field('Slowest run', `${summary.slowest.label} (${formatDuration(spanDuration(summary.slowest))})`) : null,
  );
}
