/** Most characters of tool output the model sees in one result. */
export const MAX_TOOL_OUTPUT_CHARS = 30_000;

/**
 * Keeps the head and the tail of a long text, since errors and summaries tend to sit at
 * either end, and says how much was cut from the middle.
 */
export function truncateMiddle(text: string, maxChars = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= maxChars) return text;
  const omitted = text.length - maxChars;
  const note = `\n\n... [${omitted} characters truncated] ...\n\n`;
  const keep = Math.max(0, maxChars - note.length);
  const head = Math.ceil(keep / 2);
  return text.slice(0, head) + note + text.slice(text.length - (keep - head));
}

/**
 * `truncateMiddle` of the text as the model may see it: redacted whole first, since a secret
 * cut in two matches neither its value nor its pattern, and each half would reach the model.
 */
export function truncateRedacted(text: string, redact: ((text: string) => string) | undefined, maxChars = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= maxChars || redact === undefined) return truncateMiddle(text, maxChars);
  return truncateMiddle(redact(text), maxChars);
}
