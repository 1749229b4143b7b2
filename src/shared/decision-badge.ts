import type { AuditRecord } from '../core/audit/records';

/** The colour class the Hook Manager's timeline gives a decision; also what its decision filter matches. */
export type DecisionBadge = 'allow' | 'block' | 'deny' | 'ask' | 'error' | 'timeout' | 'none';

export const DECISION_BADGES: readonly DecisionBadge[] = ['allow', 'block', 'deny', 'ask', 'error', 'timeout', 'none'];

/** Badges of a run that failed: what "failures only" keeps. */
export const FAILURE_BADGES: ReadonlySet<DecisionBadge> = new Set(['error', 'timeout']);

export function badgeFor(decision: string): DecisionBadge {
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

/** A hook run's decision as shown: its status first (a timed-out run's decision says nothing). */
export function hookRunDecision(record: Extract<AuditRecord, { type: 'hook_run' }>): string {
  if (record.status === 'timeout' || record.status === 'error' || record.status === 'cancelled') return record.status;
  return record.decision;
}
