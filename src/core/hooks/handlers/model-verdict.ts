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

/** Objects looked for in an answer: a model's prose holds few braces, an attacker's many. */
const MAX_OBJECTS_TRIED = 32;

/**
 * An `ok` set to false in any dialect (quoted or not, escaped in a string, `False`): the
 * judge's own no may be loose JSON written after the model's strict `{"ok": true}` it quotes.
 */
const SAYS_NO = /\bok\\?["']?\s*:\s*\\?["']?false\b/i;

/** The `{...}` span opening at `start`, when it closes (strings and escapes respected). */
function objectAt(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/** The `{...}` spans of the text that close, at each `{` in order (inner ones too); undefined past MAX_OBJECTS_TRIED. */
function balancedObjects(text: string): string[] | undefined {
  const spans: string[] = [];
  let tried = 0;
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    if (++tried > MAX_OBJECTS_TRIED) return undefined;
    const span = objectAt(text, start);
    if (span !== undefined) spans.push(span);
  }
  return spans;
}

function parsedObject(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The verdict in a model's answer: the whole text, or the JSON objects with an `ok` inside it
 * (a fenced block, surrounding prose), checked against the schema. The judge reads what the
 * model wrote and may quote it, so a yes needs every verdict there to be a well-formed yes:
 * any `ok` set to false anywhere is a no, even malformed; verdicts that disagree otherwise, or
 * more braces than are tried, are a failure.
 */
export function parseVerdict(text: string): { ok: true; verdict: Verdict } | { ok: false; error: string } {
  const trimmed = text.trim();
  const whole = parsedObject(trimmed);
  // The whole text as one verdict is the answer; its inner objects are its fields.
  const objects = whole && 'ok' in whole ? [whole] : balancedObjects(trimmed)?.flatMap((span) => parsedObject(span) ?? []);
  const verdicts = (objects ?? []).filter((value) => 'ok' in value) as { ok: unknown; reason?: unknown }[];
  const no = verdicts.find((value) => value.ok === false);
  if (no || SAYS_NO.test(trimmed))
    return { ok: true, verdict: { ok: false, reason: typeof no?.reason === 'string' ? no.reason : undefined } };
  if (objects === undefined) return { ok: false, error: `the model's answer holds more than ${MAX_OBJECTS_TRIED} "{" to look through` };
  if (verdicts.length === 0) {
    const shown = trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
    return { ok: false, error: `the model did not answer with a JSON object: ${JSON.stringify(shown)}` };
  }
  const parsed = verdicts.map((value) => verdictSchema.safeParse(value));
  const invalid = parsed.find((result) => !result.success);
  if (invalid?.error)
    return { ok: false, error: `the model's answer is not {"ok": boolean, "reason": string}: ${z.prettifyError(invalid.error)}` };
  return { ok: true, verdict: parsed[0].data as Verdict };
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
