import type { AuditRecord } from '../core/audit/records';
import type { DecisionBadge } from './decision-badge';

export type SpanKind = 'turn' | 'step' | 'model' | 'tool' | 'subagent' | 'event' | 'hook' | 'permission' | 'note';

/** One node of a session's trace (see `TraceTree`): a span with a start and an end on the session's clock. */
export interface TraceSpan {
  readonly id: number;
  kind: SpanKind;
  label: string;
  /** The hook event of the span's record ('' for turns, steps, model requests and tool calls). */
  event: string;
  /** Hook runs only. */
  hookName: string | undefined;
  parent: TraceSpan | undefined;
  children: TraceSpan[];
  depth: number;
  /** Milliseconds since the epoch. */
  startMs: number;
  endMs: number;
  /** Nothing closed it yet: still running, or the log ends before it did. */
  open: boolean;
  badge: DecisionBadge;
  /** The decision, status or outcome in words ('' when there is none). */
  decision: string;
  /** The record the detail pane shows: the event record of an event or model span, the hook run, permission or note. */
  record: AuditRecord | undefined;
  /** An `async: true` hook run: it does not stretch its parents (it ran beside them). */
  async: boolean;
}
