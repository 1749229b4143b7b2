import { describePermission } from '../../src/shared/permission-text';
import type { AuditRecord } from '../../src/core/audit/records';

/** The badge a timeline row shows; also what the decision filter matches. */
export type DecisionBadge = 'allow' | 'block' | 'deny' | 'ask' | 'error' | 'timeout' | 'none';

export const DECISION_BADGES: readonly DecisionBadge[] = ['allow', 'block', 'deny', 'ask', 'error', 'timeout', 'none'];

/** One audit record flattened for a table row: cheap to build, since a reset builds thousands (the time is formatted only when shown). */
export interface TimelineRow {
  record: AuditRecord;
  seq: number;
  /** The hook event, or Permission / Note for records without one. */
  event: string;
  /** Hook name for hook runs (and what the hook filter matches); a short subject otherwise. */
  subject: string;
  hookName: string | undefined;
  badge: DecisionBadge;
  /** The decision as recorded (context, modify, stop, cancelled, ... show as text on a neutral badge). */
  decisionText: string;
  durationMs: number | undefined;
}

export interface TimelineFilter {
  event: string;
  hook: string;
  decision: DecisionBadge | '';
  text: string;
}

export const NO_FILTER: TimelineFilter = { event: '', hook: '', decision: '', text: '' };

function badgeFor(decision: string): DecisionBadge {
  switch (decision) {
    case 'allow':
    case 'deny':
    case 'ask':
    case 'block':
    case 'error':
    case 'timeout':
      return decision;
    case 'defer':
      return 'ask';
    default:
      return 'none';
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** HH:MM:SS.mmm in local time. */
export function formatTime(ts: string): string {
  const date = new Date(ts);
  if (Number.isNaN(date.getTime())) return ts;
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

function payloadSubject(payload: unknown): string {
  if (typeof payload !== 'object' || payload === null) return '';
  const p = payload as Record<string, unknown>;
  for (const key of ['tool_name', 'prompt', 'source', 'reason', 'message', 'trigger']) {
    const value = p[key];
    if (typeof value === 'string' && value !== '') return value.length > 120 ? `${value.slice(0, 119)}…` : value;
  }
  return '';
}

export function toTimelineRow(record: AuditRecord): TimelineRow {
  const common = { record, seq: record.seq };
  switch (record.type) {
    case 'hook_run': {
      const decision = record.status === 'timeout' ? 'timeout' : record.status === 'error' ? 'error' : record.status === 'cancelled' ? 'cancelled' : record.decision;
      return { ...common, event: record.event, subject: record.hook_name, hookName: record.hook_name, badge: badgeFor(decision), decisionText: decision, durationMs: record.duration_ms };
    }
    case 'dispatch':
      return { ...common, event: record.event, subject: `${record.hooks_run} hook${record.hooks_run === 1 ? '' : 's'}`, hookName: undefined, badge: badgeFor(record.decision), decisionText: record.decision, durationMs: record.duration_ms };
    case 'event':
      return { ...common, event: record.event, subject: payloadSubject(record.payload), hookName: undefined, badge: 'none', decisionText: '', durationMs: undefined };
    case 'permission':
      return {
        ...common,
        event: 'Permission',
        subject: `${record.tool_name} · ${describePermission(record)}`,
        hookName: undefined,
        badge: badgeFor(record.decision),
        decisionText: record.decision,
        durationMs: undefined,
      };
    case 'note':
      return { ...common, event: 'Note', subject: record.message, hookName: undefined, badge: record.level === 'error' ? 'error' : 'none', decisionText: record.level === 'info' ? '' : record.level, durationMs: undefined };
  }
}

const searchText = new WeakMap<TimelineRow, string>();

/** Whether a row passes every filter; free text matches anywhere in the record (case-insensitive). */
export function matchesFilter(row: TimelineRow, filter: TimelineFilter): boolean {
  if (filter.event && row.event !== filter.event) return false;
  if (filter.hook && row.hookName !== filter.hook) return false;
  if (filter.decision && row.badge !== filter.decision) return false;
  if (filter.text) {
    let text = searchText.get(row);
    if (text === undefined) {
      text = JSON.stringify(row.record).toLowerCase();
      searchText.set(row, text);
    }
    if (!text.includes(filter.text.toLowerCase())) return false;
  }
  return true;
}

/** The longest duration, which the duration bars are scaled to. */
export function maxDuration(rows: readonly TimelineRow[]): number {
  let max = 0;
  for (const row of rows) if (row.durationMs !== undefined && row.durationMs > max) max = row.durationMs;
  return max;
}
