import type { AuditRecord } from './records';

/** Filters for the hook timeline. Every given filter must match; arrays mean "any of". */
export interface AuditQuery {
  /** Event name (records without an event, like `permission` and `note`, never match). */
  event?: string | string[];
  /** Hook id or hook name (only `hook_run` records match). */
  hook?: string;
  /** allow, deny, ask, block, ... (records without a decision never match). */
  decision?: string | string[];
  type?: AuditRecord['type'] | Array<AuditRecord['type']>;
  /** Case-insensitive substring of the record's JSON. */
  text?: string;
  /** Only records with a seq greater than this (for paging forward / live catch-up). */
  sinceSeq?: number;
  /** At most this many records, the first in seq order. */
  limit?: number;
}

export interface SessionSummary {
  sessionId: string | undefined;
  records: number;
  byType: Record<string, number>;
  /** `event` records by event name. */
  byEvent: Record<string, number>;
  /** `hook_run` records by decision. */
  byDecision: Record<string, number>;
  /** `permission` records by decision. */
  permissions: Record<string, number>;
  /** `hook_run` records whose status was error or timeout. */
  hookFailures: number;
  firstSeq: number | undefined;
  lastSeq: number | undefined;
  firstTs: string | undefined;
  lastTs: string | undefined;
}

const anyOf = <T>(filter: T | T[] | undefined): T[] | undefined =>
  filter === undefined ? undefined : Array.isArray(filter) ? filter : [filter];

export function queryAudit(records: readonly AuditRecord[], query: AuditQuery = {}): AuditRecord[] {
  const events = anyOf(query.event);
  const decisions = anyOf(query.decision);
  const types = anyOf(query.type);
  const text = query.text?.toLowerCase();
  const limit = query.limit ?? Infinity;
  const out: AuditRecord[] = [];
  for (const record of records) {
    if (out.length >= limit) break;
    if (query.sinceSeq !== undefined && record.seq <= query.sinceSeq) continue;
    if (types && !types.includes(record.type)) continue;
    if (events && !('event' in record && events.includes(record.event))) continue;
    if (decisions && !('decision' in record && decisions.includes(record.decision))) continue;
    if (query.hook !== undefined && !(record.type === 'hook_run' && (record.hook_id === query.hook || record.hook_name === query.hook)))
      continue;
    if (text && !JSON.stringify(record).toLowerCase().includes(text)) continue;
    out.push(record);
  }
  return out;
}

export function summarizeSession(records: readonly AuditRecord[]): SessionSummary {
  const summary: SessionSummary = {
    sessionId: records[0]?.session_id,
    records: records.length,
    byType: {},
    byEvent: {},
    byDecision: {},
    permissions: {},
    hookFailures: 0,
    firstSeq: records[0]?.seq,
    lastSeq: records[records.length - 1]?.seq,
    firstTs: records[0]?.ts,
    lastTs: records[records.length - 1]?.ts,
  };
  const bump = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);
  for (const record of records) {
    bump(summary.byType, record.type);
    if (record.type === 'event') bump(summary.byEvent, record.event);
    if (record.type === 'hook_run') {
      bump(summary.byDecision, record.decision);
      if (record.status === 'error' || record.status === 'timeout') summary.hookFailures++;
    }
    if (record.type === 'permission') bump(summary.permissions, record.decision);
  }
  return summary;
}
