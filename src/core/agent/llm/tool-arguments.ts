import { errorMessage } from '../../error-message';
import { nestedDeeperThan } from '../../json-depth';
export type ParsedToolArguments = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/**
 * Deeper than any tool's arguments. JSON.parse reads any depth, but the host serializes them
 * recursively (a hook's stdin, the audit log, the chat): 10 KB of `[` would overflow the stack
 * there, failing AfterLLM guards before they start.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * Models sometimes send broken or non-object arguments; this never throws so the loop can
 * tell the model what was wrong and let it try again.
 */
export function parseToolArguments(text: string): ParsedToolArguments {
  if (text.trim() === '') return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = errorMessage(error);
    return { ok: false, error: `the tool arguments are not valid JSON (${reason})` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const got = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    return { ok: false, error: `the tool arguments must be a JSON object, got ${got}` };
  }
  if (nestedDeeperThan(parsed, MAX_ARGUMENT_DEPTH))
    return { ok: false, error: `the tool arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep` };
  return { ok: true, value: parsed as Record<string, unknown> };
}
