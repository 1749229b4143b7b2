import type { HookEventName } from '../events';
import type { HookOutcome } from '../types';

/**
 * Events where a hook that cannot run must block: letting the action through would be an allow
 * (ConfigChange: a guard whose script the model rewrote must not let its own removal through).
 */
const GUARD_EVENTS: ReadonlySet<HookEventName> = new Set(['PreToolUse', 'PermissionRequest', 'ConfigChange']);

/**
 * The outcome of a hook that was not run (its script changed since it was approved, the
 * untrusted workspace it would run): a guard's blocks, whatever its onFailure says, since it
 * judged nothing; any other hook's is a failure like any other.
 */
export function refusedRun(event: HookEventName, why: string): HookOutcome {
  const trace = { durationMs: 0 };
  return GUARD_EVENTS.has(event) ? { status: 'blocking-error', reason: why, effects: {}, trace } : { status: 'error', error: why, trace };
}
