import {
  appendFileSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { endsOnFreshLine } from '../audit/audit-reader';
import { errorMessage } from '../error-message';
import type { ChatMessage } from './llm/chat-model';
import { MAX_REPLY_BYTES } from './llm/reply-limits';
import { SessionLock } from './session-lock';
import { isValidSessionId } from '../session-id';

export interface RestoredSession {
  messages: ChatMessage[];
  /** "Deny for this session" rules, to be in force again. */
  denyRules: string[];
}

/** The tool message a call gets when the process died before its result was written. */
export const INTERRUPTED_CALL = 'Error: the session ended (the process was stopped) before this call finished; whether it ran is unknown.';

/** A line holds one message, the largest of which is a model's reply: a longer line is skipped on read, not held. */
const MAX_LINE_BYTES = MAX_REPLY_BYTES;
const READ_CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;
/**
 * The transcript is opened without following a link (someone else's file would get the
 * conversation) and without waiting on a FIFO (which would block the thread for ever).
 */
const NO_LINK_NO_WAIT = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_LINK_NO_WAIT;

/** A descriptor of the transcript, checked to be a regular file (else closed, and an error thrown). */
function openTranscript(file: string, flags: number): number {
  let fd: number;
  try {
    fd = openSync(file, flags, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new Error(`${file} is a symbolic link (not followed)`);
    throw error;
  }
  const info = fstatSync(fd);
  if (!info.isFile()) {
    closeSync(fd);
    throw new Error(info.isDirectory() ? `EISDIR: ${file} is a folder` : `${file} is not a regular file (a FIFO or a device)`);
  }
  return fd;
}

/** Appends to the transcript, never through a link or into a FIFO. */
function appendTranscript(file: string, text: string): void {
  const fd = openTranscript(file, APPEND_FLAGS);
  try {
    appendFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * The session transcript as JSONL at `transcript_path`, which hooks may read (Claude Code
 * passes the same field). Each message is appended as soon as it is in the conversation, so a
 * crash loses at most the step in flight; a resumed session reads it back. One process at a
 * time writes it (SessionLock).
 */
export class Transcript {
  private written = 0;
  private lock?: SessionLock;

  /** `redact` removes secrets from each message before it is written (the model never saw them either). */
  constructor(
    readonly file: string,
    private readonly redact: <T>(value: T) => T = (value) => value,
  ) {
    // The conversation, even redacted, is for the user alone (as the audit log).
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  }

  /** Takes the session's lock (throws SessionInUseError) and creates the file: hooks may read it from the first event. */
  open(sessionId: string): void {
    this.lock ??= SessionLock.acquire(`${this.file}.lock`, sessionId);
    const fd = openTranscript(this.file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NO_LINK_NO_WAIT);
    try {
      // A line cut off by a crash must not swallow the first message appended after it.
      if (!endsOnFreshLine(fd)) writeSync(fd, '\n');
    } finally {
      closeSync(fd);
    }
  }

  /** Lets another process resume the session. */
  close(): void {
    this.lock?.release();
    this.lock = undefined;
  }

  /** Refuses an id that is not a plain file name: a resumed id comes from a webview message. */
  static pathFor(dir: string, sessionId: string): string {
    if (!isValidSessionId(sessionId)) throw new Error(`invalid session id ${JSON.stringify(sessionId)}`);
    return path.join(dir, `${sessionId}.jsonl`);
  }

  /**
   * A subagent's own transcript (`agent_transcript_path`), in a folder named after its session's
   * as Claude Code lays it out: `<session>/subagents/<agent id>.jsonl`. A session resumed in a new
   * process numbers its subagents from 1 again: what an earlier one wrote there is removed first.
   */
  subagent(agentId: string): Transcript {
    if (!/^[\w-]+$/.test(agentId)) throw new Error(`invalid agent id ${JSON.stringify(agentId)}`);
    const file = path.join(path.dirname(this.file), path.basename(this.file, '.jsonl'), 'subagents', `${agentId}.jsonl`);
    rmSync(file, { force: true });
    return new Transcript(file, this.redact);
  }

  /** Appends the messages not yet written (the system prompt is not part of the transcript). */
  sync(messages: readonly ChatMessage[]): void {
    const fresh = messages.slice(Math.max(this.written, 1));
    if (fresh.length === 0) return;
    appendTranscript(this.file, this.lines(fresh));
    this.written = messages.length;
  }

  private lines(messages: readonly ChatMessage[]): string {
    const timestamp = new Date().toISOString();
    return messages.map((message) => JSON.stringify({ type: message.role, timestamp, message: this.redact(message) }) + '\n').join('');
  }

  /**
   * A person's "Deny for this session": kept in the transcript, so that a resume of the session
   * denies it still (a compaction does not end the session, so it does not drop the rule).
   */
  recordSessionDeny(rule: string): void {
    appendTranscript(
      this.file,
      JSON.stringify({ type: 'system', subtype: 'session_deny', rule, timestamp: new Date().toISOString() }) + '\n',
    );
  }

  /** Continue writing after messages that were restored. */
  markWritten(count: number): void {
    this.written = count;
  }

  /**
   * After a compaction: a boundary record (as Claude Code writes one), then the compacted
   * conversation. The history before it stays in the file for readers; a resume starts at it.
   * Serialized first and written in one append, with the boundary saying how many messages follow
   * it: a crash or a failure midway leaves a boundary a reader knows to be torn, never one that
   * empties the conversation.
   */
  compacted(messages: readonly ChatMessage[]): void {
    const kept = messages.slice(1);
    const boundary = { type: 'system', subtype: 'compact_boundary', keptMessages: kept.length, timestamp: new Date().toISOString() };
    appendTranscript(this.file, JSON.stringify(boundary) + '\n' + this.lines(kept));
    this.written = messages.length;
  }

  /**
   * The session whose transcript in `dir` changed last, if any. Only a regular file named by a
   * valid session id counts: any other name would have no audit log (or a link, someone else's file).
   */
  static latestSessionId(dir: string): string | undefined {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return undefined;
    }
    const candidates = names.flatMap((name) => {
      const sessionId = name.slice(0, -'.jsonl'.length);
      if (!name.endsWith('.jsonl') || !isValidSessionId(sessionId)) return [];
      const info = lstatSync(path.join(dir, name), { throwIfNoEntry: false });
      return info?.isFile() ? [{ sessionId, mtime: info.mtimeMs }] : [];
    });
    return candidates.sort((a, b) => b.mtime - a.mtime)[0]?.sessionId;
  }

  /** `onBadLine` hears of each line that is no record (its 1-based number), which is skipped. */
  static load(file: string, onBadLine?: (lineNumber: number) => void): ChatMessage[] {
    return Transcript.restore(file, onBadLine).messages;
  }

  /**
   * What a resume takes back from the file: the conversation (as `parse`) and the session's deny
   * rules, in order. Read line by line: the file grows without bound (each compaction writes its
   * kept messages again), past what one string can hold. Throws when the file exists but cannot
   * be read: a resume must not go on without the conversation and the rules a person set.
   */
  static restore(file: string, onBadLine?: (lineNumber: number) => void): RestoredSession {
    const records = new RestoredRecords(onBadLine);
    try {
      forEachLine(file, (line, lineNumber) => records.take(line, lineNumber));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { messages: [], denyRules: [] };
      throw new Error(`cannot read the transcript ${file}: ${errorMessage(error)}`);
    }
    return records.result();
  }

  /** A transcript's conversation from its text: from the last compaction on, every call answered. */
  static parse(text: string, onBadLine?: (lineNumber: number) => void): ChatMessage[] {
    const records = new RestoredRecords(onBadLine);
    text.split('\n').forEach((line, index) => records.take(line, index + 1));
    return records.result().messages;
  }

  /**
   * As `parse`, from the text's lines (as `text.split('\n')` gives them), taken one at a time;
   * each message as `keep` keeps it (a reader that needs less of them holds less).
   */
  static parseLines(lines: Iterable<string>, keep?: (message: ChatMessage) => ChatMessage): ChatMessage[] {
    const records = new RestoredRecords(undefined, keep);
    let lineNumber = 0;
    for (const line of lines) records.take(line, ++lineNumber);
    return records.result().messages;
  }
}

/**
 * Calls `onLine` with each line of the file and its 1-based number, reading a chunk at a time.
 * A line over MAX_LINE_BYTES comes as undefined, without being held.
 */
function forEachLine(file: string, onLine: (line: string | undefined, lineNumber: number) => void): void {
  const fd = openTranscript(file, constants.O_RDONLY | NO_LINK_NO_WAIT);
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    // The start of the line a chunk ended in, copied (the chunk is read into again); undefined once too long.
    let head: Buffer[] | undefined = [];
    let headBytes = 0;
    let lineNumber = 0;
    const endLine = (rest: Buffer): void => {
      headBytes += rest.length;
      const whole =
        head === undefined || headBytes > MAX_LINE_BYTES ? undefined : head.length === 0 ? rest : Buffer.concat([...head, rest]);
      onLine(whole?.toString('utf8'), ++lineNumber);
      head = [];
      headBytes = 0;
    };
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
      const data = chunk.subarray(0, read);
      let start = 0;
      for (let newline = data.indexOf(NEWLINE); newline !== -1; newline = data.indexOf(NEWLINE, start)) {
        endLine(data.subarray(start, newline));
        start = newline + 1;
      }
      headBytes += read - start;
      if (head !== undefined && headBytes <= MAX_LINE_BYTES) head.push(Buffer.from(data.subarray(start)));
      else head = undefined;
    }
    if (headBytes > 0) endLine(Buffer.alloc(0));
  } finally {
    closeSync(fd);
  }
}

interface TranscriptRecord {
  message?: ChatMessage;
  subtype?: string;
  rule?: unknown;
  keptMessages?: unknown;
}

function parseRecord(line: string): TranscriptRecord | undefined {
  try {
    const entry: unknown = JSON.parse(line);
    return typeof entry === 'object' && entry !== null ? (entry as TranscriptRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** A transcript's records, taken in order: what a resume needs of them. */
class RestoredRecords {
  private messages: ChatMessage[] = [];
  private readonly denyRules: string[] = [];
  /**
   * The last compaction while not all the messages written with it have been read: a torn one
   * (a crash midway) leaves the conversation as it was before it.
   */
  private compaction?: { before: ChatMessage[]; kept: number };

  constructor(
    private readonly onBadLine?: (lineNumber: number) => void,
    private readonly keep: (message: ChatMessage) => ChatMessage = (message) => message,
  ) {}

  /** `line` undefined: one too long to hold, skipped as a torn one is. */
  take(line: string | undefined, lineNumber: number): void {
    if (line?.trim() === '') return;
    const entry = line === undefined ? undefined : parseRecord(line);
    if (!entry) {
      // A line torn by a crash: the messages around it are still good, but what it held is lost.
      this.tearCompaction();
      this.onBadLine?.(lineNumber);
    } else if (entry.subtype === 'compact_boundary') {
      this.tearCompaction();
      // A boundary written before the count was kept is whole once a message follows it.
      this.compaction = { before: this.messages, kept: typeof entry.keptMessages === 'number' ? entry.keptMessages : 1 };
      this.messages = [];
      this.settleCompaction();
    } else if (entry.subtype === 'session_deny' && typeof entry.rule === 'string') {
      // A compaction does not end the session, so it keeps the session's deny rules.
      this.tearCompaction();
      this.denyRules.push(entry.rule);
    } else if (entry.message && typeof entry.message === 'object' && 'role' in entry.message) {
      this.messages.push(this.keep(entry.message));
      this.settleCompaction();
    }
  }

  /** The conversation from the last whole compaction on, every call answered, and the deny rules. */
  result(): RestoredSession {
    this.tearCompaction();
    return { messages: answerDanglingCalls(this.messages), denyRules: this.denyRules };
  }

  private settleCompaction(): void {
    if (this.compaction && this.messages.length >= this.compaction.kept) this.compaction = undefined;
  }

  private tearCompaction(): void {
    if (!this.compaction) return;
    this.messages = this.compaction.before;
    this.compaction = undefined;
  }
}

/**
 * A crash between a tool call and its result leaves calls without a tool message, which the
 * model API refuses: each gets one saying the call's fate is unknown. A tool message whose call
 * was lost (its assistant line skipped: torn, or longer than a resume reads) is refused just
 * the same: it is dropped.
 */
function answerDanglingCalls(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pending: string[] = [];
  let answerable = new Set<string>();
  const flush = () => {
    for (const id of pending) out.push({ role: 'tool', tool_call_id: id, content: INTERRUPTED_CALL });
    pending = [];
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      if (!answerable.delete(message.tool_call_id)) continue;
      pending = pending.filter((id) => id !== message.tool_call_id);
      out.push(message);
      continue;
    }
    flush();
    out.push(message);
    pending = message.role === 'assistant' && Array.isArray(message.tool_calls) ? message.tool_calls.map((call) => call.id) : [];
    answerable = new Set(pending);
  }
  flush();
  return out;
}
