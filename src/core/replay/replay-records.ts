import { parseAuditLine, tornLineProblem, type AuditReadProblem, type AuditReadResult } from '../audit/audit-reader';
import type { AuditRecord } from '../audit/records';
import type { ChatMessage } from '../agent/llm/chat-model';
import { subjectTextOf } from './decisions';
import { readRecorded } from './recording';
import { messageText } from './transcript-text';

type Fields = Record<string, unknown>;

/** The payload fields a replay reads (recordingFromAudit, decisionsOf); a tool's input only as its subject's text. */
const KEPT_FIELDS = ['agent_id', 'cwd', 'step', 'prompt', 'tool_use_id', 'tool_name'];

/**
 * What a replay keeps of a recorded audit record: the fields recordingFromAudit and
 * decisionsOf read, with objects of any size (tool inputs, tool arguments) kept as text.
 * Parsed JSON takes many times its text in memory: a recording of small objects held whole
 * would take the host down long before the file reached the size cap.
 */
export function keptRecord(record: AuditRecord): AuditRecord {
  return readRecorded(record.seq, () => kept(record));
}

function kept(record: AuditRecord): AuditRecord {
  if (record.type === 'hook_run') {
    const { input: _input, effects: _effects, stdout: _stdout, stderr: _stderr, ...kept } = record;
    return kept;
  }
  if (record.type === 'note') {
    const { data: _data, ...kept } = record;
    return kept;
  }
  if (record.type !== 'event' || typeof record.payload !== 'object' || record.payload === null) return record;
  const payload = record.payload as Fields;
  const kept: Fields = {};
  for (const field of KEPT_FIELDS) if (payload[field] !== undefined) kept[field] = payload[field];
  if (payload.tool_input !== undefined) kept.tool_input = subjectTextOf(payload.tool_input);
  if (record.event === 'AfterLLM') kept.llm_response = keptReply(payload.llm_response);
  return { ...record, payload: kept };
}

/** A reply's tool arguments as text; anything malformed is left for recordingFromAudit to report. */
function keptReply(reply: unknown): unknown {
  if (typeof reply !== 'object' || reply === null || !Array.isArray((reply as Fields).tool_calls)) return reply;
  const calls = (reply as Fields).tool_calls as unknown[];
  const keptCalls = calls.map((call) => {
    if (typeof call !== 'object' || call === null) return call;
    const args = (call as Fields).arguments;
    const isObject = typeof args === 'object' && args !== null && !Array.isArray(args);
    return isObject ? { ...call, arguments: JSON.stringify(args) } : call;
  });
  return { ...reply, tool_calls: keptCalls };
}

/**
 * What a replay keeps of a transcript message (outcomesOfTranscript reads no more): its role,
 * its text, its calls' names and arguments, and the call a tool message answers.
 */
export function keptMessage(message: ChatMessage): ChatMessage {
  const fields = message as unknown as Fields;
  const kept: Fields = { role: message.role, content: messageText(message) };
  if (typeof fields.tool_call_id === 'string') kept.tool_call_id = fields.tool_call_id;
  if (Array.isArray(fields.tool_calls)) kept.tool_calls = fields.tool_calls.map(keptCall);
  return kept as unknown as ChatMessage;
}

function keptCall(call: unknown): unknown {
  if (typeof call !== 'object' || call === null) return call;
  const { id, type, function: fn } = call as Fields;
  if (typeof fn !== 'object' || fn === null) return { id, type, function: fn };
  return { id, type, function: { name: (fn as Fields).name, arguments: (fn as Fields).arguments } };
}

/**
 * An audit log's records from the lines of its text (as `text.split('\n')` gives them), as
 * readAuditFile reads them from the file, each as keptRecord keeps it: a replay parses the one
 * text it read (a file read twice could be swapped in between), a line at a time.
 */
export function auditRecordsOf(lines: Iterable<string>): AuditReadResult {
  const records: AuditRecord[] = [];
  const problems: AuditReadProblem[] = [];
  // The line after the last newline: one the writer was cut off in, skipped and reported.
  let pending: { raw: string; number: number } | undefined;
  let lastInvalid: { problem: AuditReadProblem; bytes: number } | undefined;
  const take = (raw: string, number: number) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const parsed = parseAuditLine(line);
    lastInvalid = undefined;
    if (parsed.ok) {
      records.push(keptRecord(parsed.record));
      return;
    }
    const problem = { line: number, error: parsed.error };
    problems.push(problem);
    if (parsed.invalidJson) lastInvalid = { problem, bytes: Buffer.byteLength(raw) };
  };
  let number = 0;
  for (const raw of lines) {
    if (pending) take(pending.raw, pending.number);
    pending = { raw, number: ++number };
  }
  if (pending && pending.raw !== '') problems.push(tornLineProblem(pending.number, Buffer.byteLength(pending.raw)));
  else if (lastInvalid) Object.assign(lastInvalid.problem, tornLineProblem(lastInvalid.problem.line, lastInvalid.bytes));
  return { records, problems };
}
