import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { errnoCode, isBinaryFile, openForReading } from './file-content';
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
async function* splitLines(chunks: AsyncIterable<string>): AsyncGenerator<string> {
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
  lines: string[];
  totalLines: number;
  /** Whether the character budget ended the window before `limit` lines. */
  cutShort: boolean;
}

/** A line as the model may see it, cut to MAX_READ_LINE_CHARS. */
function shownLine(raw: string, redact: ((text: string) => string) | undefined): string {
  if (raw.length <= MAX_READ_LINE_CHARS) return raw;
  // Redacted whole before the cut: a secret cut short matches neither its value nor its pattern.
  const line = redact ? redact(raw) : raw;
  return line.length > MAX_READ_LINE_CHARS ? `${line.slice(0, MAX_READ_LINE_CHARS)}... [line truncated]` : line;
}

async function readLineWindow(handle: FileHandle, startLine: number, limit: number, ctx: ToolContext): Promise<LineWindow> {
  const lines: string[] = [];
  let totalLines = 0;
  let chars = 0;
  let cutShort = false;
  // The signal is checked per line rather than given to the stream, whose AbortError on an
  // already-aborted signal came before any listener and ended the process.
  const stream = createReadStream('', { fd: handle, start: 0, autoClose: false, encoding: 'utf8' });
  for await (const raw of splitLines(stream)) {
    if (ctx.signal.aborted) {
      stream.destroy();
      throw new Error('aborted');
    }
    totalLines += 1;
    if (totalLines < startLine || totalLines >= startLine + limit || cutShort) continue;
    const line = shownLine(raw, ctx.redactForModel);
    if (chars + line.length > MAX_READ_OUTPUT_CHARS && lines.length > 0) {
      cutShort = true;
      continue;
    }
    lines.push(line);
    chars += line.length + 8;
  }
  return { lines, totalLines, cutShort };
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
      let window: LineWindow;
      try {
        window = await readLineWindow(handle, startLine, input.limit ?? DEFAULT_READ_LIMIT, ctx);
      } catch (error) {
        if (ctx.signal.aborted) return toolFailure(`Reading ${filePath} was aborted`, { interrupted: true });
        return toolFailure(`Cannot read ${filePath}: ${errorMessage(error)}`);
      } finally {
        await handle.close();
      }
      const response: ReadResponse = {
        type: 'text',
        file: { filePath, content: window.lines.join('\n'), numLines: window.lines.length, startLine, totalLines: window.totalLines },
      };
      return { ok: true, content: describeWindow(filePath, window, startLine), response };
    },
  };
}
