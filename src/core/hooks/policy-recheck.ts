import { isDeepStrictEqual } from 'node:util';
import type { DispatchResult } from './dispatch-result';
import { isLockedSource } from './hook-switches';
import type { HookDefinition, HookOutcome, HookPayload } from './types';

/** A hook that judges a call's input for the managed policy: the policy's own, and not `async` (that decides nothing). */
export function isPolicyJudge(hook: HookDefinition): boolean {
  const async = (hook.spec.type === 'command' || hook.spec.type === 'builtin') && hook.spec.async === true;
  return isLockedSource(hook.source.kind) && !async;
}

/**
 * The managed policy's hooks judge the input a call runs with (docs/hooks.md#managed-policy).
 * A later group's rewrite from another source would otherwise reach the tool unseen by a policy
 * guard that ran before it, so such a dispatch ends with one more pass of the policy's hooks on
 * the final input. Rewrites by the policy's own hooks are the administrator's pipeline and
 * trigger nothing, which also bounds the re-check to one pass.
 */
export class PolicyRecheck {
  /** The tool inputs each policy hook judged in this dispatch, by hook id. */
  private readonly judged = new Map<string, unknown[]>();
  private rewrittenOutsidePolicy = false;

  /** Notes one hook run: what a policy hook judged, or that another source rewrote the input. */
  ran(hook: HookDefinition, input: HookPayload, outcome: HookOutcome): void {
    if (!('tool_input' in input)) return;
    if (isLockedSource(hook.source.kind)) {
      this.judged.set(hook.id, [...(this.judged.get(hook.id) ?? []), input.tool_input]);
      return;
    }
    const effects = outcome.status === 'success' || outcome.status === 'blocking-error' ? outcome.effects : undefined;
    if (effects?.updatedInput || effects?.permission?.updatedInput) this.rewrittenOutsidePolicy = true;
  }

  /** Whether the hook ran in this dispatch (a `once` hook that did is judging the same call). */
  ranHere(hook: HookDefinition): boolean {
    return this.judged.has(hook.id);
  }

  /** Whether the hook already judged exactly this input: it is not asked twice. */
  judgedAlready(hook: HookDefinition, input: HookPayload): boolean {
    return 'tool_input' in input && (this.judged.get(hook.id) ?? []).some((seen) => isDeepStrictEqual(seen, input.tool_input));
  }

  /**
   * The payload the policy's hooks must judge again, when another source rewrote the input and
   * the call may still run with it: PreToolUse's piped input, PermissionRequest's allowed rewrite.
   */
  payloadToRecheck(original: HookPayload, piped: HookPayload, result: DispatchResult): HookPayload | undefined {
    if (!this.rewrittenOutsidePolicy) return undefined;
    if (result.event === 'PreToolUse') return piped;
    const answer = result.permission;
    if (result.event === 'PermissionRequest' && answer?.behavior === 'allow' && answer.updatedInput)
      return { ...original, tool_input: answer.updatedInput };
    return undefined;
  }
}
