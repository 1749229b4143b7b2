/** A line's run of block quote markers, list markers and the spaces between them. */
const CONTAINERS = /^(?:[ \t]*(?:>|[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)))+/;
const MARKER = />|[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)/g;
const FENCE = /^[ \t]*(`{3,}|~{3,})/;

/**
 * How deeply `text` nests block quotes and lists, as counted on each line: its quote and list
 * markers, plus its indentation (two spaces a level) when it has a marker. It over-counts rather
 * than under-counts (an ordered list's three-space indent counts 1.5); lines in fenced code are
 * skipped. marked recurses once per level, so this is what its stack depth grows with.
 */
export function nestingDepth(text: string): number {
  let deepest = 0;
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const containers = CONTAINERS.exec(line)?.[0] ?? '';
    const rest = line.slice(containers.length);
    const fenceMark = FENCE.exec(rest)?.[1];
    if (fence !== undefined) {
      if (fenceMark?.[0] === fence[0] && fenceMark.length >= fence.length && rest.trim() === fenceMark) fence = undefined;
      continue;
    }
    if (fenceMark) fence = fenceMark;
    if (containers === '') continue;
    const markers = containers.match(MARKER)?.length ?? 0;
    const indent = /^[ \t]*/.exec(line)?.[0].replace(/\t/g, '    ').length ?? 0;
    deepest = Math.max(deepest, markers + Math.floor(indent / 2));
  }
  return deepest;
}
