import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forEachAuditRecord, readAuditFile } from '../../src/core/audit/audit-reader';
import type { AuditRecord } from '../../src/core/audit/records';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const note = (seq: number): string => {
  const record: AuditRecord = { type: 'note', seq, ts: '2026-01-01T00:00:00.000Z', session_id: 's', level: 'info', message: `n${seq}` };
  return JSON.stringify(record);
};

function logFile(text: string): string {
  dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-audit-stream-'));
  const file = path.join(dir, 's.jsonl');
  writeFileSync(file, text);
  return file;
}

describe('forEachAuditRecord', () => {
  it('hands over each valid record in order and reports bad lines and a torn last line as readAuditFile does', async () => {
    const file = logFile(`${note(1)}\r\n\n{"type":"note","seq":2}\n${note(3)}\nnot json\n${note(4)}\n{"type":"no`);
    const seen: number[] = [];
    const problems = await forEachAuditRecord(file, (record) => seen.push(record.seq));
    expect(seen).toEqual([1, 3, 4]);
    expect(problems).toEqual([
      { line: 3, error: expect.stringMatching(/^invalid record: /) },
      { line: 5, error: expect.stringMatching(/^invalid JSON: /) },
      { line: 7, error: 'torn last line (11 bytes) skipped' },
    ]);
    const whole = await readAuditFile(file);
    expect(whole.records.map((r) => r.seq)).toEqual(seen);
    expect(whole.problems).toEqual(problems);
  });

  it('a missing file is an error for the caller', async () => {
    await expect(forEachAuditRecord(path.join(tmpdir(), 'no-such-dir-hookpilot', 'x.jsonl'), () => undefined)).rejects.toThrow(/ENOENT/);
  });
});
