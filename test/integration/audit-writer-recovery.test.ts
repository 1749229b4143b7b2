import { mkdtempSync, rmSync, writev, writevSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAuditFile } from '../../src/core/audit/audit-reader';
import { AuditWriter, MAX_BACKLOG_BYTES, type AuditWriterIo } from '../../src/core/audit/audit-writer';
import type { AuditEntry } from '../../src/core/audit/records';

let dir: string;
let w: AuditWriter | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hp-audit-recovery-'));
});
afterEach(async () => {
  await w?.close().catch(() => undefined);
  w = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const big = (i: number): AuditEntry => ({
  type: 'event',
  session_id: 's1',
  dispatch_id: `d${i}`,
  event: 'PreToolUse',
  payload: { tool_name: 'Glob', tool_input: { pattern: `${i}`.padEnd(64 * 1024, 'x') } } as never,
});
const note = (message: string): AuditEntry => ({ type: 'note', session_id: 's1', level: 'info', message });
const enospc = () => Object.assign(new Error('ENOSPC (injected)'), { code: 'ENOSPC' });
const tick = () => new Promise((r) => setImmediate(r));

function flakyDisk() {
  const disk = { full: true, writes: 0 };
  const io: Partial<AuditWriterIo> = {
    writev: (fd, buffers) => {
      disk.writes++;
      return disk.full
        ? Promise.reject(enospc())
        : new Promise((resolve, reject) => writev(fd, buffers, (error, n) => (error ? reject(error) : resolve(n))));
    },
    writevSync: (fd, buffers) => {
      if (disk.full) throw enospc();
      return writevSync(fd, buffers);
    },
  };
  return { disk, io };
}

/** Fills the backlog past MAX_BACKLOG_BYTES while every write fails. */
async function fillBacklog(writer: AuditWriter): Promise<void> {
  const queued = () => (writer as unknown as { pending: { bytes: number } }).pending.bytes;
  for (let i = 0; queued() < MAX_BACKLOG_BYTES; i++) {
    writer.append(big(i));
    if (i % 16 === 15) await tick();
  }
  // A few more: these are dropped (the backlog is full and the last write failed).
  for (let i = 0; i < 4; i++) writer.append(big(10_000 + i));
  await tick();
}

describe('audit writer backlog: after the disk recovers', () => {
  it('records appended once the disk has room again are written, without anyone calling flush()', async () => {
    const { disk, io } = flakyDisk();
    w = new AuditWriter({ dir, sessionId: 's1', io, onError: () => undefined });
    await fillBacklog(w);
    // The disk has room again (the user freed space). The session goes on appending, as a long
    // session does; nothing calls flush() (that happens at session end / a timeline read).
    disk.full = false;
    const writesBefore = disk.writes;
    for (let step = 0; step < 50; step++) {
      w.append(note(`after recovery ${step}`));
      await tick();
    }
    // The first record after the recovery finds the backlog full and the last write failed: it is
    // dropped and makes the writer try again, which succeeds; the records after it are written.
    expect(disk.writes).toBeGreaterThan(writesBefore);
    await w.flush();
    const { records } = await readAuditFile(w.path);
    const after = records.filter((r) => r.type === 'note' && /after recovery/.test(String(r.message)));
    expect(after.length).toBeGreaterThanOrEqual(49);
    const lost = records.find((r) => r.type === 'note' && /audit record\(s\) dropped/.test(String(r.message)));
    expect(lost).toMatchObject({ message: `${4 + 50 - after.length} audit record(s) dropped: the log could not be written` });
  }, 60_000);

  it('the "N records dropped" note is not lost when no record follows the drop (session closes)', async () => {
    const { disk, io } = flakyDisk();
    w = new AuditWriter({ dir, sessionId: 's1', io, onError: () => undefined });
    await fillBacklog(w);
    disk.full = false;
    // The session ends: the backlog is written, the writer closed.
    await w.close();
    const { records } = await readAuditFile(w.path);
    expect(records.some((r) => r.type === 'note' && /dropped/.test(String(r.message)))).toBe(true);
  }, 60_000);
});
