import { z } from 'zod';
import type { HookEventName } from '../events';
import type { HookEffects } from '../types';

/** Events where Claude Code runs prompt and agent hooks (the rest of its list has no Hookpilot event yet). */
export const MODEL_HOOK_EVENTS: ReadonlySet<HookEventName> = new Set<HookEventName>([
  'PreToolUse',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Stop',
  'SubagentStop',
  'UserPromptSubmit',
]);

/** What the model must answer, as Claude Code asks it. */
export const verdictSchema = z.object({
  ok: z.boolean(),
  reason: z.string().optional(),
  /** prompt hooks on Stop: the condition cannot be met, so the turn may end anyway. */
  impossible: z.boolean().optional(),
});

export type Verdict = z.infer<typeof verdictSchema>;

export const VERDICT_INSTRUCTIONS =
  'You evaluate one event of a coding agent for a hook. Answer with one JSON object and nothing else: ' +
  '{"ok": true} when the condition holds, or {"ok": false, "reason": "why, addressed to the agent"}. ' +
  'Add "impossible": true only when the condition can never be met.';

/**
 * The verdict in a model's answer: the whole text, or the one JSON object inside it (a fenced
 * block or surrounding prose), checked against the schema.
 */
export function parseVerdict(text: string): { ok: true; verdict: Verdict } | { ok: false; error: string } {
  const trimmed = text.trim();
  const candidates = [trimmed, trimmed.replace(/^```(?:json)?\s*|\s*```$/g, '')];
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  if (start !== -1 && end > start) candidates.push(trimmed.slice(start, end + 1));
  for (const candidate of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    const parsed = verdictSchema.safeParse(value);
    if (parsed.success) return { ok: true, verdict: parsed.data };
    return { ok: false, error: `the model's answer is not {"ok": boolean, "reason": string}: ${z.prettifyError(parsed.error)}` };
  }
  const shown = trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
  return { ok: false, error: `the model did not answer with a JSON object: ${JSON.stringify(shown)}` };
}

/**
 * Claude Code's mapping of `ok: false` to the event's decision. `ok: true` decides nothing:
 * a model's approval never allows a call the permission rules would ask about.
 * `feedBack` (an agent hook, or a prompt hook with `continueOnBlock`) returns the reason to
 * the model where the default would end the turn.
 */
export function verdictEffects(
  event: HookEventName,
  verdict: Verdict,
  options: { feedBack: boolean; impossibleAllowed: boolean },
): HookEffects {
  if (verdict.ok) return {};
  const reason = verdict.reason?.trim() || "the hook's condition was not met";
  switch (event) {
    case 'Stop':
    case 'SubagentStop':
      if (verdict.impossible && options.impossibleAllowed) return { systemMessage: `stopping anyway (condition cannot be met): ${reason}` };
      return { decision: 'block', reason };
    case 'PreToolUse':
      return options.feedBack ? { decision: 'deny', reason } : { decision: 'deny', reason, stop: { reason } };
    case 'PostToolUse':
      return options.feedBack ? { decision: 'block', reason } : { stop: { reason } };
    case 'UserPromptSubmit':
      return { decision: 'block', reason };
    case 'PostToolBatch':
      return { stop: { reason } };
    case 'PostToolUseFailure':
      return { decision: 'block', reason };
    default:
      // PermissionRequest and PermissionDenied: no effect, as in Claude Code.
      return {};
  }
}
