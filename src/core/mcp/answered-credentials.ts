import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { escapeRegExp } from '../audit/redactor';

const ANSWERED_CREDENTIAL = '[REDACTED:elicitation]';

// A one- or two-character "credential" guards nothing, and hiding it would garble every number
// and word of the result: it is left.
const MIN_HIDDEN_LENGTH = 3;

/**
 * `result` with each of `values` (credentials answered for the server's forms) replaced by
 * ANSWERED_CREDENTIAL wherever the model reads it: text parts, embedded resources' text, and
 * structuredContent's keys, strings and numbers.
 */
export function withoutAnsweredCredentials(result: CallToolResult, values: ReadonlySet<string>): CallToolResult {
  const hidden = [...values].filter((value) => value.length >= MIN_HIDDEN_LENGTH);
  if (hidden.length === 0) return result;
  // One pass, longest first: a value inside a longer one leaves none of that one showing, and
  // no value is looked for in the replacement of another.
  const pattern = new RegExp(
    hidden
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  const text = (s: string) => s.replace(pattern, ANSWERED_CREDENTIAL);
  const deep = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (typeof value === 'number') {
      const shown = text(String(value));
      return shown === String(value) ? value : shown;
    }
    if (Array.isArray(value)) return value.map(deep);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), deep(v)]));
    return value;
  };
  const content = result.content.map((part) => {
    if (part.type === 'text') return { ...part, text: text(part.text) };
    if (part.type === 'resource' && 'text' in part.resource)
      return { ...part, resource: { ...part.resource, text: text(part.resource.text) } };
    return part;
  });
  const structured =
    result.structuredContent === undefined ? {} : { structuredContent: deep(result.structuredContent) as Record<string, unknown> };
  return { ...result, content, ...structured };
}
