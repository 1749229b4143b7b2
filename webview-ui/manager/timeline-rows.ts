import { badgeFor, FAILURE_BADGES, hookRunDecision, type DecisionBadge } from '../../src/shared/decision-badge';
import { describePermission } from '../../src/shared/permission-text';
import type { AuditRecord } from '../../src/core/audit/records';

export { DECISION_BADGES, type DecisionBadge } from '../../src/shared/decision-badge';

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

/** What "Show" narrows the timeline to: everything, failed runs, or the slowest hook runs. */
export type TimelineFocus = '' | 'failures' | 'slowest';

export interface TimelineFilter {
  event: string;
  hook: string;
  decision: DecisionBadge | '';
  text: string;
  focus: TimelineFocus;
}

export const NO_FILTER: TimelineFilter = { event: '', hook: '', decision: '', text: '', focus: '' };

export function isFilterActive(f: TimelineFilter): boolean {
  return f.event !== '' || f.hook !== '' || f.decision !== '' || f.text !== '' || f.focus !== '';
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

/** What a row's Event column (and the event filter) says: the hook event, or Permission / Note for records without one. */
export function eventNameOf(record: AuditRecord): string {
  if ('event' in record) return record.event;
  if (record.type === 'permission') return 'Permission';
  if (record.type === 'note') return 'Note';
  return String(record.type);
}

export function toTimelineRow(record: AuditRecord): TimelineRow {
  const common = { record, seq: record.seq };
  switch (record.type) {
    case 'hook_run': {
      const decision = hookRunDecision(record);
      return {
        ...common,
        event: record.event,
        subject: record.hook_name,
        hookName: record.hook_name,
        badge: badgeFor(decision),
        decisionText: decision,
        durationMs: record.duration_ms,
      };
    }
    case 'dispatch':
      return {
        ...common,
        event: record.event,
        subject: `${record.hooks_run} hook${record.hooks_run === 1 ? '' : 's'}`,
        hookName: undefined,
        badge: badgeFor(record.decision),
        decisionText: record.decision,
        durationMs: record.duration_ms,
      };
    case 'event':
      return {
        ...common,
        event: record.event,
        subject: payloadSubject(record.payload),
        hookName: undefined,
        badge: 'none',
        decisionText: '',
        durationMs: undefined,
      };
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
    case 'permission_required':
      // Advisory (a PostToolUse hook's PermissionRequired): the call already ran, so no decision badge.
      return {
        ...common,
        event: 'PermissionRequired',
        subject: `${record.tool_name} · ${record.permission}`,
        hookName: record.hook_name,
        badge: 'none',
        decisionText: 'advisory',
        durationMs: undefined,
      };
    case 'note':
      return {
        ...common,
        event: 'Note',
        subject: record.message,
        hookName: undefined,
        badge: record.level === 'error' ? 'error' : 'none',
        decisionText: record.level === 'info' ? '' : record.level,
        durationMs: undefined,
      };
    default:
      // A record kind this view does not know yet (a newer log): shown by its type and subject.
      return {
        ...common,
        event: String((record as AuditRecord).type),
        subject: payloadSubject(record),
        hookName: undefined,
        badge: 'none',
        decisionText: '',
        durationMs: undefined,
      };
  }
}

const searchText = new WeakMap<AuditRecord, string>();

/** The record's JSON in lower case, made once: what the free-text filter searches. */
export function recordText(record: AuditRecord): string {
  let text = searchText.get(record);
  if (text === undefined) {
    text = JSON.stringify(record).toLowerCase();
    searchText.set(record, text);
  }
  return text;
}

/** Whether a record passes the focus: a failed run, or a hook run among the slowest (at least `slowMs` long). */
export function passesFocus(focus: TimelineFocus, record: AuditRecord | undefined, badge: DecisionBadge, slowMs: number): boolean {
  if (focus === 'failures') return FAILURE_BADGES.has(badge);
  if (focus === 'slowest') return record?.type === 'hook_run' && record.duration_ms >= slowMs;
  return true;
}

/** Whether a row passes every filter; free text matches anywhere in the record (case-insensitive). */
export function matchesFilter(row: TimelineRow, filter: TimelineFilter, slowMs = Infinity): boolean {
  if (filter.event && row.event !== filter.event) return false;
  if (filter.hook && row.hookName !== filter.hook) return false;
  if (filter.decision && row.badge !== filter.decision) return false;
  if (filter.focus && !passesFocus(filter.focus, row.record, row.badge, slowMs)) return false;
  if (filter.text && !recordText(row.record).includes(filter.text.toLowerCase())) return false;
  return true;
}

/** The longest duration, which the duration bars are scaled to. */
export function maxDuration(rows: readonly TimelineRow[]): number {
  let max = 0;
  for (const row of rows) if (row.durationMs !== undefined && row.durationMs > max) max = row.durationMs;
  return max;
}
