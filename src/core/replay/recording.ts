import * as z from 'zod';
import type { AuditReadProblem } from '../audit/audit-reader';
import type { AuditRecord } from '../audit/records';
import type { ChatMessage } from '../agent/llm/chat-model';
import { COMPACTION_STEP } from '../agent/compaction';
import { isTypedPrompt, messageText } from './transcript-text';

/**
 * What a replay needs from a recorded session: each turn's prompt and the model's replies in
 * order, as the audit log (AfterLLM payloads: the replies before any hook rewrote them) or the
 * transcript (the assistant messages as they joined the conversation) kept them.
 */
export interface RecordedTurn {
  prompt: string;
  responses: RecordedReply[];
}

/** A recorded model reply; its tool arguments as text, parsed when the replay serves them. */
export interface RecordedReply {
  content: string;
  toolCalls: RecordedCall[];
  finishReason: string | null;
}

export interface RecordedCall {
  id: string;
  name: string;
  /** The arguments exactly as the model sent them. */
  argumentsText: string;
}

export interface Recording {
  kind: 'audit' | 'transcript';
  sessionId: string;
  /** The recorded workspace root, when known: paths in the replies that name it are mapped to the copy. */
  workspaceRoot?: string;
  turns: RecordedTurn[];
  /** Parts of the session a replay cannot reproduce (steering messages, subagent replies). */
  notes: string[];
}

/** A recording a replay cannot use: torn, cut or not a recording at all. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
}

const recordedCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
});
const afterLlmSchema = z.object({
  llm_response: z.object({ content: z.string(), tool_calls: z.array(recordedCallSchema), finish_reason: z.string().nullable() }),
});
const promptSchema = z.object({ prompt: z.string() });

type Fields = Record<string, unknown>;
const payloadOf = (record: AuditRecord): Fields =>
  record.type === 'event' && typeof record.payload === 'object' && record.payload !== null ? (record.payload as Fields) : {};

/**
 * `read` of record `seq`, where a RangeError (JSON nested deeper than the stack goes, or too
 * large a string: a shared recording can hold anything) is a RecordingError naming the record.
 */
export function readRecorded<T>(seq: number, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new RecordingError(`record ${seq} cannot be read (${error.message}): a value in it is nested too deeply or too large`);
  }
}

function issues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/**
 * The recording in a session's audit records. A torn or invalid line, a log whose beginning
 * is missing, or a reply that does not parse is an error: a replay of part of a session would
 * report differences that are not there.
 */
