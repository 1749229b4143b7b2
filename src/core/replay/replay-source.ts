import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Transcript } from '../agent/transcript';
import { readAuditFile } from '../audit/audit-reader';
import { auditFilePath } from '../audit/audit-writer';
import { errorMessage } from '../error-message';
import { FileTooLargeError, readRegularBytes } from '../read-regular-file';
import { auditRecordsOf, keptMessage } from './replay-records';
import { decisionsOf, diffDecisions, outcomesOfTranscript, type Decision, type DecisionDifference } from './decisions';
import { recordingFromAudit, recordingFromTranscript, RecordingError, type Recording } from './recording';

/** A recording and the decisions it holds, with the way a replay's run is read for comparison. */
export interface ReplaySource {
  file: string;
  recording: Recording;
  recorded: Decision[];
}

/** The first non-blank line of a file is enough to tell an audit log (seq, type) from a transcript. */
function isAuditText(lines: Iterable<string>): boolean {
  let first: string | undefined;
  for (const line of lines) {
    first = line;
    if (line.trim() !== '') break;
  }
  if (first === undefined || first.trim() === '') throw new RecordingError('the file is empty');
  try {
    const value = JSON.parse(first) as Record<string, unknown>;
    return typeof value === 'object' && value !== null && typeof value.seq === 'number' && typeof value.type === 'string';
  } catch {
    throw new RecordingError('the first line is not JSON: this is neither an audit log nor a transcript');
  }
}

/**
 * A recording a repository ships could be of any size: a larger one is refused, not read into
 * memory. Replay keeps the records' text, not their parsed objects, so what it holds stays
 * within a few times this: an extension host survives it.
 */
export const MAX_RECORDING_BYTES = 64 * 1024 * 1024;

/**
 * Non-blank lines (records) a replay reads: a 1,000-step session writes about 20,000. Each
 * record kept costs memory beyond its text, so a file of many small ones is refused too.
 */
export const MAX_RECORDING_RECORDS = 200_000;

/**
 * One line (record) a replay reads: parsing takes up to 20 times its text, all at once. The
 * audit log's writer keeps records under 1 MiB; a transcript's longest line is a model reply,
 * such as a Write of the 5 MiB a file may hold.
 */
export const MAX_RECORD_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * The lines of the file's text, as `text.split('\n')` gives them, decoded one at a time; a line
 * over MAX_RECORD_LINE_BYTES, or more than MAX_RECORDING_RECORDS of them, is a RecordingError.
 */
function* linesOf(bytes: Buffer): Generator<string> {
  let records = 0;
  let start = 0;
  for (let number = 1, newline = bytes.indexOf(NEWLINE); ; number++, newline = bytes.indexOf(NEWLINE, start)) {
    const end = newline === -1 ? bytes.length : newline;
    if (end - start > MAX_RECORD_LINE_BYTES) {
      throw new RecordingError(
        `line ${number} is ${end - start} bytes, over the ${MAX_RECORD_LINE_BYTES} a replay reads of one record: shorten or remove that record`,
      );
    }
    const line = bytes.toString('utf8', start, end);
    if (line.trim() !== '' && ++records > MAX_RECORDING_RECORDS) {
      throw new RecordingError(
        `the recording has more than ${MAX_RECORDING_RECORDS} records, more than a replay reads: replay a shorter session`,
      );
    }
    yield line;
    if (newline === -1) return;
    start = newline + 1;
  }
}

/**
 * Reads an audit log or a transcript (JSONL) as a replay source; a bad file is a RecordingError.
 * The file is read once, as a regular file (a workspace could ship a FIFO or a link to a device),
 * and its lines are parsed one at a time for both the recording and its decisions.
 */
export async function loadReplaySource(file: string): Promise<ReplaySource> {
  let bytes: Buffer;
  try {
    bytes = readRegularBytes(file, MAX_RECORDING_BYTES);
  } catch (error) {
    if (error instanceof FileTooLargeError) {
      throw new RecordingError(
        `the recording is ${error.size} bytes, over the ${MAX_RECORDING_BYTES} a replay reads: replay a shorter session`,
      );
    }
    throw new RecordingError(`cannot read ${file}: ${errorMessage(error)}`);
  }
  const sessionId = path.basename(file).replace(/\.jsonl$/, '');
  if (isAuditText(linesOf(bytes))) {
    const { records, problems } = auditRecordsOf(linesOf(bytes));
    return { file, recording: recordingFromAudit(records, problems), recorded: decisionsOf(records) };
  }
  const recording = recordingFromTranscript(linesOf(bytes), sessionId);
  return { file, recording, recorded: outcomesOfTranscript(Transcript.parseLines(linesOf(bytes), keptMessage)) };
}

function sessionIdsIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => name.slice(0, -'.jsonl'.length));
  } catch {
    return [];
  }
}

/**
 * The session's audit log in `storageDir` if there is one, else its transcript; `sessionId` may
 * be a unique prefix. Throws a RecordingError when the prefix names several sessions.
 */
export function recordingFileFor(storageDir: string, sessionId: string): string | undefined {
  const auditDir = path.join(storageDir, 'audit');
  const transcriptDir = path.join(storageDir, 'transcripts');
  const known = new Set([...sessionIdsIn(auditDir), ...sessionIdsIn(transcriptDir)]);
  const matches = known.has(sessionId) ? [sessionId] : [...known].filter((id) => id.startsWith(sessionId));
  if (matches.length > 1) throw new RecordingError(`"${sessionId}" matches ${matches.length} sessions; give more of the id`);
  if (matches.length === 0) return undefined;
  const files = [auditFilePath(auditDir, matches[0]), Transcript.pathFor(transcriptDir, matches[0])];
  return files.find((file) => existsSync(file));
}

/** A replay's transcript is kept apart from the chats': it is not a conversation to resume. */
export function replayTranscriptDir(storageDir: string): string {
  return path.join(storageDir, 'transcripts', 'replays');
}

/** The replay's run read the same way as its recording, and what differs. */
export async function compareReplay(
  source: ReplaySource,
  storageDir: string,
  replaySessionId: string,
  workspaceRoot: string,
): Promise<DecisionDifference[]> {
  if (source.recording.kind === 'audit') {
    const { records } = await readAuditFile(auditFilePath(path.join(storageDir, 'audit'), replaySessionId));
    return diffDecisions(source.recorded, decisionsOf(records));
  }
  const messages = Transcript.load(Transcript.pathFor(replayTranscriptDir(storageDir), replaySessionId));
  return diffDecisions(source.recorded, outcomesOfTranscript(messages, workspaceRoot));
}
