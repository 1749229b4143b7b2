import { appendFileSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { endsOnFreshLine } from '../audit/audit-reader';
import type { ChatMessage } from './llm/chat-model';
import { SessionLock } from './session-lock';
import { isValidSessionId } from '../session-id';

export interface RestoredSession {
  messages: ChatMessage[];
  /** "Deny for this session" rules, to be in force again. */
  denyRules: string[];
}

/** The tool message a call gets when the process died before its result was written. */
export const INTERRUPTED_CALL = 'Error: the session ended (the process was stopped) before this call finished; whether it ran is unknown.';

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
    const fd = openSync(this.file, 'a+', 0o600);
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

  /** Appends the messages not yet written (the system prompt is not part of the transcript). */
  sync(messages: readonly ChatMessage[]): void {
    const fresh = messages.slice(Math.max(this.written, 1));
    if (fresh.length === 0) return;
    const ts = new Date().toISOString();
    appendFileSync(
      this.file,
      fresh.map((message) => JSON.stringify({ type: message.role, timestamp: ts, message: this.redact(message) }) + '\n').join(''),
    );
    this.written = messages.length;
  }

  /**
   * A person's "Deny for this session": kept in the transcript, so that a resume of the session
   * denies it still (a compaction does not end the session, so it does not drop the rule).
   */
  recordSessionDeny(rule: string): void {
    appendFileSync(
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
   */
  compacted(messages: readonly ChatMessage[]): void {
    appendFileSync(this.file, JSON.stringify({ type: 'system', subtype: 'compact_boundary', timestamp: new Date().toISOString() }) + '\n');
    this.written = 0;
    this.sync(messages);
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

  /** What a resume takes back from the file: the conversation (as `parse`) and the session's deny rules, in order. */
  static restore(file: string, onBadLine?: (lineNumber: number) => void): RestoredSession {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return { messages: [], denyRules: [] };
    }
    return Transcript.read(text, onBadLine);
  }

  /** A transcript's conversation from its text: from the last compaction on, every call answered. */
  static parse(text: string, onBadLine?: (lineNumber: number) => void): ChatMessage[] {
    return Transcript.read(text, onBadLine).messages;
  }

  private static read(text: string, onBadLine?: (lineNumber: number) => void): RestoredSession {
    const messages: ChatMessage[] = [];
    const denyRules: string[] = [];
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        const entry = JSON.parse(line) as { message?: ChatMessage; subtype?: string; rule?: unknown };
        if (entry.subtype === 'compact_boundary') messages.length = 0;
        // A compaction does not end the session, so it keeps the session's deny rules.
        else if (entry.subtype === 'session_deny' && typeof entry.rule === 'string') denyRules.push(entry.rule);
        else if (entry.message && typeof entry.message === 'object' && 'role' in entry.message) messages.push(entry.message);
      } catch {
        // A line torn by a crash: the messages around it are still good, but what it held is lost.
        onBadLine?.(index + 1);
      }
    });
    return { messages: answerDanglingCalls(messages), denyRules };
  }
}

/**
 * A crash between a tool call and its result leaves calls without a tool message, which the
 * model API refuses: each gets one saying the call's fate is unknown.
 */
function answerDanglingCalls(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pending: string[] = [];
  const flush = () => {
    for (const id of pending) out.push({ role: 'tool', tool_call_id: id, content: INTERRUPTED_CALL });
    pending = [];
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      pending = pending.filter((id) => id !== message.tool_call_id);
      out.push(message);
      continue;
    }
    flush();
    out.push(message);
    if (message.role === 'assistant' && message.tool_calls) pending = message.tool_calls.map((call) => call.id);
  }
  flush();
  return out;
}
