import { basename, isAbsolute } from 'node:path';
import { z } from 'zod';
import { looksBinary, MAX_TEXT_FILE_BYTES, openForReading, readUpTo } from './file-content';
import { fileTypeMatcher, knownFileTypes } from './grep-file-types';
import { buildRegex, countMatchingLines, formatMatches, matchFile, type FileMatches, type SearchPattern } from './grep-matcher';
import { byNewest, findFiles, MAX_BRACE_EXPANSIONS, resolveSearchRoot, type FoundFile, type SearchRoot } from './file-search';
import { MiddleCutLines, truncateMiddle } from './output-limits';
import { expandBraces } from '../../brace-expansions';
import { errorMessage } from '../../error-message';
import { toolFailure, type Tool, type ToolContext, type ToolResult } from './tool';
import { builtinToolIdentity } from './tool-catalog';

/** Files read at once. */
const READ_CONCURRENCY = 16;
/**
 * How long a multiline search may match. Each match is found in linear time, but the
 * model's pattern can make every match rescan the rest of the file; the search stops here.
 */
export const MULTILINE_BUDGET_MS = 5_000;

/** One search: when multiline matching must stop, and whether it did. */
interface SearchRun {
  pattern: SearchPattern;
  deadline: number;
  signal: AbortSignal;
  incomplete: boolean;
  /** Content mode: each matching file's lines are needed; otherwise only how many match, up to this. */
  linesNeeded: boolean;
  countUpTo: number;
}

export const grepInputSchema = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Regular expression to search for (RE2 syntax, as ripgrep: no lookaround or backreferences), e.g. "function\\s+\\w+".'),
  path: z.string().optional().describe('File or directory to search (default: the working directory).'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}".'),
  type: z
    .string()
    .optional()
    .describe(`Only search files of this type (ripgrep names: ${knownFileTypes().join(', ')}).`),
  output_mode: z
    .enum(['content', 'files_with_matches', 'count'])
    .optional()
    .describe('"files_with_matches" (default): matching file paths; "content": matching lines; "count": matches per file.'),
  '-i': z.boolean().optional().describe('Case-insensitive search.'),
  '-n': z.boolean().optional().describe('Show line numbers in content mode (default true).'),
  '-A': z.number().int().min(0).optional().describe('Lines of context after each match (content mode).'),
  '-B': z.number().int().min(0).optional().describe('Lines of context before each match (content mode).'),
  '-C': z.number().int().min(0).optional().describe('Lines of context before and after each match (content mode).'),
  multiline: z.boolean().optional().describe('Let the pattern span lines, with . matching newlines.'),
  head_limit: z.number().int().min(0).optional().describe('Only return the first N lines or entries (0 or absent: all).'),
});
export type GrepInput = z.infer<typeof grepInputSchema>;
type GrepMode = NonNullable<GrepInput['output_mode']>;

/** Claude Code's Grep `tool_response`. */
export interface GrepResponse {
  mode: GrepMode;
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  numMatches?: number;
}

interface FileHit extends FoundFile {
  matchCount: number;
  /** Content mode only. */
  matches?: FileMatches;
}

/** The files to search: the single file given, or those under the directory that pass the filters. */
async function candidateFiles(root: SearchRoot, input: GrepInput, ctx: ToolContext): Promise<FoundFile[] | string> {
  const ofType = input.type === undefined ? undefined : fileTypeMatcher(input.type);
  if (input.type !== undefined && ofType === undefined) {
    return `Unknown file type "${input.type}". Known types: ${knownFileTypes().join(', ')}. Or use glob instead.`;
  }
  if (root.kind === 'file') return [{ path: root.path, physical: root.path, mtimeMs: root.mtimeMs, size: root.size }];
  // As ripgrep's --glob, it filters files below the search path: `/abs/**` or `../x/**` would
  // have the host walk other folders (all of `/`) only to drop what it finds there.
  const alternatives = input.glob === undefined ? [] : (expandBraces(input.glob, MAX_BRACE_EXPANSIONS) ?? [input.glob]);
  if (alternatives.some((glob) => isAbsolute(glob) || glob.split('/').includes('..'))) {
    return `Glob ${JSON.stringify(input.glob)} leaves the search path: it filters files below path, so it takes no absolute path or "..". Set path to search another directory.`;
  }
  // Like ripgrep's --glob, a pattern without a slash matches file names at any depth.
  const pattern = input.glob === undefined ? '**/*' : input.glob.includes('/') ? input.glob : `**/${input.glob}`;
  const files = await findFiles(pattern, root.path, root.path, ctx);
  return ofType === undefined ? files : files.filter((file) => ofType(basename(file.path)));
}

