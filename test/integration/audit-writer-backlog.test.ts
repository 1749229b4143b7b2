import { mkdtempSync, rmSync, writev, writevSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAuditFile } from '../../src/core/audit/audit-reader';
import { AuditWriter, MAX_BACKLOG_BYTES, type AuditWriterIo } from '../../src/core/audit/audit-writer';
import type { AuditEntry } from '../../src/core/audit/records';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Memory held outside the JS heap too (the writer queues lines in Buffers). */
const held = () => (gc(), process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed);
const MiB = 2 ** 20;

let dir: string;
let w: AuditWriter | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-backlog-'));
});
afterEach(async () => {
  await w?.close().catch(() => undefined);
  w = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** What a tool call with a large input leaves: the PreToolUse event with its tool_input. */
const big = (i: number): AuditEntry => ({
  type: 'event',
  session_id: 's1',
  dispatch_id: `d${i}`,
  event: 'PreToolUse',
  payload: { tool_name: 'Glob', tool_input: { pattern: `${i}`.padEnd(64 * 1024, 'x') } } as never,
});

/** The lines the writer has queued and not written (its PendingLines). */
const queued = (writer: AuditWriter) => (writer as unknown as { pending: { bytes: number } }).pending.bytes;

/**
 * 96 MiB of records over 96 ticks, as steps of a long session would append them. Returns the
 * most the writer queued, and the most memory (heap and Buffers) the process gained, in MiB.
 */
async function appendSteps(writer: AuditWriter, afterStep = () => {}): Promise<{ queuedMiB: number; heldMiB: number }> {
  const before = held();
  let peakHeld = 0;
  let peakQueued = 0;
  for (let step = 0; step < 96; step++) {
    for (let i = 0; i < 16; i++) writer.append(big(step * 16 + i));
    await new Promise((r) => setImmediate(r));
    afterStep();
    peakQueued = Math.max(peakQueued, queued(writer));
    if (step % 8 === 7) peakHeld = Math.max(peakHeld, held() - before);
  }
  return { queuedMiB: peakQueued / MiB, heldMiB: peakHeld / MiB };
}

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device (injected)'), { code: 'ENOSPC' });

describe('audit writer backlog', () => {
  it('a full disk (ENOSPC on every write) does not make the writer hold every later record in memory', async () => {
    let full = true;
    const io: Partial<AuditWriterIo> = {
      writev: (fd, buffers) =>
        full
          ? Promise.reject(enospc())
          : new Promise((resolve, reject) => writev(fd, buffers, (error, n) => (error ? reject(error) : resolve(n)))),
      writevSync: (fd, buffers) => {
        if (full) throw enospc();
        return writevSync(fd, buffers);
      },
    };
    w = new AuditWriter({ dir, sessionId: 's1', io, onError: () => undefined });
    const { queuedMiB } = await appendSteps(w);
    // Holding every record since the disk filled would queue ~96 MiB.
    expect(queuedMiB).toBeLessThan(32);
    // Space again: what was kept is written, and the log says how many records it lost.
    full = false;
    await w.flush();
    w.append({ type: 'note', session_id: 's1', level: 'info', message: 'after' });
    await w.flush();
    const { records, problems } = await readAuditFile(w.path);
    expect(problems).toEqual([]);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    const lost = records.find((r) => r.type === 'note' && /audit record\(s\) dropped/.test(r.message));
    expect(lost).toBeDefined();
    expect(records.at(-1)).toMatchObject({ type: 'note', message: 'after' });
  }, 60_000);

  it('a write that hangs (stalled disk, dead network share) does not make the queue grow without bound', async () => {
    const stalled: Array<() => void> = [];
    let stalling = true;
    const io: Partial<AuditWriterIo> = {
      // Writes hang until the test ends; the writer must not queue everything behind them.
      writev: (fd, buffers) =>
        new Promise((resolve, reject) => {
          const write = () => writev(fd, buffers, (error, n) => (error ? reject(error) : resolve(n)));
          if (stalling) stalled.push(write);
          else write();
        }),
      writevSync,
    };
    // The writer's clock: a step is a second (the write hangs for the rest of the test).
    let clock = Date.now();
    w = new AuditWriter({ dir, sessionId: 's1', io, onError: () => undefined, now: () => clock });
    try {
      const { queuedMiB } = await appendSteps(w, () => (clock += 1_000));
      // Queuing everything behind the one write in flight would hold ~96 MiB.
      expect(queuedMiB).toBeLessThan(32);
    } finally {
      stalling = false;
      for (const release of stalled.splice(0)) release();
    }
  }, 60_000);
});

const note = (message: string): AuditEntry => ({ type: 'note', session_id: 's1', level: 'info', message });
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
