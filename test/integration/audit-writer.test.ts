import {
  appendFileSync,
  fdatasync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writev,
  writevSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/audit-log';
import { readAuditFile } from '../../src/core/audit/audit-reader';
import { AuditWriter, type AuditWriterIo, type AuditWriterOptions } from '../../src/core/audit/audit-writer';
import { loadEnvFileSecrets } from '../../src/core/audit/env-file-secrets';
import type { AuditEntry, AuditRecord } from '../../src/core/audit/records';
import { Redactor } from '../../src/core/audit/redactor';

let dir: string;
const writers: AuditWriter[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-writer-'));
});

afterEach(async () => {
  await Promise.allSettled(writers.splice(0).map((w) => w.close()));
  rmSync(dir, { recursive: true, force: true });
});

function writer(options: Partial<AuditWriterOptions> = {}): AuditWriter {
  const w = new AuditWriter({ dir, sessionId: 's1', ...options });
  writers.push(w);
  return w;
}

const note = (message: string, data?: unknown): AuditEntry => ({ type: 'note', session_id: 's1', level: 'info', message, data });

function hookRun(overrides: Partial<Extract<AuditEntry, { type: 'hook_run' }>> = {}): AuditEntry {
  return {
    type: 'hook_run',
    session_id: 's1',
    dispatch_id: 'd1',
    event: 'PreToolUse',
    hook_id: 'h1',
    hook_name: 'guard',
    handler: 'command',
    source: 'workspace',
    status: 'success',
    decision: 'allow',
    duration_ms: 12,
    ...overrides,
  };
}

/** Wraps the real file operations to count them and inject failures or short writes. */
function countingIo(behaviour: { failWrites?: number; maxBytesPerWrite?: number } = {}) {
  const calls = { writes: 0, syncWrites: 0, syncs: 0, failed: 0 };
  let failures = behaviour.failWrites ?? 0;
  const injected = () => {
    if (failures <= 0) return false;
    failures--;
    calls.failed++;
    return true;
  };
  const enospc = () => Object.assign(new Error('ENOSPC: no space left on device (injected)'), { code: 'ENOSPC' });
  // A short write: only the first maxBytesPerWrite bytes go out.
  const limit = (buffers: Buffer[]) =>
    behaviour.maxBytesPerWrite ? [Buffer.concat(buffers).subarray(0, behaviour.maxBytesPerWrite)] : buffers;
  const io: AuditWriterIo = {
    writev(fd, buffers) {
      calls.writes++;
      if (injected()) return Promise.reject(enospc());
      return new Promise((resolve, reject) => writev(fd, limit(buffers), (error, n) => (error ? reject(error) : resolve(n))));
    },
    writevSync(fd, buffers) {
      calls.syncWrites++;
      if (injected()) throw enospc();
      return writevSync(fd, limit(buffers));
    },
    async datasync(fd) {
      calls.syncs++;
      await new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
    },
  };
  return { io, calls };
}

