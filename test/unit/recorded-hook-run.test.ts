import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/audit-log';
import { DEFAULT_MAX_RECORD_BYTES } from '../../src/core/audit/audit-writer';
import { recordedHookRun } from '../../src/core/audit/recorded-hook-run';
import { watchRetainedHeap } from '../support/retained-heap';

let dir: string;
let log: AuditLog;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hp-recorded-run-'));
  log = new AuditLog({ dir });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ts = (seq: number) => new Date(1_700_000_000_000 + seq).toISOString();
const event = (seq: number, dispatch: string, payload: unknown) => ({
  seq,
  ts: ts(seq),
  session_id: 's',
  type: 'event',
  dispatch_id: dispatch,
  event: 'PostToolUse',
  payload,
});
const hookRun = (seq: number, dispatch: string, extra: Record<string, unknown> = {}) => ({
  seq,
  ts: ts(seq),
  session_id: 's',
  type: 'hook_run',
  dispatch_id: dispatch,
  event: 'PostToolUse',
  hook_id: 'h1',
  hook_name: 'guard',
  handler: 'command',
  source: 'workspace',
  status: 'success',
  decision: 'none',
  duration_ms: 1,
  ...extra,
});

function writeLog(sessionId: string, records: Iterable<object>): void {
  const fd = openSync(path.join(dir, `${sessionId}.jsonl`), 'w');
  for (const record of records) writeSync(fd, `${JSON.stringify(record)}\n`);
  closeSync(fd);
}

describe('a recorded hook run and the payload it got', () => {
  it("is the run's own input, else its event's payload; another record's seq or an unknown one is none", async () => {
    writeLog('s', [
      event(1, 'd1', { tool_name: 'Bash', n: 1 }),
      hookRun(2, 'd1'),
      hookRun(3, 'd1', { input: { piped: true } }),
      event(4, 'd2', {}),
    ]);
    expect(await recordedHookRun(log, 's', 2)).toMatchObject({ run: { seq: 2, hook_name: 'guard' }, payload: { tool_name: 'Bash', n: 1 } });
    expect(await recordedHookRun(log, 's', 3)).toMatchObject({ payload: { piped: true } });
    expect(await recordedHookRun(log, 's', 4)).toBeUndefined();
    expect(await recordedHookRun(log, 's', 99)).toBeUndefined();
    expect(await recordedHookRun(log, 'unknown', 2)).toBeUndefined();
  });

  it('is found in a 256 MiB log without holding its records: the heap grows by a record or two', async () => {
    const stdout = 'x'.repeat(DEFAULT_MAX_RECORD_BYTES - 4096);
    function* records() {
      yield event(1, 'd1', { tool_name: 'Bash', tool_input: { command: 'first' } });
      for (let seq = 2; seq <= 256; seq++) yield event(seq, `d${seq}`, { tool_name: 'Bash', tool_response: { stdout } });
      yield hookRun(257, 'd1');
    }
    writeLog('huge', records());
    const growthMiB = watchRetainedHeap(log);
    const found = await recordedHookRun(log, 'huge', 257);
    expect(found?.payload).toEqual({ tool_name: 'Bash', tool_input: { command: 'first' } });
    console.log(`recorded hook run: retained heap grew by ${growthMiB().toFixed(0)} MiB for a 256 MiB log`);
    // Holding the records would take the log's 256 MiB.
    expect(growthMiB()).toBeLessThan(32);
  });
});
