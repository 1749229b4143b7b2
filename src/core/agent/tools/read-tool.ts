import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { errnoCode, isBinaryFile, MAX_TEXT_FILE_BYTES, openForReading, readUpTo } from './file-content';
import { errorMessage } from '../../error-message';
import { toolFailure, type Tool, type ToolContext, type ToolResult } from './tool';
import { builtinToolIdentity } from './tool-catalog';
import { filePathAccessors, workspaceFile } from './workspace-paths';

export const DEFAULT_READ_LIMIT = 2000;
export const MAX_READ_LINE_CHARS = 2000;
/** Beyond this many characters a read stops early and says where to continue. */
export const MAX_READ_OUTPUT_CHARS = 100_000;

export const readInputSchema = z.object({
  file_path: z.string().min(1).describe('Absolute path of the file to read (a relative path resolves against the working directory).'),
  offset: z.number().int().min(0).optional().describe('Line number to start reading from (1-based). Use it with limit for large files.'),
  limit: z.number().int().positive().optional().describe(`Number of lines to read (default ${DEFAULT_READ_LIMIT}).`),
});
export type ReadInput = z.infer<typeof readInputSchema>;

/** Claude Code's Read `tool_response` for a text file. */
export interface ReadResponse {
  type: 'text';
  file: { filePath: string; content: string; numLines: number; startLine: number; totalLines: number };
}

/**
 * Characters of the lines on each side of a window of a file over MAX_TEXT_FILE_BYTES that are
 * redacted with it: a secret longer than this across the window's edge is not recognised.
 */
export const READ_WINDOW_CONTEXT_CHARS = 64 * 1024;

/**
 * Characters of a longer line of a streamed file held from its start: the rest, but for its
 * last READ_WINDOW_CONTEXT_CHARS, is not held. A file can be one line of gigabytes.
 */
export const MAX_HELD_LINE_CHARS = 2 * READ_WINDOW_CONTEXT_CHARS;

/** A line, without its `\n` / `\r\n` terminator. */
interface Line {
  /** The line, or, once cut, its first MAX_HELD_LINE_CHARS characters followed by its last ones. */
  text: string;
  /** Where a cut line's start ends in `text`: the characters between it and the line's end are left out. */
  cutAt?: number;
}

/**
 * Lines of a text stream, each held up to `maxChars` characters and its end. Only each new
 * chunk is searched for a newline, so that a file with long lines costs time linear in its size.
 */
async function* splitLines(chunks: AsyncIterable<string> | Iterable<string>, maxChars = Infinity): AsyncGenerator<Line> {
  let start = '';
  // Once the line is longer than maxChars: its last READ_WINDOW_CONTEXT_CHARS characters.
  let end: string | undefined;
  const add = (part: string) => {
    if (end === undefined) {
      const room = maxChars - start.length;
      if (part.length <= room) {
        start += part;
        return;
      }
      start += part.slice(0, room);
      part = part.slice(room);
      end = '';
    }
    end =
      part.length >= READ_WINDOW_CONTEXT_CHARS ? part.slice(-READ_WINDOW_CONTEXT_CHARS) : (end + part).slice(-READ_WINDOW_CONTEXT_CHARS);
  };
  const take = (): Line => {
    const line: Line = end === undefined ? { text: start } : { text: start + end, cutAt: start.length };
    start = '';
    end = undefined;
    return line.text.endsWith('\r') ? { ...line, text: line.text.slice(0, -1) } : line;
  };
  let held = false;
  for await (const chunk of chunks) {
    let from = 0;
    let newline = chunk.indexOf('\n');
    while (newline !== -1) {
      add(chunk.slice(from, newline));
      yield take();
      held = false;
      from = newline + 1;
      newline = chunk.indexOf('\n', from);
    }
    if (from < chunk.length) {
      add(chunk.slice(from));
      held = true;
    }
  }
  if (held) yield take();
}

interface LineWindow<L = string> {
  /** Cut to MAX_READ_LINE_CHARS once redacted; uncut until then. */
  lines: L[];
  totalLines: number;
  /** Whether the character budget ended the window before `limit` lines. */
  cutShort: boolean;
}

/**
 * A line as the model may see it, cut to MAX_READ_LINE_CHARS. Only redacted text is cut: a
 * secret cut short matches neither its value nor its pattern.
 */
function shownLine(line: string): string {
  return line.length > MAX_READ_LINE_CHARS ? `${line.slice(0, MAX_READ_LINE_CHARS)}... [line truncated]` : line;
}

/**
 * Characters of a window's lines held uncut, until they are redacted, at most: its first line
 * is held however long, up to what the line splitter holds of it.
 */
const MAX_UNCUT_WINDOW_CHARS = MAX_TEXT_FILE_BYTES;