export function recordingFromAudit(records: readonly AuditRecord[], problems: readonly AuditReadProblem[] = []): Recording {
  if (problems.length > 0) {
    const first = problems[0];
    const more = problems.length > 1 ? ` and ${problems.length - 1} more` : '';
    throw new RecordingError(`the audit log is damaged at line ${first.line} (${first.error})${more}`);
  }
  if (records.length === 0) throw new RecordingError('the audit log has no records');
  if (records[0].seq !== 1) throw new RecordingError(`the audit log starts at record ${records[0].seq}: its beginning is missing`);
  const sessionId = records[0].session_id;
  const turns: RecordedTurn[] = [];
  const notes: string[] = [];
  let workspaceRoot: string | undefined;
  let inTurn = false;
  for (const record of records) {
    if (record.type !== 'event') continue;
    const payload = payloadOf(record);
    // A subagent's events name it; its model replies are not dispatched, so not recorded.
    if (payload.agent_id !== undefined) continue;
    if (record.event === 'SessionStart' && typeof payload.cwd === 'string') workspaceRoot ??= payload.cwd;
    if (record.event === 'UserPromptSubmit') {
      const parsed = promptSchema.safeParse(payload);
      if (!parsed.success) throw new RecordingError(`record ${record.seq}: UserPromptSubmit has no prompt (${issues(parsed.error)})`);
      // While a turn runs, a prompt is a message the person sent to steer it.
      if (inTurn) notes.push(`record ${record.seq}: a message sent while turn ${turns.length} ran is not replayed`);
      else turns.push({ prompt: parsed.data.prompt, responses: [] });
    } else if (record.event === 'TurnStart') {
      inTurn = true;
    } else if (record.event === 'TurnEnd') {
      inTurn = false;
    } else if (record.event === 'AfterLLM' && payload.step !== COMPACTION_STEP) {
      // A compaction's summary is no reply of the turn (and a replay does not compact).
      const parsed = afterLlmSchema.safeParse(payload);
      if (!parsed.success) {
        throw new RecordingError(`record ${record.seq}: the recorded model reply is malformed (${issues(parsed.error)})`);
      }
      const turn = turns[turns.length - 1];
      if (!turn) throw new RecordingError(`record ${record.seq}: a model reply before any prompt`);
      const reply = parsed.data.llm_response;
      const toolCalls = reply.tool_calls.map(({ id, name, arguments: args }) => ({
        id,
        name,
        argumentsText: typeof args === 'string' ? args : readRecorded(record.seq, () => JSON.stringify(args)),
      }));
      turn.responses.push({ content: reply.content, toolCalls, finishReason: reply.finish_reason });
    }
  }
  if (turns.length === 0) throw new RecordingError('the audit log has no prompt: nothing to replay');
  if (inTurn) notes.push(`turn ${turns.length} has no TurnEnd: the log ends while it ran`);
  return { kind: 'audit', sessionId, workspaceRoot, turns, notes };
}

/** A call as the transcript writes it: a shipped recording may hold anything else there. */
const transcriptCallSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});
const transcriptLineSchema = z.union([
  z.object({ type: z.literal('system'), subtype: z.literal('compact_boundary') }),
  // "Deny for this session" (transcript.ts recordSessionDeny): a rule, not a message of the conversation.
  z.object({ type: z.literal('system'), subtype: z.literal('session_deny') }),
  z.object({
    message: z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool']), tool_calls: z.array(transcriptCallSchema).optional() }),
  }),
]);

/**
 * The recording in a transcript (JSONL text). Compaction boundaries are skipped (the full
 * history stays in the file); a line that is not a transcript entry is an error.
 */
export function recordingFromTranscript(text: string | Iterable<string>, sessionId: string): Recording {
  const turns: RecordedTurn[] = [];
  const notes: string[] = [];
  const lines = (typeof text === 'string' ? text.split('\n') : text)[Symbol.iterator]();
  for (let index = 0, next = lines.next(); !next.done; index++, next = lines.next()) {
    const line = next.value;
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      // Cut while it was written: at most the text after the last newline follows.
      const torn = lines.next().done === true || lines.next().done === true;
      throw new RecordingError(`transcript line ${index + 1} is not JSON${torn ? ': the transcript was cut while it was written' : ''}`);
    }
    const parsed = transcriptLineSchema.safeParse(json);
    if (!parsed.success) throw new RecordingError(`transcript line ${index + 1} is not a transcript entry (${issues(parsed.error)})`);
    if (!('message' in parsed.data)) continue;
    const message = parsed.data.message as ChatMessage;
    if (message.role === 'user' && isTypedPrompt(message)) turns.push({ prompt: messageText(message), responses: [] });
    else if (message.role === 'assistant') {
      const turn = turns[turns.length - 1];
      if (!turn) throw new RecordingError(`transcript line ${index + 1}: an assistant message before any prompt`);
      const functions = (message.tool_calls ?? []).filter((c) => c.type === 'function');
      const calls = functions.map((c) => ({ id: c.id, name: c.function.name, argumentsText: c.function.arguments }));
      turn.responses.push({ content: messageText(message), toolCalls: calls, finishReason: calls.length > 0 ? 'tool_calls' : 'stop' });
    }
  }
  if (turns.length === 0) throw new RecordingError('the transcript has no prompt: nothing to replay');
  return { kind: 'transcript', sessionId, turns, notes };
}
