/**
 * The words for a permission record, shared by `hookpilot timeline` and the Hook Manager.
 * No imports: the webview bundles this file.
 */
export const PERMISSION_DECIDERS = ['system', 'rule', 'session-rule', 'hook', 'mode', 'person', 'timeout', 'cancel'] as const;
export type PermissionDecider = (typeof PERMISSION_DECIDERS)[number];

interface PermissionLike {
  decision: 'allow' | 'deny' | 'ask';
  source: string;
  by?: PermissionDecider;
  answer?: string;
}

const VERB = { allow: 'allowed', deny: 'denied', ask: 'asked' } as const;

/** "allowed by rule Bash(git *)", "denied by person (no-terminal)", "allowed by person (session)". */
export function describePermission(record: PermissionLike): string {
  if (record.by === 'person') {
    const detail = record.answer && record.answer !== 'deny' ? record.answer : record.source !== 'user' ? record.source : '';
    return `${VERB[record.decision]} by person${detail ? ` (${detail})` : ''}`;
  }
  if (record.by === 'timeout') return `${VERB[record.decision]}: no answer in time`;
  if (record.by === 'cancel') return `${VERB[record.decision]}: the turn was cancelled`;
  if (record.decision === 'ask') return `a person is asked (${record.source})`;
  return `${VERB[record.decision]} by ${record.source}`;
}
