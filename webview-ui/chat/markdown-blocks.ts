const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A line that starts a new block and cannot continue the one before a blank line (no indent, list marker or quote). */
const BLOCK_START = /^(?![ \t]|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|>)\S/;
/**
 * What makes a block's meaning depend on text past a blank line: a link reference definition
 * (it serves the whole reply) or an HTML block (some run over blank lines, and a fence in one is no fence).
 */
const SPANS_BLANK_LINES = /^ {0,3}(?:\[[^\]\n]+\]:|<[A-Za-z/!?])/m;

/**
 * `text` cut into runs of markdown blocks that parse the same alone as together: each cut is
 * at a blank line outside fenced code that a line follows which can only start a new block.
 * Text whose meaning can reach across blank lines stays whole.
 */
export function splitBlocks(text: string): string[] {
  if (SPANS_BLANK_LINES.test(text)) return [text];
  const blocks: string[] = [];
  let start = 0;
  let fence: string | undefined;
  let blank = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    const mark = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (mark?.[0] === fence[0] && mark.length >= fence.length && line.trim() === mark) fence = undefined;
    } else {
      if (blank && offset > start && BLOCK_START.test(line)) {
        blocks.push(text.slice(start, offset));
        start = offset;
      }
      if (mark) fence = mark;
    }
    blank = fence === undefined && line.trim() === '';
    offset += line.length + 1;
  }
  blocks.push(text.slice(start));
  return blocks;
}
