import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Transcript } from '../agent/transcript';
import { readAuditFile } from '../audit/audit-reader';
import { auditFilePath } from '../audit/audit-writer';
import { errorMessage } from '../error-message';
import { FileTooLargeError, readRegularFile } from '../read-regular-file';
import { decisionsOf, diffDecisions, outcomesOfTranscript, type Decision, type DecisionDifference } from './decisions';
import { auditRecordsOf, recordingFromAudit, recordingFromTranscript, RecordingError, type Recording } from './recording';

/** A recording and the decisions it holds, with the way a replay's run is read for comparison. */
export interface ReplaySource {
  file: string;
  recording: Recording;
  recorded: Decision[];
}

/** The first non-blank line of a file is enough to tell an audit log (seq, type) from a transcript. */
function isAuditText(text: string): boolean {
  const first = text.split('\n').find((line) => line.trim() !== '');
  if (first === undefined) throw new RecordingError('the file is empty');
  try {
    const value = JSON.parse(first) as Record<string, unknown>;
    return typeof value === 'object' && value !== null && typeof value.seq === 'number' && typeof value.type === 'string';
  } catch {
    throw new RecordingError('the first line is not JSON: this is neither an audit log nor a transcript');
  }
}

/** A recording a repository ships could be of any size: a larger one is refused, not read into memory. */
export const MAX_RECORDING_BYTES = 256 * 1024 * 1024;

/**
 * Reads an audit log or a transcript (JSONL) as a replay source; a bad file is a RecordingError.
 * The file is read once, as a regular file (a workspace could ship a FIFO or a link to a device),
 * and that one text is parsed for both the recording and its decisions.
 */
export async function loadReplaySource(file: string): Promise<ReplaySource> {
  let text: string;
  try {
    text = readRegularFile(file, MAX_RECORDING_BYTES);
  } catch (error) {
    if (error instanceof FileTooLargeError) {
      throw new RecordingError(`the recording is ${error.size} bytes, over the ${MAX_RECORDING_BYTES} a replay reads`);
    }
    throw new RecordingError(`cannot read ${file}: ${errorMessage(error)}`);
  }
  const sessionId = path.basename(file).replace(/\.jsonl$/, '');
  if (isAuditText(text)) {
    const { records, problems } = auditRecordsOf(text);
    return { file, recording: recordingFromAudit(records, problems), recorded: decisionsOf(records) };
  }
  const recording = recordingFromTranscript(text, sessionId);
  return { file, recording, recorded: outcomesOfTranscript(Transcript.parse(text)) };
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
