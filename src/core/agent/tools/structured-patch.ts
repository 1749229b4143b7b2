/** One hunk of a unified diff, in the shape of Claude Code's `structuredPatch` entries. */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Each line prefixed with ' ' (context), '-' (removed) or '+' (added). */
  lines: string[];
}

const CONTEXT_LINES = 3;

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/**
 * A single hunk spanning everything between the common leading and trailing lines of the two
 * texts, with three lines of context: coarse for scattered edits, but an exact patch.
 */
export function structuredPatch(before: string, after: string): PatchHunk[] {
  if (before === after) return [];
  const oldLines = splitLines(before);
  const newLines = splitLines(after);
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && oldLines[prefix] === newLines[prefix]) prefix += 1;
  let suffix = 0;
  while (
    suffix < oldLines.length - prefix &&
    suffix < newLines.length - prefix &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  ) {
    suffix += 1;
  }
  const start = Math.max(0, prefix - CONTEXT_LINES);
  const oldChangedEnd = oldLines.length - suffix;
  const newChangedEnd = newLines.length - suffix;
  const trailing = Math.min(suffix, CONTEXT_LINES);
  const lines = [
    ...oldLines.slice(start, prefix).map((line) => ` ${line}`),
    ...oldLines.slice(prefix, oldChangedEnd).map((line) => `-${line}`),
    ...newLines.slice(prefix, newChangedEnd).map((line) => `+${line}`),
    ...oldLines.slice(oldChangedEnd, oldChangedEnd + trailing).map((line) => ` ${line}`),
  ];
  const oldCount = oldChangedEnd + trailing - start;
  const newCount = newChangedEnd + trailing - start;
  // Unified diff convention: an empty side starts at the line before the hunk.
  return [
    {
      oldStart: oldCount === 0 ? start : start + 1,
      oldLines: oldCount,
      newStart: newCount === 0 ? start : start + 1,
      newLines: newCount,
      lines,
    },
  ];
}
