/** Most characters of tool output the model sees in one result. */
export const MAX_TOOL_OUTPUT_CHARS = 30_000;

/**
 * Keeps the head and the tail of a long text, since errors and summaries tend to sit at
 * either end, and says how much was cut from the middle.
 */
export function truncateMiddle(text: string, maxChars = MAX_TOOL_OUTPUT_CHARS): string {
  return text.length <= maxChars ? text : cutMiddle(text, text, text.length, maxChars);
}

/** truncateMiddle of a text of `length` characters, given a prefix and a suffix of it long enough to show. */
function cutMiddle(prefix: string, suffix: string, length: number, maxChars: number): string {
  const omitted = length - maxChars;
  const note = `\n\n... [${omitted} characters truncated] ...\n\n`;
  const keep = Math.max(0, maxChars - note.length);
  const head = Math.ceil(keep / 2);
  return prefix.slice(0, head) + note + suffix.slice(suffix.length - (keep - head));
}

/**
 * Lines that will be shown joined by newlines and cut by truncateMiddle, added one at a time:
 * only the head and the tail it shows are held, so a search printing millions of lines does
 * not keep them all. `text()` is exactly truncateMiddle of all the lines joined.
 */
export class MiddleCutLines {
  /** Lines added, and the length of their joined text. */
  count = 0;
  length = 0;
  private readonly head: string[] = [];
  private headChars = 0;
  private tail: string[] = [];
  private tailFrom = 0;
  private tailChars = 0;
  private dropped = false;

  constructor(private readonly maxChars = MAX_TOOL_OUTPUT_CHARS) {}

  add(line: string): void {
    this.length += (this.count > 0 ? 1 : 0) + line.length;
    this.count += 1;
    // Sizes count each line's newline: the joined text is one character shorter.
    if (this.headChars <= this.maxChars) {
      this.head.push(line);
      this.headChars += line.length + 1;
      return;
    }
    this.tail.push(line);
    this.tailChars += line.length + 1;
    while (this.tail.length - this.tailFrom > 1 && this.tailChars - (this.tail[this.tailFrom].length + 1) > this.maxChars) {
      this.tailChars -= this.tail[this.tailFrom].length + 1;
      this.tailFrom += 1;
      this.dropped = true;
    }
    // Dropped lines are let go of in bulk, so that dropping stays linear.
    if (this.tailFrom > 1024 && this.tailFrom * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailFrom);
      this.tailFrom = 0;
    }
  }

  /** Whether text() is cut: it is then not the whole of the lines. */
  get cut(): boolean {
    return this.length > this.maxChars;
  }

  text(): string {
    if (!this.dropped) return truncateMiddle([...this.head, ...this.tail].join('\n'), this.maxChars);
    const prefix = this.head.join('\n');
    return cutMiddle(prefix, this.tail.slice(this.tailFrom).join('\n'), this.length, this.maxChars);
  }
}

/**
 * `truncateMiddle` of the text as the model may see it: redacted whole first, since a secret
 * cut in two matches neither its value nor its pattern, and each half would reach the model.
 */
export function truncateRedacted(text: string, redact: ((text: string) => string) | undefined, maxChars = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= maxChars || redact === undefined) return truncateMiddle(text, maxChars);
  return truncateMiddle(redact(text), maxChars);
}