const fileText = (sessionId = 's1') => readFileSync(join(dir, `${sessionId}.jsonl`), 'utf8');
const seqs = (records: AuditRecord[]) => records.map((r) => r.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('AuditWriter', () => {
  it('creates its folder and file for the user alone (0700, 0600)', async () => {
    const nested = join(dir, 'audit');
    const w = new AuditWriter({ dir: nested, sessionId: 's1' });
    writers.push(w);
    w.append(note('first'));
    await w.flush();
    expect(statSync(nested).mode & 0o777).toBe(0o700);
    expect(statSync(join(nested, 's1.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('stamps seq and ts and writes one whole JSON line per record', async () => {
    const w = writer({ now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6) });
    w.append(note('first'));
    w.append(hookRun());
    await w.flush();
    const text = fileText();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditRecord);
    expect(lines.map((l) => [l.seq, l.ts, l.type])).toEqual([
      [1, '2026-01-02T03:04:05.006Z', 'note'],
      [2, '2026-01-02T03:04:05.006Z', 'hook_run'],
    ]);
    expect(w.lastWrittenSeq).toBe(2);
    const { records, problems } = await readAuditFile(w.path);
    expect(problems).toEqual([]);
    expect(records[1]).toMatchObject({ hook_name: 'guard', decision: 'allow' });
  });

  it('lets nothing secret reach the file: patterns, runtime values, .env values, secret keys, configured patterns', async () => {
    const workspace = join(dir, 'ws');
    rmSync(workspace, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(workspace));
    writeFileSync(join(workspace, '.env'), 'OPENAI_API_KEY=dotenv-openai-key-value\nDB_PASS="dotenv db pass"\n');
    writeFileSync(join(workspace, '.env.local'), 'WEBHOOK_SIGNING=whsec_localvalue123\n');
    const redactor = new Redactor({ patterns: [{ kind: 'employee_id', pattern: /EMP-\d{6}/ }] });
    await loadEnvFileSecrets(workspace, redactor);
    redactor.addSecretValue('runtime-api-key-from-settings');
    const secrets = [
      'dotenv-openai-key-value',
      'dotenv db pass',
      'whsec_localvalue123',
      'runtime-api-key-from-settings',
      'sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFF',
      'sk-proj-1111222233334444555566',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'AKIAIOSFODNN7EXAMPLE',
      'xoxp-1111-2222-3333-abcdef',
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl',
      'opensesame99',
      'key-under-secret-name',
      'EMP-123456',
      'bearer-token-abcdef',
    ];
    const w = writer({ redactor });
    w.append({
      type: 'event',
      session_id: 's1',
      dispatch_id: 'd1',
      event: 'UserPromptSubmit',
      payload: {
        prompt: 'use key sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFF and dotenv-openai-key-value',
        context: [{ nested: { deep: ['runtime-api-key-from-settings', 'the pass is "dotenv db pass"'] } }],
      },
    });
    w.append(
      hookRun({
        input: {
          tool_input: { command: 'curl -H "Authorization: Bearer bearer-token-abcdef" --data password=opensesame99' },
          headers: { 'X-Api-Key': 'key-under-secret-name' },
        },
        stdout: 'GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\nAWS AKIAIOSFODNN7EXAMPLE\nslack xoxp-1111-2222-3333-abcdef',
        stderr: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----',
        reason: 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl whsec_localvalue123',
        effects: { additionalContext: ['sk-proj-1111222233334444555566', 'employee EMP-123456'] },
      }),
    );
    w.append({
      type: 'permission',
      session_id: 's1',
      tool_name: 'Bash',
      decision: 'deny',
      source: 'hook',
      reason: 'blocked dotenv-openai-key-value',
    });
    w.append(note('settings', { apiKey: 'runtime-api-key-from-settings' }));
    await w.flush();
    const text = fileText();
    for (const secret of secrets) expect(text, secret).not.toContain(secret);
    expect(text).toContain('[REDACTED:');
    const { records, problems } = await readAuditFile(w.path);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(4);
  });

  it('continues the seq after the last record when the file is reopened', async () => {
    const first = writer();
    for (let i = 0; i < 5; i++) first.append(note(`a${i}`));
    await first.close();
    const second = writer();
    for (let i = 0; i < 3; i++) second.append(note(`b${i}`));
    await second.flush();
    const { records, problems } = await readAuditFile(second.path);
    expect(problems).toEqual([]);
    expect(seqs(records)).toEqual(range(1, 8));
    expect(records.map((r) => (r.type === 'note' ? r.message : ''))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'b2']);
  });

  it('after a crash mid-line, starts on a fresh line and continues from the last whole record', async () => {
    const first = writer();
    for (let i = 0; i < 3; i++) first.append(note(`a${i}`));
    await first.close();
    appendFileSync(join(dir, 's1.jsonl'), '{"seq":4,"ts":"2026-01-01T00:00:00.000Z","type":"no');
    const second = writer();
    second.append(note('after crash'));
    await second.flush();
    const { records, problems } = await readAuditFile(second.path);
    expect(seqs(records)).toEqual([1, 2, 3, 4]);
    expect(records[3]).toMatchObject({ message: 'after crash' });
    expect(problems).toHaveLength(1);
    expect(problems[0].line).toBe(4);
    expect(problems[0].error).toMatch(/invalid JSON/);
  });

  it('finds the last seq behind a long last line and trailing garbage', async () => {
    const first = writer();
    first.append(note('big', { blob: 'y'.repeat(300_000) }));
    first.append(note('bigger', { blob: 'z'.repeat(200_000) }));
    await first.close();
    appendFileSync(join(dir, 's1.jsonl'), 'not json\n\n');
    const second = writer();
    second.append(note('next'));
    await second.flush();
    const { records } = await readAuditFile(second.path);
    expect(seqs(records)).toEqual([1, 2, 3]);
  });

  it('group commit: everything appended in one tick goes out in one write', async () => {
    const { io, calls } = countingIo();
    const w = writer({ io });
    for (let i = 0; i < 500; i++) w.append(hookRun({ hook_id: `h${i}` }));
    await w.flush();
    expect(calls.writes).toBe(1);
    for (let i = 0; i < 10; i++) w.append(note(`second tick ${i}`));
    await new Promise((resolve) => setImmediate(resolve));
    w.append(note('third tick'));
    await w.flush();
    expect(calls.writes).toBe(3);
    const { records } = await readAuditFile(w.path);
    expect(seqs(records)).toEqual(range(1, 511));
  });

  it('writes a burst of more than 4 MiB in one tick at once, so memory stays bounded', async () => {
    const { io, calls } = countingIo();
    const w = writer({ io });
    const stdout = 'x'.repeat(2000);
    for (let i = 0; i < 5000; i++) w.append(hookRun({ hook_id: `h${i}`, stdout }));
    // Still in the same tick: the bulk is already in the file.
    expect(calls.syncWrites).toBeGreaterThan(0);
    expect(statSync(w.path).size).toBeGreaterThan(4 * 1024 * 1024);
    await w.flush();
    const { records, problems } = await readAuditFile(w.path);
    expect(problems).toEqual([]);
    expect(seqs(records)).toEqual(range(1, 5000));
    expect(records.every((r) => r.type === 'hook_run' && r.hook_id === `h${r.seq - 1}`)).toBe(true);
  });

  it('keeps a burst whose synchronous write failed for the next flush', async () => {
    const { io, calls } = countingIo({ failWrites: 1 });
    const errors: string[] = [];
    const w = writer({ io, onError: (e) => errors.push(e.message) });
    for (let i = 0; i < 3000; i++) w.append(hookRun({ hook_id: `h${i}`, stdout: 'y'.repeat(2000) }));
    expect(calls.syncWrites).toBe(1);
    expect(errors).toEqual(['ENOSPC: no space left on device (injected)']);
    await w.flush();
    const { records, problems } = await readAuditFile(w.path);
    expect(problems).toEqual([]);
    expect(seqs(records)).toEqual(range(1, 3000));
  });

  it('writes with no help from flush, on the next tick', async () => {
    const seen: number[] = [];
    const w = writer({ onRecord: (r) => seen.push(r.seq) });
    w.append(note('x'));
    expect(seen).toEqual([]);
    await expect.poll(() => seen, { timeout: 2_000 }).toEqual([1]);
    expect(fileText()).toContain('"message":"x"');
  });

  it('hands onRecord only what was appended while someone listened, and writes every record the same either way', async () => {
    const seen: AuditRecord[] = [];
    let listening = false;
    const w = writer({ onRecord: (r) => seen.push(r), listened: () => listening });
    const data = { text: 'ghp_1234567890abcdefghijABCDEFGHIJ123456', list: [1, 2] };
    w.append(note('unheard', data));
    listening = true;
    w.append(note('heard', data));
    // A listener's copy is its own: a later change by the caller does not reach it.
    data.list.push(3);
    await w.flush();
    expect(seen.map((r) => r.seq)).toEqual([2]);
    expect((seen[0] as { data?: unknown }).data).toEqual({ text: '[REDACTED:github_token]', list: [1, 2] });
    const lines = fileText()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { data: unknown });
    expect(lines.map((line) => line.data)).toEqual([
      { text: '[REDACTED:github_token]', list: [1, 2] },
      { text: '[REDACTED:github_token]', list: [1, 2] },
    ]);
  });

  it('fdatasyncs before a durable flush resolves', async () => {
    const { io, calls } = countingIo();
    const w = writer({ io, durable: true });
    w.append(note('durable'));
    await w.flush();
    expect(calls).toMatchObject({ writes: 1, syncs: 1 });
    w.append(note('durable 2'));
    await w.flush();
    expect(calls).toMatchObject({ writes: 2, syncs: 2 });
    const lazy = countingIo();
    const w2 = writer({ io: lazy.io, sessionId: 's2' });
    w2.append(note('not durable'));
    await w2.flush();
    expect(lazy.calls.syncs).toBe(0);
  });

  it('reports a write error, keeps the records, and writes them on the next flush', async () => {
    const { io, calls } = countingIo({ failWrites: 1 });
    const errors: Error[] = [];
    const w = writer({ io, onError: (e) => errors.push(e) });
    w.append(note('one'));
    w.append(note('two'));
    await expect(w.flush()).rejects.toThrow(/ENOSPC/);
    expect(errors.map((e) => e.message)).toEqual(['ENOSPC: no space left on device (injected)']);
    w.append(note('three'));
    await w.flush();
    expect(calls.failed).toBe(1);
    const { records, problems } = await readAuditFile(w.path);
    expect(problems).toEqual([]);
    expect(records.map((r) => [r.seq, r.type === 'note' && r.message])).toEqual([
      [1, 'one'],
      [2, 'two'],
      [3, 'three'],
    ]);
  });

  it('completes partial writes so lines stay whole', async () => {
    const { io, calls } = countingIo({ maxBytesPerWrite: 7 });
    const w = writer({ io });
    for (let i = 0; i < 20; i++) w.append(note(`partial ${i}`));
    await w.flush();
    expect(calls.writes).toBeGreaterThan(20);
    const { records, problems } = await readAuditFile(w.path);
    expect(problems).toEqual([]);
    expect(seqs(records)).toEqual(range(1, 20));
  });

  it('never throws into the caller', async () => {
    const errors: string[] = [];
    const w = writer({
      onError: (e) => {
        errors.push(e.message);
        throw new Error('handler failure');
      },
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => w.append(note('cyclic', { cyclic, big: 5n }))).not.toThrow();
    await w.close();
    expect(() => w.append(note('late'))).not.toThrow();
    expect(errors).toEqual(['audit writer for session s1 is closed; record dropped']);
    const { records } = await readAuditFile(w.path);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ data: { cyclic: { self: '[Circular]' }, big: '5' } });
  });

  it('truncates the long strings of a record over 1 MiB instead of dropping it', async () => {
    const w = writer();
    w.append(hookRun({ stdout: 'o'.repeat(3 * 1024 * 1024), stderr: 'short stderr', input: { text: 'é'.repeat(600_000) } }));
    w.append(note('many', { items: Array.from({ length: 200_000 }, (_, i) => `item-${i}`) }));
    w.append(note('after'));
    await w.flush();
    const lines = fileText().split('\n').filter(Boolean);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(1024 * 1024);
    const { records, problems } = await readAuditFile(w.path);
    expect(problems).toEqual([]);
    expect(seqs(records)).toEqual([1, 2, 3]);
    const run = records[0] as Extract<AuditRecord, { type: 'hook_run' }>;
    expect(run.stdout).toMatch(/^o+…\[truncated \d+ chars\]$/);
    expect(run.stderr).toBe('short stderr');
    expect(run.hook_name).toBe('guard');
    expect(records[1]).toMatchObject({ type: 'note', message: 'many', data: '[truncated: data too large]' });
  });

  it('rejects session ids that are not a plain file name', () => {
    for (const bad of ['', '.', '..', '../escape', 'a/b', 'a\\b', 'sp ace', 'x'.repeat(201)]) {
      expect(() => new AuditWriter({ dir, sessionId: bad }), bad).toThrow(/invalid audit session id/);
    }
    expect(() => writer({ sessionId: 'ok_id-1.2' })).not.toThrow();
  });
});

