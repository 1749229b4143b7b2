import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseAuditLine, tornLineProblem, type AuditReadProblem } from './audit-reader';
import type { AuditRecord } from './records';

/**
 * Hands each record of a session's JSONL audit file to `onRecord` as it is read, keeping
 * none: a consumer that folds records (hook statistics) reads a log of any size in constant
 * memory. Invalid lines are reported with their line number; a last line that is not JSON
 * is reported as a torn write, as `readAuditFile` does.
 */
export async function forEachAuditRecord(path: string, onRecord: (record: AuditRecord) => void): Promise<AuditReadProblem[]> {
  const problems: AuditReadProblem[] = [];
  let lineNo = 0;
  // A line that was not JSON: torn if nothing follows it.
  let lastInvalid: AuditReadProblem | undefined;
  let lastBytes = 0;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const text of lines) {
    lineNo++;
    if (text.trim() === '') continue;
    lastInvalid = undefined;
    const parsed = parseAuditLine(text);
    if (parsed.ok) {
      onRecord(parsed.record);
      continue;
    }
    const problem = { line: lineNo, error: parsed.error };
    problems.push(problem);
    if (parsed.invalidJson) {
      lastInvalid = problem;
      lastBytes = Buffer.byteLength(text);
    }
  }
  if (lastInvalid) Object.assign(lastInvalid, tornLineProblem(lastInvalid.line, lastBytes));
  return problems;
}
