/** Matched lines of one file: its lines and the 0-based indexes of those that match. */
export interface FileMatches {
  lines: string[];
  matchedLines: number[];
}

export interface ContextOptions {
  before: number;
  after: number;
  lineNumbers: boolean;
}

const MAX_OUTPUT_LINE_CHARS = 500;

/**
 * The search expression. Lines are tested one at a time, so `^` and `$` anchor at line
 * boundaries as in ripgrep; multiline mode matches across lines with `.` matching newlines
 * (rg -U --multiline-dotall). Throws a SyntaxError for an invalid pattern.
 */
export function buildRegex(pattern: string, options: { ignoreCase: boolean; multiline: boolean }): RegExp {
  const flags = (options.ignoreCase ? 'i' : '') + (options.multiline ? 'gms' : '');
  return new RegExp(pattern, flags);
}

function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/** Index of the line holding character `offset`, given each line's starting offset. */
function lineAt(lineStarts: number[], offset: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid] <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

function matchAcrossLines(text: string, lines: string[], regex: RegExp): number[] {
  const lineStarts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
  const matched = new Set<number>();
  for (const match of text.matchAll(regex)) {
    const first = lineAt(lineStarts, match.index);
    const last = lineAt(lineStarts, match.index + Math.max(0, match[0].length - 1));
    for (let line = first; line <= last && line < lines.length; line += 1) matched.add(line);
  }
  return [...matched].sort((a, b) => a - b);
}

export function matchFile(text: string, regex: RegExp): FileMatches {
  const lines = splitLines(text);
  if (regex.flags.includes('s')) return { lines, matchedLines: matchAcrossLines(text, lines, regex) };
  const matchedLines: number[] = [];
  lines.forEach((line, index) => {
    if (regex.test(line)) matchedLines.push(index);
  });
  return { lines, matchedLines };
}

function clip(line: string): string {
  return line.length > MAX_OUTPUT_LINE_CHARS ? `${line.slice(0, MAX_OUTPUT_LINE_CHARS)} [...]` : line;
}

/**
 * ripgrep's output for one file: `path:N:line` for matches, `path-N-line` for context, and
 * `--` between groups of lines that are not adjacent. Returns the groups, each a list of lines.
 */
export function formatMatches(path: string, matches: FileMatches, options: ContextOptions): string[][] {
  const groups: string[][] = [];
  let groupEnd = -2;
  const matched = new Set(matches.matchedLines);
  for (const index of matches.matchedLines) {
    const from = Math.max(0, index - options.before, groupEnd + 1);
    const to = Math.min(matches.lines.length - 1, index + options.after);
    if (from > groupEnd + 1) groups.push([]);
    const group = groups[groups.length - 1];
    for (let line = from; line <= to; line += 1) {
      const separator = matched.has(line) ? ':' : '-';
      const number = options.lineNumbers ? `${line + 1}${separator}` : '';
      group.push(`${path}${separator}${number}${clip(matches.lines[line])}`);
    }
    groupEnd = Math.max(groupEnd, to);
  }
  return groups;
}
