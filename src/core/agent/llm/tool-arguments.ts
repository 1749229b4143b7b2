import { errorMessage } from '../../error-message';
export type ParsedToolArguments = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

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
  return { ok: true, value: parsed as Record<string, unknown> };
}