async function searchFile(file: FoundFile, run: SearchRun, visible: (text: string) => string): Promise<FileHit | undefined> {
  // Larger files are skipped: they are generated or data, and would stall the search. One that
  // was listed smaller but is larger once read is skipped too.
  if (file.size > MAX_TEXT_FILE_BYTES) return undefined;
  let read: { bytes: Buffer } | { size: number };
  try {
    // Opened as Read opens a file: the checked physical path, not a file with other hard links.
    const handle = await openForReading(file.physical, file.path);
    try {
      read = await readUpTo(handle, MAX_TEXT_FILE_BYTES);
    } finally {
      await handle.close();
    }
  } catch {
    // Vanished, unreadable, or a link since it was listed: nothing to report for it.
    return undefined;
  }
  if ('size' in read) return undefined;
  const { bytes } = read;
  if (looksBinary(bytes)) return undefined;
  if (run.pattern.multiline && performance.now() > run.deadline) {
    run.incomplete = true;
    return undefined;
  }
  // Matched against what Read would show the model: a count over the raw file would let it
  // test a redacted value one character at a time.
  const text = visible(bytes.toString('utf8'));
  if (!run.linesNeeded) {
    const { count, incomplete } = await countMatchingLines(text, run.pattern, run.countUpTo, run);
    if (incomplete) run.incomplete = true;
    return count === 0 ? undefined : { ...file, matchCount: count };
  }
  const matches = await matchFile(text, run.pattern, run);
  if (matches.incomplete) run.incomplete = true;
  return matches.matchedLines.length === 0 ? undefined : { ...file, matchCount: matches.matchedLines.length, matches };
}

/** A matching file as its mode reports it: its path and time, and how many lines matched. */
interface MatchingFile extends FoundFile {
  matchCount: number;
}

/** What a search keeps: never a file's text, only what its mode prints. */
interface Findings {
  /** In path order. */
  files: MatchingFile[];
  /** Content mode: the lines shown, up to head_limit; only the head and tail the model sees are held. */
  lines: MiddleCutLines;
}

/**
 * Searches the files in path order (the order every mode but files_with_matches prints), a
 * batch at a time, keeping of each only what its mode prints: the files' text is let go of
 * batch by batch, not held until the report. Undefined when aborted.
 */
async function searchFiles(files: FoundFile[], run: SearchRun, input: GrepInput, ctx: ToolContext): Promise<Findings | undefined> {
  const ordered = [...files].sort(byPath);
  const findings: Findings = { files: [], lines: new MiddleCutLines() };
  const context = input['-C'] ?? 0;
  const options = { before: input['-B'] ?? context, after: input['-A'] ?? context, lineNumbers: input['-n'] ?? true };
  const withContext = options.before > 0 || options.after > 0;
  const maxLines = input.head_limit || Number.POSITIVE_INFINITY;
  const visible = ctx.redactForModel ?? ((text: string) => text);
  for (let start = 0; start < ordered.length; start += READ_CONCURRENCY) {
    if (ctx.signal.aborted) return undefined;
    const batch = await Promise.all(ordered.slice(start, start + READ_CONCURRENCY).map((file) => searchFile(file, run, visible)));
    for (const hit of batch) {
      if (hit === undefined) continue;
      const { path, physical, mtimeMs, size, matchCount } = hit;
      findings.files.push({ path, physical, mtimeMs, size, matchCount });
      if (hit.matches === undefined || findings.lines.count >= maxLines) continue;
      for (const group of formatMatches(hit.path, hit.matches, options)) {
        // rg's separator between groups of lines that are not adjacent, across files too.
        for (const line of withContext && findings.lines.count > 0 ? ['--', ...group] : group) {
          if (findings.lines.count < maxLines) findings.lines.add(line);
        }
      }
    }
  }
  return findings;
}

