import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryAudit, summarizeSession } from '../../src/core/audit/audit-query';
import { readAuditFile } from '../../src/core/audit/audit-reader';
import { AuditWriter } from '../../src/core/audit/audit-writer';
import type { AuditEntry, AuditRecord } from '../../src/core/audit/records';

const CHILD = fileURLToPath(new URL('../fixtures/audit/writer-child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const TORN = /^torn last line \(\d+ bytes\) skipped$/;

let dir: string;
const children: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-reader-'));
});

afterEach(() => {
  for (const pid of children.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function line(seq: number, extra: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ seq, ts: '2026-01-01T00:00:00.000Z', session_id: 's', type: 'note', level: 'info', message: `m${seq}`, ...extra })}\n`;
}

/**
 * Runs the writer child until it has acknowledged `acks` flushes, waits `delayMs` more so the
 * kill lands at different points of the append/write cycle, then SIGKILLs it. Every seq the
 * child printed (even lines still in the pipe at the kill) counts as acknowledged.
 */
async function runAndKill(sessionId: string, mode: string, acks: number, delayMs: number): Promise<{ lastAck: number; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, sessionId, mode], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid) children.push(child.pid);
  let stdout = '';
  let stderr = '';
  let killing = false;
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (!killing && stdout.split('\n').length > acks) {
      killing = true;
      setTimeout(() => child.kill('SIGKILL'), delayMs);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, sig) => resolve(sig)));
  clearTimeout(timer);
  expect(killing, `child stopped before ${acks} acknowledgements; stderr: ${stderr}`).toBe(true);
  expect(signal).toBe('SIGKILL');
  const acked = stdout.split('\n').filter(Boolean).map(Number);
  // Acknowledged seqs only grow.
  expect(acked).toEqual([...acked].sort((a, b) => a - b));
  return { lastAck: acked[acked.length - 1], stderr };
}

describe('readAuditFile after SIGKILL', () => {
  it.each([
    ['plain', 0],
    ['plain', 7],
    ['durable', 3],
  ])('keeps every acknowledged record, contiguous and whole (%s writer, killed %i ms after 12 acks)', async (mode, delayMs) => {
    const { lastAck, stderr } = await runAndKill('crash', String(mode), 12, Number(delayMs));
    expect(stderr).toBe('');
    const file = join(dir, 'crash.jsonl');
    const { records, problems } = await readAuditFile(file);
    const seqs = records.map((r) => r.seq);
    expect(seqs).toEqual(range(1, records.length));
    expect(records.length).toBeGreaterThanOrEqual(lastAck);
    for (const record of records) {
      expect(record.type).toBe('hook_run');
      if (record.type !== 'hook_run') continue;
      expect(record.hook_id).toBe(`h${record.seq}`);
      expect(record.stdout?.length).toBe(record.duration_ms);
    }
    // Only a torn last line may be reported, and only as that.
    expect(problems.length).toBeLessThanOrEqual(1);
    for (const problem of problems) expect(problem.error).toMatch(TORN);

    // A writer reopening the file continues after the last whole record.
    const writer = new AuditWriter({ dir, sessionId: 'crash' });
    writer.append({ type: 'note', session_id: 'crash', level: 'info', message: 'after the crash' });
    await writer.close();
    const after = await readAuditFile(file);
    expect(after.records.map((r) => r.seq)).toEqual(range(1, records.length + 1));
    expect(after.problems.map((p) => p.error.startsWith('invalid JSON'))).toEqual(problems.map(() => true));
  });
});

describe('readAuditFile', () => {
  it('skips and reports a torn last line without a newline', async () => {
    const file = join(dir, 's.jsonl');
    const torn = '{"seq":3,"ts":"2026-01-01T00:00:00.000Z","type":"no';
    writeFileSync(file, line(1) + line(2) + torn);
    const { records, problems } = await readAuditFile(file);
    expect(records.map((r) => r.seq)).toEqual([1, 2]);
    expect(problems).toEqual([{ line: 3, error: `torn last line (${Buffer.byteLength(torn)} bytes) skipped` }]);
  });

  it('skips a whole-looking last line without its newline too', async () => {
    const file = join(dir, 's.jsonl');
    const last = line(3).trimEnd();
    writeFileSync(file, line(1) + line(2) + last);
    const { records, problems } = await readAuditFile(file);
    expect(records.map((r) => r.seq)).toEqual([1, 2]);
    expect(problems).toEqual([{ line: 3, error: `torn last line (${last.length} bytes) skipped` }]);
  });

  it('treats invalid JSON at the very end as a torn last line', async () => {
    const file = join(dir, 's.jsonl');
    writeFileSync(file, `${line(1)}{"seq":2,"ts":\n\n`);
    const { records, problems } = await readAuditFile(file);
    expect(records.map((r) => r.seq)).toEqual([1]);
    expect(problems).toEqual([{ line: 2, error: 'torn last line (14 bytes) skipped' }]);
  });

  it('reports and skips bad lines in the middle, ignores blank lines, accepts CRLF', async () => {
    const file = join(dir, 's.jsonl');
    writeFileSync(file, line(1) + 'garbage\n' + '\n' + line(2).replace('\n', '\r\n') + '{"seq":3,"type":"note"}\n' + line(4));
    const { records, problems } = await readAuditFile(file);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 4]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatchObject({ line: 2, error: expect.stringMatching(/^invalid JSON/) });
    expect(problems[1]).toMatchObject({ line: 5, error: expect.stringMatching(/^invalid record: .*ts/) });
  });

  it('reads lines longer than its read chunks, and many lines across chunk boundaries', async () => {
    const file = join(dir, 's.jsonl');
    let text = '';
    for (let seq = 1; seq <= 3; seq++) text += line(seq, { data: 'é'.repeat(700_000) });
    for (let seq = 4; seq <= 20_000; seq++) text += line(seq);
    writeFileSync(file, text);
    const { records, problems } = await readAuditFile(file);
    expect(problems).toEqual([]);
    expect(records.map((r) => r.seq)).toEqual(range(1, 20_000));
    expect((records[2] as Extract<AuditRecord, { type: 'note' }>).data).toBe('é'.repeat(700_000));
  });

  it('reads an empty file as empty and a missing file as an error', async () => {
    const file = join(dir, 'empty.jsonl');
    writeFileSync(file, '');
    expect(await readAuditFile(file)).toEqual({ records: [], problems: [] });
    await expect(readAuditFile(join(dir, 'missing.jsonl'))).rejects.toThrow(/ENOENT/);
  });

  it('reports a torn line appended after records a writer wrote', async () => {
    const writer = new AuditWriter({ dir, sessionId: 'w' });
    for (let i = 0; i < 10; i++) writer.append({ type: 'note', session_id: 'w', level: 'info', message: `n${i}` });
    await writer.close();
    appendFileSync(writer.path, '{"seq":11,"ts":"2026');
    const { records, problems } = await readAuditFile(writer.path);
    expect(records.map((r) => r.seq)).toEqual(range(1, 10));
    expect(problems).toEqual([{ line: 11, error: 'torn last line (20 bytes) skipped' }]);
  });
});

describe('queryAudit and summarizeSession', () => {
  const base = { session_id: 's', dispatch_id: 'd' };
  const hook = (hookId: string, event: string, decision: string, status: 'success' | 'error' | 'timeout' = 'success'): AuditEntry => ({
    ...base,
    type: 'hook_run',
    event,
    hook_id: hookId,
    hook_name: `name-${hookId}`,
    handler: 'command',
    source: 'workspace',
    status,
    decision,
    duration_ms: 5,
    stdout: `output of ${hookId}`,
  });
  const entries: AuditEntry[] = [
    { ...base, type: 'event', event: 'SessionStart', payload: { source: 'startup' } },
    { ...base, type: 'event', event: 'PreToolUse', payload: { tool_name: 'Bash' } },
    hook('guard', 'PreToolUse', 'deny'),
    hook('fmt', 'PreToolUse', 'allow'),
    { ...base, type: 'dispatch', event: 'PreToolUse', decision: 'deny', hooks_run: 2, duration_ms: 9 },
    { session_id: 's', type: 'permission', tool_name: 'Bash', decision: 'deny', source: 'hook', reason: 'rm -rf' },
    { ...base, type: 'event', event: 'PostToolUse', payload: {} },
    hook('lint', 'PostToolUse', 'none', 'timeout'),
    hook('guard', 'PreToolUse', 'allow', 'error'),
    { session_id: 's', type: 'note', level: 'warning', message: 'Slow Hook detected' },
  ];

  async function records(): Promise<AuditRecord[]> {
    let t = Date.UTC(2026, 0, 1);
    const writer = new AuditWriter({ dir, sessionId: 's', now: () => (t += 1000) });
    for (const entry of entries) writer.append(entry);
    await writer.close();
    return (await readAuditFile(writer.path)).records;
  }

  it('filters by event, hook, decision, type, text, sinceSeq and limit', async () => {
    const all = await records();
    const seqs = (q: Parameters<typeof queryAudit>[1]) => queryAudit(all, q).map((r) => r.seq);
    expect(seqs({})).toEqual(range(1, 10));
    expect(seqs({ event: 'PreToolUse' })).toEqual([2, 3, 4, 5, 9]);
    expect(seqs({ event: ['SessionStart', 'PostToolUse'] })).toEqual([1, 7, 8]);
    expect(seqs({ hook: 'guard' })).toEqual([3, 9]);
    expect(seqs({ hook: 'name-fmt' })).toEqual([4]);
    expect(seqs({ decision: 'deny' })).toEqual([3, 5, 6]);
    expect(seqs({ type: 'hook_run', decision: ['allow', 'none'] })).toEqual([4, 8, 9]);
    expect(seqs({ type: ['note', 'permission'] })).toEqual([6, 10]);
    expect(seqs({ text: 'RM -RF' })).toEqual([6]);
    expect(seqs({ text: 'slow hook' })).toEqual([10]);
    expect(seqs({ sinceSeq: 7 })).toEqual([8, 9, 10]);
    expect(seqs({ type: 'hook_run', limit: 2 })).toEqual([3, 4]);
    expect(seqs({ event: 'PreToolUse', type: 'event', sinceSeq: 1 })).toEqual([2]);
  });

  it('summarizes a session', async () => {
    expect(summarizeSession(await records())).toEqual({
      sessionId: 's',
      records: 10,
      byType: { event: 3, hook_run: 4, dispatch: 1, permission: 1, note: 1 },
      byEvent: { SessionStart: 1, PreToolUse: 1, PostToolUse: 1 },
      byDecision: { deny: 1, allow: 2, none: 1 },
      permissions: { deny: 1 },
      hookFailures: 2,
      firstSeq: 1,
      lastSeq: 10,
      firstTs: '2026-01-01T00:00:01.000Z',
      lastTs: '2026-01-01T00:00:10.000Z',
    });
    expect(summarizeSession([])).toMatchObject({ records: 0, firstSeq: undefined, lastTs: undefined });
  });
});
