import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { errnoCode, isBinaryFile, MAX_TEXT_FILE_BYTES, openForReading } from './file-content';
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
 * Lines of a text stream, without their `\n` / `\r\n` terminators. Only each new chunk is
 * searched for a newline, so that a file with long lines costs time linear in its size.
 */
async function* splitLines(chunks: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  let pending = '';
  for await (const chunk of chunks) {
    let start = 0;
    let newline = chunk.indexOf('\n');
    while (newline !== -1) {
      const line = pending + chunk.slice(start, newline);
      pending = '';
      yield line.endsWith('\r') ? line.slice(0, -1) : line;
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
    }
    pending += chunk.slice(start);
  }
  if (pending !== '') yield pending;
}

interface LineWindow {
  /** Cut to MAX_READ_LINE_CHARS once redacted; uncut until then. */
  lines: string[];
  totalLines: number;
  /** Whether the character budget ended the window before `limit` lines. */
  cutShort: boolean;
}

/**
 * Characters of the lines on each side of a window of a file over MAX_TEXT_FILE_BYTES that are
 * redacted with it: a secret longer than this across the window's edge is not recognised.
 */
export const READ_WINDOW_CONTEXT_CHARS = 64 * 1024;

/**
 * A line as the model may see it, cut to MAX_READ_LINE_CHARS. Only redacted text is cut: a
 * secret cut short matches neither its value nor its pattern.
 */
function shownLine(line: string): string {
  return line.length > MAX_READ_LINE_CHARS ? `${line.slice(0, MAX_READ_LINE_CHARS)}... [line truncated]` : line;
}

/**
 * Characters of a window's lines held uncut, until they are redacted, at most: its first line
 * is held whole however long, as the line splitter holds it.
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
async function collectWindow(lines: AsyncIterable<string>, request: WindowRequest): Promise<LineWindow> {
  const { startLine, limit, context } = request;
  const window: string[] = [];
  let totalLines = 0;
  let chars = 0;
  let rawChars = 0;
  let afterChars = 0;
  let cutShort = false;
  for await (const raw of lines) {
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
        window.push(raw);
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
async function readWholeWindow(handle: FileHandle, startLine: number, limit: number, ctx: ToolContext): Promise<LineWindow> {
  const text = await handle.readFile({ encoding: 'utf8' });
  const visible = ctx.redactForModel ? ctx.redactForModel(text) : text;
  const window = await collectWindow(splitLines([visible]), { startLine, limit, signal: ctx.signal });
  return { ...window, lines: window.lines.map(shownLine) };
}

/**
 * A larger file is read as a stream, in bounded memory: its window is redacted together with
 * the lines around it. A secret across the window's edge would be redacted differently on its
 * own, so then the window is refused (the text says why) rather than shown cut. Long lines are
 * cut only after that, as in a whole file: a secret starting past a line's cut still hides
 * the lines of it that follow.
 */
async function readStreamedWindow(handle: FileHandle, startLine: number, limit: number, ctx: ToolContext): Promise<LineWindow | string> {
  const context = { before: new LinesBefore(), after: [] as string[] };
  const stream = createReadStream('', { fd: handle, start: 0, autoClose: false, encoding: 'utf8' });
  let window: LineWindow;
  try {
    window = await collectWindow(splitLines(stream), {
      startLine,
      limit,
      signal: ctx.signal,
      context,
    });
  } finally {
    stream.destroy();
  }
  const redact = ctx.redactForModel;
  if (redact === undefined || window.lines.length === 0) return { ...window, lines: window.lines.map(shownLine) };
  const before = context.before.lines.map((line) => `${line}\n`).join('');
  const lines = window.lines.join('\n');
  const after = context.after.map((line) => `\n${line}`).join('');
  const visible = redact(lines);
  if (redact(before) + visible + redact(after) !== redact(before + lines + after)) {
    const lastLine = startLine + window.lines.length - 1;
    return `lines ${startLine}-${lastLine} would cut through a secret that continues beyond them, so they are not shown; read a window that starts and ends elsewhere.`;
  }
  return { ...window, lines: visible.split('\n').map(shownLine) };
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
        const info = await handle.stat();
        window =
          info.isFile() && info.size <= MAX_TEXT_FILE_BYTES
            ? await readWholeWindow(handle, startLine, limit, ctx)
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
