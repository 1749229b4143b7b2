/** Reading a record's loose payload fields into the short texts a trace shows. */

export type Fields = Record<string, unknown>;

const LABEL_CHARS = 100;

export const fieldsOf = (value: unknown): Fields => (typeof value === 'object' && value !== null ? (value as Fields) : {});
export const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** One line of at most LABEL_CHARS characters. */
export function clip(value: string): string {
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > LABEL_CHARS ? `${line.slice(0, LABEL_CHARS - 1)}…` : line;
}

/** A record's timestamp in milliseconds since the epoch (0 when it is not a date). */
export function parseTime(ts: string): number {
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? 0 : ms;
}

/** A tool call in a few words: its name and the input field that says what it does. */
export function toolLabel(payload: Fields): string {
  const name = text(payload.tool_name) ?? 'tool';
  const input = fieldsOf(payload.tool_input);
  for (const key of ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt']) {
    const value = text(input[key]);
    if (value) return clip(`${name} · ${value}`);
  }
  return name;
}
