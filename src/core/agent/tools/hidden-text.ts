/** A range of a text, from `start` up to (not including) `end`. */
export interface TextSpan {
  start: number;
  end: number;
}

/** What the redactor leaves in place of a secret: `[REDACTED:kind]`, or `[REDACTED]`. */
const REDACTION_LABEL = /\[REDACTED(?::[^\]\n]*)?\]/;

/**
 * The spans of `text` that the model does not see: those the redactor replaced with a label
 * in `visible` (the text redacted). The text between labels is kept as it was, but a piece
 * that occurs more than once could stand at several places, so a character counts as visible
 * only if every placement of its piece holds it: from the earliest placement of each piece
 * (found from the start) to the latest (found from the end). Literal label text in the file
 * counts as hidden, and so does all of `text` if `visible` cannot be aligned with it.
 */
export function hiddenSpans(text: string, visible: string): TextSpan[] {
  if (visible === text) return [];
  const pieces = visible.split(REDACTION_LABEL);
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const lastStart = text.length - last.length;
  const everything = [{ start: 0, end: text.length }];
  if (lastStart < first.length || !text.startsWith(first) || !text.endsWith(last)) return everything;
  const middle = pieces.slice(1, -1);
  const earliest: number[] = [];
  for (let i = 0, from = first.length; i < middle.length; i++) {
    const at = text.indexOf(middle[i], from);
    if (at === -1) return everything;
    earliest.push(at);
    from = at + middle[i].length;
  }
  // The latest placements, found forward in the reversed text: lastIndexOf compares naively, and
  // a long piece of one letter before a long hidden span costs their product.
  const reversed = reverse(text);
  const latest: number[] = new Array<number>(middle.length);
  for (let i = middle.length - 1, until = lastStart; i >= 0; i--) {
    const found = reversed.indexOf(reverse(middle[i]), text.length - until);
    const at = found === -1 ? -1 : text.length - found - middle[i].length;
    if (at < 0 || at < earliest[i]) return everything;
    latest[i] = at;
    until = at;
  }
  const shown: TextSpan[] = [{ start: 0, end: first.length }];
  middle.forEach((piece, i) => shown.push({ start: latest[i], end: earliest[i] + piece.length }));
  shown.push({ start: lastStart, end: text.length });
  const hidden: TextSpan[] = [];
  let from = 0;
  for (const span of shown) {
    if (span.end <= span.start) continue;
    if (span.start > from) hidden.push({ start: from, end: span.start });
    from = Math.max(from, span.end);
  }
  if (from < text.length) hidden.push({ start: from, end: text.length });
  return hidden;
}

/** `text` with its UTF-16 code units in reverse order: indices map back as `length - index - piece length`. */
function reverse(text: string): string {
  const units = new Array<string>(text.length);
  for (let i = 0; i < text.length; i++) units[text.length - 1 - i] = text[i];
  return units.join('');
}

/**
 * Where `search` (not empty) occurs in `text` without touching a hidden span, left to right
 * and without overlap: where indexOf would find it in the text as the model sees it.
 */
export function visibleOccurrences(text: string, search: string, hidden: readonly TextSpan[]): number[] {
  const found: number[] = [];
  let span = 0;
  let at = text.indexOf(search);
  while (at !== -1) {
    while (span < hidden.length && hidden[span].end <= at) span += 1;
    if (span < hidden.length && hidden[span].start < at + search.length) {
      // Any occurrence that starts before this span ends touches it too.
      at = text.indexOf(search, hidden[span].end);
      continue;
    }
    found.push(at);
    at = text.indexOf(search, at + search.length);
  }
  return found;
}