describe('AuditLog', () => {
  it('hands out one writer per session and feeds live listeners after each write', async () => {
    const log = new AuditLog({ dir });
    try {
      const w = log.writerFor('live');
      expect(log.writerFor('live')).toBe(w);
      const seen: Array<[string, number, string]> = [];
      const subscription = log.onRecord((record, sessionId) => {
        // Fired only once the record is in the file.
        expect(fileText(sessionId)).toContain(`"seq":${record.seq},`);
        seen.push([sessionId, record.seq, record.type]);
      });
      w.append(note('one'));
      log.writerFor('other').append({ type: 'permission', session_id: 'other', tool_name: 'Bash', decision: 'allow', source: 'rule' });
      await log.flush();
      // Two sessions are two files: which write lands first is not fixed.
      expect([...seen].sort()).toEqual([
        ['live', 1, 'note'],
        ['other', 1, 'permission'],
      ]);
      subscription.dispose();
      w.append(note('two'));
      await log.flush();
      expect(seen).toHaveLength(2);
    } finally {
      await log.close();
    }
  });

  it('redacts with the shared redactor in every session', async () => {
    const log = new AuditLog({ dir });
    log.redactor.addSecretValue('shared-secret-value');
    log.writerFor('a').append(note('a shared-secret-value'));
    log.writerFor('b').append(note('b shared-secret-value'));
    await log.close();
    expect(fileText('a') + fileText('b')).not.toContain('shared-secret-value');
  });

  it('lists sessions newest first and reads them, flushing pending records first', async () => {
    const log = new AuditLog({ dir });
    try {
      for (const id of ['old', 'mid', 'new']) log.writerFor(id).append(note(id));
      await log.flush();
      const base = Date.now() / 1000;
      utimesSync(join(dir, 'old.jsonl'), base - 300, base - 300);
      utimesSync(join(dir, 'mid.jsonl'), base - 200, base - 200);
      writeFileSync(join(dir, 'notes.txt'), 'ignored');
      const sessions = await log.listSessions();
      expect(sessions.map((s) => s.sessionId)).toEqual(['new', 'mid', 'old']);
      expect(sessions[0]).toMatchObject({ file: join(dir, 'new.jsonl'), sizeBytes: Buffer.byteLength(fileText('new')) });
      expect(sessions[0].modified).toBeInstanceOf(Date);

      log.writerFor('mid').append(note('pending'));
      const { records } = await log.read('mid');
      expect(records.map((r) => r.seq)).toEqual([1, 2]);
      expect(await log.read('never-written')).toEqual({ records: [], problems: [] });
      expect(await new AuditLog({ dir: join(dir, 'missing') }).listSessions()).toEqual([]);
    } finally {
      await log.close();
    }
  });

  it('gives a fresh writer, continuing the seq, after the old one was closed', async () => {
    const log = new AuditLog({ dir });
    const first = log.writerFor('s');
    first.append(note('1'));
    await first.close();
    const second = log.writerFor('s');
    expect(second).not.toBe(first);
    second.append(note('2'));
    expect((await log.read('s')).records.map((r) => r.seq)).toEqual([1, 2]);
    await log.close();
  });

  it('closes only once a session it was closing has written every record, and its listeners saw each', async () => {
    const log = new AuditLog({ dir });
    const seen: number[] = [];
    log.onRecord((record) => seen.push(record.seq));
    const ended = log.writerFor('ended');
    for (const message of ['1', '2', '3']) ended.append(note(message));
    const closing = log.closeSession('ended');
    await log.close();
    expect(seen).toEqual([1, 2, 3]);
    expect(seqs((await readAuditFile(join(dir, 'ended.jsonl'))).records)).toEqual([1, 2, 3]);
    await closing;
  });

  it('numbers a record that comes while its session is being closed after the records before it', async () => {
    const log = new AuditLog({ dir });
    const ended = log.writerFor('s');
    ended.append(note('before 1'));
    ended.append(note('before 2'));
    const closing = log.closeSession('s');
    log.writerFor('s').append(note('late'));
    await closing;
    await log.close();
    const { records, problems } = await readAuditFile(join(dir, 's.jsonl'));
    expect(problems).toEqual([]);
    expect(records.map((r) => [r.seq, r.type === 'note' ? r.message : r.type])).toEqual([
      [1, 'before 1'],
      [2, 'before 2'],
      [3, 'late'],
    ]);
  });

  it('keeps no file open for a session it closed, and opens it again for a later record', async () => {
    const log = new AuditLog({ dir });
    log.writerFor('s').append(note('1'));
    await log.closeSession('s');
    const openFiles = () => readdirSync('/proc/self/fd').filter((fd) => safeReadlink(`/proc/self/fd/${fd}`) === join(dir, 's.jsonl'));
    expect(openFiles()).toEqual([]);
    log.writerFor('s').append(note('2'));
    expect((await log.read('s')).records.map((r) => r.seq)).toEqual([1, 2]);
    await log.close();
    expect(openFiles()).toEqual([]);
  });
});

function safeReadlink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
