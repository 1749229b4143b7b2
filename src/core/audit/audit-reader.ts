import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { auditRecordSchema, type AuditRecord } from './records';
import { errorMessage } from '../error-message';

/**
 * Reads a session's JSONL audit file, crash-tolerantly: a line the writer was cut off in
 * the middle of (the last one) is skipped and reported, never returned half-parsed.
 */

export interface AuditReadProblem {
  /** 1-based line number in the file. */
  line: number;
  error: string;
}

export interface AuditReadResult {
  records: AuditRecord[];
  problems: AuditReadProblem[];
}

export type ParsedAuditLine = { ok: true; record: AuditRecord } | { ok: false; invalidJson: boolean; error: string };

const NEWLINE = 0x0a;
const READ_CHUNK_BYTES = 1024 * 1024;
const TAIL_CHUNK_BYTES = 64 * 1024;

export function parseAuditLine(text: string): ParsedAuditLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, invalidJson: true, error: `invalid JSON: ${errorMessage(error)}` };
  }
  const parsed = auditRecordSchema.safeParse(json);
  if (parsed.success) return { ok: true, record: parsed.data };
  const issues = parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message));
  return { ok: false, invalidJson: false, error: `invalid record: ${issues.join('; ')}` };
}

export function tornLineProblem(line: number, bytes: number): AuditReadProblem {
  return { line, error: `torn last line (${bytes} bytes) skipped` };
}

/** What `onRecord` returns to stop reading: the rest of the file is neither read nor checked. */
export const STOP_READING: unique symbol = Symbol('stop reading');

/**
 * Hands each record of the file to `onRecord` as it is read, line by line, keeping none: a
 * caller keeps what it needs, so a log of any size is read in memory for a few records.
 * Returns the problems (invalid lines, a torn last line).
 */
export async function forEachAuditRecord(path: string, onRecord: (record: AuditRecord) => unknown): Promise<AuditReadProblem[]> {
  const problems: AuditReadProblem[] = [];
  let lineNo = 0;
  let stopped = false;
  // The last non-blank line, if it was not JSON: it becomes a torn line if nothing follows it.
  let lastInvalid: { problem: AuditReadProblem; bytes: number } | undefined;

  const takeLine = (bytes: Buffer) => {
    lineNo++;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const text = bytes.toString('utf8', 0, end);
    if (text.trim() === '') return;
    const parsed = parseAuditLine(text);
    lastInvalid = undefined;
    if (parsed.ok) {
      if (onRecord(parsed.record) === STOP_READING) stopped = true;
      return;
    }
    const problem = { line: lineNo, error: parsed.error };
    problems.push(problem);
    if (parsed.invalidJson) lastInvalid = { problem, bytes: bytes.length };
  };

  let partial: Buffer[] = [];
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      let start = 0;
      for (let nl = buf.indexOf(NEWLINE, start); nl !== -1 && !stopped; nl = buf.indexOf(NEWLINE, start)) {
        const piece = buf.subarray(start, nl);
        takeLine(partial.length > 0 ? Buffer.concat([...partial, piece]) : piece);
        partial = [];
        start = nl + 1;
      }
      if (stopped) return problems;
      if (start < buf.length) partial.push(buf.subarray(start));
    }
  } finally {
    stream.destroy();
  }

  if (partial.length > 0) {
    const bytes = partial.reduce((n, b) => n + b.length, 0);
    problems.push(tornLineProblem(lineNo + 1, bytes));
  } else if (lastInvalid) {
    const { problem, bytes } = lastInvalid;
    Object.assign(problem, tornLineProblem(problem.line, bytes));
  }
  return problems;
}

/** The whole file's records: for a log known to be small (a replay's run); a timeline streams. */
export async function readAuditFile(path: string): Promise<AuditReadResult> {
  const records: AuditRecord[] = [];
  const problems = await forEachAuditRecord(path, (record) => void records.push(record));
  return { records, problems };
}

export interface AuditFileTail {
  /** The highest seq among the last valid records (0 for an empty file). */
  lastSeq: number;
  /** False when a write was cut off: the next write must start on a fresh line. */
  endsWithNewline: boolean;
}

/**
 * Finds the seq of the last valid record by reading backwards from the end, chunk by chunk,
 * so reopening a large log costs only its tail. Synchronous: a writer needs it before it
 * can number its first record, and it reads a few KiB once per session. A missing file
 * is an empty log.
 */
export function readAuditFileTail(path: string): AuditFileTail {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lastSeq: 0, endsWithNewline: true };
    throw error;
  }
  try {
    return scanTail(fd, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

/** Whether what is appended to the open file starts on a line of its own: it is empty or ends with a newline. */
export function endsOnFreshLine(fd: number, size = fstatSync(fd).size): boolean {
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === NEWLINE;
}

function scanTail(fd: number, size: number): AuditFileTail {
  if (size === 0) return { lastSeq: 0, endsWithNewline: true };
  const endsWithNewline = endsOnFreshLine(fd, size);

  let end = size;
  // Bytes of a line whose start lies before `end`, not yet seen.
  let carry = Buffer.alloc(0);
  while (end > 0) {
    const start = Math.max(0, end - TAIL_CHUNK_BYTES);
    const chunk = Buffer.alloc(end - start);
    readSync(fd, chunk, 0, chunk.length, start);
    const data = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
    let lineEnd = data.length;
    while (lineEnd > 0) {
      const nl = data.lastIndexOf(NEWLINE, lineEnd - 1);
      if (nl === -1 && start > 0) break;
      const seq = seqOf(data.subarray(nl + 1, lineEnd));
      if (seq !== undefined) return { lastSeq: seq, endsWithNewline };
      lineEnd = Math.max(nl, 0);
    }
    carry = Buffer.from(data.subarray(0, lineEnd));
    end = start;
  }
  return { lastSeq: 0, endsWithNewline };
}

function seqOf(line: Buffer): number | undefined {
  if (line.length === 0) return undefined;
  const parsed = parseAuditLine(line.toString('utf8'));
  return parsed.ok ? parsed.record.seq : undefined;
}
