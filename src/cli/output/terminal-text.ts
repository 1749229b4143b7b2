/**
 * C0, DEL and C1 controls, format characters (bidi overrides, zero-width), the line and paragraph
 * separators, and every default-ignorable or unassigned code point (drawn as nothing, or as a
 * newer renderer decides), but for the variation selectors that make `⚠️` an emoji: they take
 * no room. (Approval prompts escape those too: see approval-text.ts.)
 */
const UNPRINTABLE = /(?![\ufe00-\ufe0f])[\p{Cc}\p{Cf}\p{Cn}\p{Default_Ignorable_Code_Point}\u2028\u2029]/gu;

/**
 * Text for the terminal, which holds what a model wrote (its words, a path in a reason, a
 * command a hook echoed): its control and format characters are shown escaped, so it can neither
 * drive the terminal (escape sequences, `\r`, OSC 52 clipboard writes) nor forge, reorder or
 * hide a line. Line breaks and tabs stay: a table turns them into spaces. In JSON the escapes
 * land inside strings, as `\uXXXX`, which JSON reads back as the same character.
 */
export function printable(text: string): string {
  // An astral character is escaped as its two UTF-16 halves: JSON reads them back as the one character.
  const unit = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;
  const escape = (c: string) => (c === '\r' ? '\\r' : Array.from({ length: c.length }, (_, i) => unit(c.charCodeAt(i))).join(''));
  return text.replace(UNPRINTABLE, (c) => (c === '\n' || c === '\t' ? c : escape(c)));
}

const BARS = '▁▂▃▄▅▆▇█';

/** Durations as a one-line bar chart, scaled to the largest. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => BARS[max === 0 ? 0 : Math.min(BARS.length - 1, Math.floor((v / max) * (BARS.length - 1) + 0.5))]).join('');
}

/** 0.4 ms, 12 ms, 2.5 s. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '-';
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}