function byPath(a: FoundFile, b: FoundFile): number {
  return a.path.localeCompare(b.path);
}

function report(mode: GrepMode, findings: Findings, input: GrepInput): ToolResult {
  const limit = <T>(items: T[]): T[] => (input.head_limit ? items.slice(0, input.head_limit) : items);
  if (mode === 'files_with_matches') {
    const filenames = limit([...findings.files].sort(byNewest)).map((file) => file.path);
    const response: GrepResponse = { mode, numFiles: filenames.length, filenames };
    const content = filenames.length === 0 ? 'No files found' : `Found ${filenames.length} file(s)\n${filenames.join('\n')}`;
    return { ok: true, content: truncateMiddle(content), response };
  }
  if (mode === 'count') {
    const counted = limit(findings.files);
    const content = counted.map((file) => `${file.path}:${file.matchCount}`).join('\n');
    const numMatches = counted.reduce((sum, file) => sum + file.matchCount, 0);
    const response: GrepResponse = { mode, numFiles: counted.length, filenames: counted.map((file) => file.path), content, numMatches };
    return { ok: true, content: counted.length === 0 ? 'No matches found' : truncateMiddle(content), response };
  }
  // Past the output cap, hooks get the text the model sees: the rest was not kept.
  const content = findings.lines.text();
  const response: GrepResponse = {
    mode,
    numFiles: findings.files.length,
    filenames: findings.files.map((file) => file.path),
    content,
    numLines: findings.lines.count,
  };
  return { ok: true, content: findings.lines.count === 0 ? 'No matches found' : content, response };
}

export function createGrepTool(): Tool<GrepInput> {
  return {
    ...builtinToolIdentity('Grep'),
    description:
      'Searches file contents with a regular expression (RE2 syntax, as ripgrep). output_mode "files_with_matches" ' +
      '(default) lists matching files newest first; "content" shows matching lines as path:line:text with optional ' +
      'context (-A, -B, -C); "count" gives matching lines per file. Filter files with glob or type. Skips binary ' +
      'files, files over 5 MB, node_modules and .git.',
    inputSchema: grepInputSchema,
    target: (input) => input.path,
    async run(input, ctx): Promise<ToolResult> {
      let regex: SearchPattern;
      try {
        regex = buildRegex(input.pattern, { ignoreCase: input['-i'] ?? false, multiline: input.multiline ?? false });
      } catch (error) {
        return toolFailure(`Invalid regular expression: ${errorMessage(error)}`);
      }
      try {
        const root = await resolveSearchRoot(input.path, ctx);
        const files = await candidateFiles(root, input, ctx);
        if (typeof files === 'string') return toolFailure(files);
        const mode = input.output_mode ?? 'files_with_matches';
        const run: SearchRun = {
          pattern: regex,
          deadline: performance.now() + MULTILINE_BUDGET_MS,
          signal: ctx.signal,
          incomplete: false,
          linesNeeded: mode === 'content',
          // Whether a file matches is all files_with_matches prints.
          countUpTo: mode === 'files_with_matches' ? 1 : Number.POSITIVE_INFINITY,
        };
        const findings = await searchFiles(files, run, input, ctx);
        if (findings === undefined || ctx.signal.aborted) return toolFailure('Search aborted before it finished', { interrupted: true });
        const result = report(mode, findings, input);
        if (!run.incomplete || !result.ok) return result;
        const seconds = MULTILINE_BUDGET_MS / 1000;
        const note = `[Multiline search stopped after ${seconds} s: the rest was not searched; narrow the pattern or the path]`;
        return { ...result, content: `${result.content}\n${note}` };
      } catch (error) {
        if (ctx.signal.aborted) return toolFailure('Search aborted before it finished', { interrupted: true });
        return toolFailure(errorMessage(error));
      }
    },
  };
}
