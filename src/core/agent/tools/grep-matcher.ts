import { RE2JS } from 're2js';
import { errorMessage } from '../../error-message';

/** Matched lines of one file: its lines and the 0-based indexes of those that match. */
export interface FileMatches {
  lines: string[];
  matchedLines: number[];
  /** The deadline passed before the whole file was searched. */
  incomplete?: true;
}

export interface ContextOptions {
  before: number;
  after: number;
  lineNumbers: boolean;
}

const MAX_OUTPUT_LINE_CHARS = 500;

/** A compiled search expression and whether it may span lines. */
export interface SearchPattern {
  regex: RE2JS;
  multiline: boolean;
}

/**
 * The search expression, in RE2 syntax like ripgrep's default engine. The model writes it, so
 * it runs on RE2 (re2js): matching time is linear in the file, where a backtracking engine
 * would let `(a+)+$` hold the host's only thread. Lines are tested one at a time, so `^` and
 * `$` anchor at line boundaries as in ripgrep; multiline mode matches across lines with `.`
 * matching newlines (rg -U --multiline-dotall). Throws for an invalid pattern.
 */
export function buildRegex(pattern: string, options: { ignoreCase: boolean; multiline: boolean }): SearchPattern {
  const flags = (options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (options.multiline ? RE2JS.MULTILINE | RE2JS.DOTALL : 0);
  try {
    return { regex: RE2JS.compile(pattern, flags), multiline: options.multiline };
  } catch (error) {
    const message = errorMessage(error).replace(/^error parsing regexp: /, '');
    throw new Error(`${message} (RE2 syntax, as ripgrep: no lookaround or backreferences)`, { cause: error });
  }
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

/** When a search must stop: a deadline (performance.now()) and the caller's signal. */
export interface MatchLimits {
  deadline: number;
  signal?: AbortSignal;
}

/** Between searches, the event loop gets a turn this often (Ctrl-C, other work). */
const YIELD_EVERY_MS = 50;

/**
 * Every match of the whole text. Each search is linear, but each may scan to the end of the
 * text (`[^z]*z|a` on a long run of `a`), so many matches can cost the square of the file:
 * the deadline bounds that, and the loop yields so a cancel is seen at once.
 */
async function matchAcrossLines(text: string, regex: RE2JS, limits: MatchLimits): Promise<{ matchedLines: number[]; incomplete?: true }> {
  const lineStarts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
  // As splitLines counts them: a last newline ends the last line.
  const lineCount = text.endsWith('\n') ? lineStarts.length - 1 : lineStarts.length;
  const matched = new Set<number>();
  let incomplete = false;
  // Offsets are UTF-16 indexes into `text`; an empty match moves the search on by itself.
  const matcher = regex.matcher(text);
  let yielded = performance.now();
  while (matcher.find()) {
    const first = lineAt(lineStarts, matcher.start());
    const last = lineAt(lineStarts, Math.max(matcher.start(), matcher.end() - 1));
    for (let line = first; line <= last && line < lineCount; line += 1) matched.add(line);
    if (performance.now() - yielded > YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      yielded = performance.now();
    }
    if (performance.now() > limits.deadline || limits.signal?.aborted) {
      incomplete = true;
      break;
    }
  }
  const matchedLines = [...matched].sort((a, b) => a - b);
  return incomplete ? { matchedLines, incomplete } : { matchedLines };
}

/** Lines are tested one by one, in linear time; a multiline search stops at the limits. */
export async function matchFile(
  text: string,
  pattern: SearchPattern,
  limits: MatchLimits = { deadline: Number.POSITIVE_INFINITY },
): Promise<FileMatches> {
  const lines = splitLines(text);
  if (pattern.multiline) return { lines, ...(await matchAcrossLines(text, pattern.regex, limits)) };
  const matchedLines: number[] = [];
  lines.forEach((line, index) => {
    if (pattern.regex.test(line)) matchedLines.push(index);
  });
  return { lines, matchedLines };
}

/**
 * How many lines of `text` match, as matchFile counts them (a line-by-line search stops at `upTo`), without holding
 * the file's lines: Grep's files_with_matches and count modes print no line.
 */
export async function countMatchingLines(
  text: string,
  pattern: SearchPattern,
  upTo: number,
  limits: MatchLimits = { deadline: Number.POSITIVE_INFINITY },
): Promise<{ count: number; incomplete?: true }> {
  if (pattern.multiline) {
    const { matchedLines, incomplete } = await matchAcrossLines(text, pattern.regex, limits);
    return incomplete ? { count: matchedLines.length, incomplete } : { count: matchedLines.length };
  }
  let count = 0;
  // The lines splitLines gives: a last newline ends the last line, and an empty text is one empty line.
  for (let start = 0; count < upTo && (start < text.length || (start === 0 && text === ''));) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline > start && text[newline - 1] === '\r' ? newline - 1 : newline;
    if (pattern.regex.test(text.slice(start, end))) count += 1;
    if (newline === -1) break;
    start = newline + 1;
  }
  return { count };
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