/** Lines before the window, at most READ_WINDOW_CONTEXT_CHARS of them (or the one line before it). */
class LinesBefore {
  readonly lines: string[] = [];
  private chars = 0;

  push(line: string): void {
    this.lines.push(line);
    this.chars += line.length + 1;
    while (this.chars > READ_WINDOW_CONTEXT_CHARS && this.lines.length > 1) this.chars -= (this.lines.shift() as string).length + 1;
  }
}

interface WindowRequest {
  startLine: number;
  limit: number;
  signal: AbortSignal;
  /** Filled with the lines around the window: the last ones before it, the first after it. */
  context?: { before: LinesBefore; after: string[] };
}

/**
 * The window of `lines` from `startLine`: `limit` lines, MAX_READ_OUTPUT_CHARS at most once
 * cut, and MAX_UNCUT_WINDOW_CHARS at most uncut. Its lines are returned uncut.
 */
async function collectWindow(lines: AsyncIterable<Line>, request: WindowRequest): Promise<LineWindow<Line>> {
  const { startLine, limit, context } = request;
  const window: Line[] = [];
  let totalLines = 0;
  let chars = 0;
  let rawChars = 0;
  let afterChars = 0;
  let cutShort = false;
  for await (const line of lines) {
    const raw = line.text;
    // The signal is checked per line rather than given to the stream, whose AbortError on an
    // already-aborted signal came before any listener and ended the process.
    if (request.signal.aborted) throw new Error('aborted');
    totalLines += 1;
    if (totalLines < startLine) {
      context?.before.push(raw);
      continue;
    }
    if (totalLines < startLine + limit && !cutShort) {
      const shownChars = shownLine(raw).length;
      const fits = chars + shownChars <= MAX_READ_OUTPUT_CHARS && rawChars + raw.length <= MAX_UNCUT_WINDOW_CHARS;
      if (fits || window.length === 0) {
        window.push(line);
        chars += shownChars + 8;
        rawChars += raw.length + 1;
        continue;
      }
      cutShort = true;
    }
    if (context && afterChars < READ_WINDOW_CONTEXT_CHARS) {
      context.after.push(raw);
      afterChars += raw.length + 1;
    }
  }
  return { lines: window, totalLines, cutShort };
}

/**
 * A file Grep would search too is redacted whole before it is cut into lines: a secret that
 * spans lines (a private key's body, a quoted `.env` value) is recognised only whole, so a
 * window starting inside it would show the rest. Line numbers then follow the redacted text,
 * as Grep's do.
 */
async function readWholeWindow(text: string, startLine: number, limit: number, ctx: ToolContext): Promise<LineWindow> {
  const visible = ctx.redactForModel ? ctx.redactForModel(text) : text;
  const window = await collectWindow(splitLines([visible]), { startLine, limit, signal: ctx.signal });
  return { ...window, lines: window.lines.map((line) => shownLine(line.text)) };
}

/** A cut line as if it were cut READ_WINDOW_CONTEXT_CHARS sooner. */
function cutSooner(line: Line): string {
  return line.cutAt === undefined ? line.text : line.text.slice(0, line.cutAt - READ_WINDOW_CONTEXT_CHARS) + line.text.slice(line.cutAt);
}

/**
 * A larger file is read as a stream, in bounded memory: its window is redacted together with
 * the lines around it. A secret across the window's edge would be redacted differently on its
 * own, so then the window is refused (the text says why) rather than shown cut. Long lines are
 * cut only after that, as in a whole file: a secret starting past a line's cut still hides
 * the lines of it that follow. A line too long to hold is cut as it is read: one whose shown
 * start changes when cut sooner may show part of a secret across the cut, and is refused so.
 */
async function readStreamedWindow(handle: FileHandle, startLine: number, limit: number, ctx: ToolContext): Promise<LineWindow | string> {
  const context = { before: new LinesBefore(), after: [] as string[] };
  const stream = createReadStream('', { fd: handle, start: 0, autoClose: false, encoding: 'utf8' });
  let window: LineWindow<Line>;
  try {
    window = await collectWindow(splitLines(stream, MAX_HELD_LINE_CHARS), {
      startLine,
      limit,
      signal: ctx.signal,
      context,
    });
  } finally {
    stream.destroy();
  }
  const redact = ctx.redactForModel;
  if (redact === undefined || window.lines.length === 0) return { ...window, lines: window.lines.map((line) => shownLine(line.text)) };
  const before = context.before.lines.map((line) => `${line}\n`).join('');
  const lines = window.lines.map((line) => line.text).join('\n');
  const after = context.after.map((line) => `\n${line}`).join('');
  const visible = redact(lines);
  if (redact(before) + visible + redact(after) !== redact(before + lines + after)) {
    const lastLine = startLine + window.lines.length - 1;
    return `lines ${startLine}-${lastLine} would cut through a secret that continues beyond them, so they are not shown; read a window that starts and ends elsewhere.`;
  }
  const seen = visible.split('\n').map(shownLine);
  if (window.lines.some((line) => line.cutAt !== undefined)) {
    const sooner = redact(window.lines.map(cutSooner).join('\n')).split('\n').map(shownLine);
    if (seen.some((line, index) => line !== sooner[index])) {
      const lastLine = startLine + window.lines.length - 1;
      return `lines ${startLine}-${lastLine} hold a line over ${MAX_HELD_LINE_CHARS} characters whose cut might go through a secret, so they are not shown; read a window without it.`;
    }
  }
  return { ...window, lines: seen };
}

