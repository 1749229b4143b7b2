/**
 * Permission precedence P0-P8 (docs/design.md#permission-precedence-p0-p8) as a pure
 * function. Deny at P0-P2 is final: no hook, mode or answer can turn it into allow.
 */
export type Verdict = 'allow' | 'deny' | 'ask';

export interface PermissionSignal {
  verdict: Verdict;
  /** Who said it: a rule text, a hook name, the mode, ... */
  source: string;
  reason: string;
}

export interface PermissionSignals {
  /** P0 deny / P7 allow: the system checker (workspace boundary, plan mode, protected paths ask). */
  system?: PermissionSignal;
  /** P1 deny / P6 ask / P7 allow: tool-level rules from settings (`Bash(rm *)`). */
  toolRule?: PermissionSignal;
  /** P2 deny / P5 ask / P7 allow: rules added during this session ("allow for this session"). */
  sessionRule?: PermissionSignal;
  /** P3 deny / P4 ask / P7 allow: the merged PreToolUse hook decision. */
  hook?: PermissionSignal;
  /** P8: what the permission mode implies for this tool when nothing else decides. */
  implicit: PermissionSignal;
}

export type PrecedenceLevel = 'P0' | 'P1' | 'P2' | 'P3' | 'P4' | 'P5' | 'P6' | 'P7' | 'P8';

export interface PermissionResolution extends PermissionSignal {
  level: PrecedenceLevel;
  /** A system-level decision: hooks may not answer it (deny is final; ask needs a person). */
  system: boolean;
}

export function resolvePermission(s: PermissionSignals): PermissionResolution {
  const at = (level: PrecedenceLevel, signal: PermissionSignal, system = false): PermissionResolution => ({ ...signal, level, system });
  if (s.system?.verdict === 'deny') return at('P0', s.system, true);
  if (s.toolRule?.verdict === 'deny') return at('P1', s.toolRule, true);
  if (s.sessionRule?.verdict === 'deny') return at('P2', s.sessionRule, true);
  if (s.hook?.verdict === 'deny') return at('P3', s.hook);
  // A system ask (e.g. an edit of the hooks config) outranks every allow and needs a person.
  if (s.system?.verdict === 'ask') return at('P4', s.system, true);
  if (s.hook?.verdict === 'ask') return at('P4', s.hook);
  if (s.sessionRule?.verdict === 'ask') return at('P5', s.sessionRule);
  if (s.toolRule?.verdict === 'ask') return at('P6', s.toolRule);
  const allow = [s.system, s.toolRule, s.sessionRule, s.hook].find((x) => x?.verdict === 'allow');
  if (allow) return at('P7', allow);
  return at('P8', s.implicit);
}