/** `cat -n` layout: the line number right-aligned in six columns, a tab, the line. */
export function numberLines(lines: string[], startLine: number): string {
  return lines.map((line, index) => `${String(startLine + index).padStart(6)}\t${line}`).join('\n');
}

function describeWindow(filePath: string, window: LineWindow, startLine: number): string {
  if (window.totalLines === 0) return `(${filePath} exists but is empty.)`;
  if (window.lines.length === 0) return `(${filePath} has ${window.totalLines} lines; offset ${startLine} is past the end.)`;
  const text = numberLines(window.lines, startLine);
  const lastShown = startLine + window.lines.length - 1;
  if (lastShown >= window.totalLines) return text;
  const reason = window.cutShort ? ' (output size limit reached)' : '';
  return `${text}\n\n(Showing lines ${startLine}-${lastShown} of ${window.totalLines}${reason}. Use offset and limit to read more.)`;
}

/** Opens the checked file for reading, or says why it cannot be read. */
async function openReadable(physical: string, filePath: string, requested: string): Promise<FileHandle | string> {
  let handle: FileHandle;
  try {
    handle = await openForReading(physical, requested);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return `File does not exist: ${filePath}`;
    return `Cannot read ${filePath}: ${errorMessage(error)}`;
  }
  const problem = await readProblem(handle, filePath).catch((error: unknown) => `Cannot read ${filePath}: ${errorMessage(error)}`);
  if (problem === undefined) return handle;
  await handle.close();
  return problem;
}

async function readProblem(handle: FileHandle, filePath: string): Promise<string | undefined> {
  const info = await handle.stat();
  if (info.isDirectory()) return `${filePath} is a directory, not a file. Use Glob or Bash (ls) to list it.`;
  if (await isBinaryFile(handle)) return `Cannot read ${filePath}: it is a binary file (${info.size} bytes), not text.`;
  return undefined;
}

export function createReadTool(): Tool<ReadInput> {
  return {
    ...builtinToolIdentity('Read'),
    description:
      `Reads a text file and returns its lines numbered like cat -n (number, tab, line). Reads up to ${DEFAULT_READ_LIMIT} ` +
      `lines from the start by default; use offset (1-based line) and limit for large files. Lines longer than ` +
      `${MAX_READ_LINE_CHARS} characters are truncated. Refuses directories and binary files. Paths must be inside the workspace.`,
    inputSchema: readInputSchema,
    ...filePathAccessors(),
    async run(input, ctx): Promise<ToolResult> {
      const file = workspaceFile(input.file_path, ctx);
      if (!file.ok) return toolFailure(file.error);
      const filePath = file.path;
      const handle = await openReadable(file.physical, filePath, input.file_path);
      if (typeof handle === 'string') return toolFailure(handle);
      const startLine = Math.max(1, input.offset ?? 1);
      const limit = input.limit ?? DEFAULT_READ_LIMIT;
      let window: LineWindow | string;
      try {
        // Read whole up to the cap, which it checks as it reads: the file may have grown since any check.
        const whole = await readUpTo(handle, MAX_TEXT_FILE_BYTES);
        window =
          'bytes' in whole
            ? await readWholeWindow(whole.bytes.toString('utf8'), startLine, limit, ctx)
            : await readStreamedWindow(handle, startLine, limit, ctx);
      } catch (error) {
        if (ctx.signal.aborted) return toolFailure(`Reading ${filePath} was aborted`, { interrupted: true });
        return toolFailure(`Cannot read ${filePath}: ${errorMessage(error)}`);
      } finally {
        await handle.close();
      }
      if (typeof window === 'string') return toolFailure(`Cannot show ${filePath}: ${window}`);
      const response: ReadResponse = {
        type: 'text',
        file: { filePath, content: window.lines.join('\n'), numLines: window.lines.length, startLine, totalLines: window.totalLines },
      };
      return { ok: true, content: describeWindow(filePath, window, startLine), response };
    },
  };
}
