import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_TEXT_FILE_BYTES, readUpTo } from '../../src/core/agent/tools/file-content';
import { createGrepTool } from '../../src/core/agent/tools/grep-tool';
import type { ToolContext } from '../../src/core/agent/tools/tool';
import { createWriteTool } from '../../src/core/agent/tools/write-tool';

// A process the model left running (any earlier Bash call) can grow a file, or swap its name
// for a larger file's, between a tool's size check and its read. The read itself must stop at
// the cap: handle.readFile() reads whatever the file holds by then, up to 2 GiB, 16 files at
// a time in Grep.

// Text over the cap, with the needle only past it: only a read beyond the cap finds it.
const OVER_CAP = `x\n${`${'a'.repeat(79)}\n`.repeat((2 * MAX_TEXT_FILE_BYTES) / 80)}NEEDLE\n`;

let ws: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'size-races-')));
});
afterEach(() => {
  child?.kill();
  child = undefined;
  rmSync(ws, { recursive: true, force: true });
});

function context(): ToolContext {
  return { workspaceRoot: ws, cwd: ws, signal: new AbortController().signal, env: {}, sessionId: 's' };
}

/** Runs `code` in a child node process until the test ends: a program the model left running. */
function background(code: string): ChildProcess {
  return spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
}

/** `handle`, counting the bytes read through it, and running `afterStat` once its size is checked. */
function watched(handle: FileHandle, afterStat: () => void): { handle: FileHandle; bytesRead: () => number } {
  let total = 0;
  const proxy = {
    stat: async () => {
      const info = await handle.stat();
      afterStat();
      return info;
    },
    read: async (buffer: Buffer, offset: number, length: number, position: number) => {
      const result = await handle.read(buffer, offset, length, position);
      total += result.bytesRead;
      return result;
    },
  };
  return { handle: proxy as unknown as FileHandle, bytesRead: () => total };
}

describe('readUpTo, which Read, Grep, Edit and Write read a file with', () => {
  it('reads no more than the cap and one byte of a file that grows to 1 GiB after its size is checked', async () => {
    const file = join(ws, 'grows.txt');
    writeFileSync(file, 'NEEDLE\n');
    const handle = await open(file, 'r');
    try {
      const grown = watched(handle, () => truncateSync(file, 1024 * 1024 * 1024));
      const result = await readUpTo(grown.handle, MAX_TEXT_FILE_BYTES);
      expect(result).toEqual({ size: 1024 * 1024 * 1024 });
      expect(grown.bytesRead()).toBe(MAX_TEXT_FILE_BYTES + 1);
    } finally {
      await handle.close();
    }
  });

  it('reads whole a file that grows after its size is checked but stays within the cap', async () => {
    const file = join(ws, 'appended.log');
    writeFileSync(file, 'first\n');
    const handle = await open(file, 'r');
    try {
      const grown = watched(handle, () => writeFileSync(file, 'first\nsecond\n', { flag: 'a' }));
      const result = await readUpTo(grown.handle, MAX_TEXT_FILE_BYTES);
      expect('bytes' in result && result.bytes.toString()).toBe('first\nfirst\nsecond\n');
    } finally {
      await handle.close();
    }
  });

  it('reads a file of exactly the cap whole, and says how large one a byte over is without reading it', async () => {
    const file = join(ws, 'edge.txt');
    writeFileSync(file, 'a'.repeat(MAX_TEXT_FILE_BYTES));
    const handle = await open(file, 'r');
    try {
      const atCap = await readUpTo(handle, MAX_TEXT_FILE_BYTES);
      expect('bytes' in atCap && atCap.bytes.length).toBe(MAX_TEXT_FILE_BYTES);
      truncateSync(file, MAX_TEXT_FILE_BYTES + 1);
      const counted = watched(handle, () => undefined);
      expect(await readUpTo(counted.handle, MAX_TEXT_FILE_BYTES)).toEqual({ size: MAX_TEXT_FILE_BYTES + 1 });
      expect(counted.bytesRead()).toBe(0);
    } finally {
      await handle.close();
    }
  });
});

describe('a file tool racing a background process that changes the file', () => {
  it('Grep never finds text past the cap while another process swaps a small file and a large one under the name', async () => {
    writeFileSync(join(ws, '.small'), 'x\n');
    writeFileSync(join(ws, 'zz.txt'), OVER_CAP);
    for (let i = 0; i < 100; i++) writeFileSync(join(ws, `f${i}.txt`), 'hello\n');
    // rename() is atomic: the name is always one of the two files.
    child = background(`
      const fs = require('fs'); const p = require('path'); const d = ${JSON.stringify(ws)};
      const f = p.join(d, 'zz.txt'), small = p.join(d, '.small'), big = p.join(d, '.big');
      for (;;) { try { fs.renameSync(f, big); fs.renameSync(small, f); fs.renameSync(f, small); fs.renameSync(big, f); } catch {} }`);
    const grep = createGrepTool();
    const results = new Set<string>();
    for (let attempt = 0; attempt < 300; attempt++) {
      const r = await grep.run({ pattern: 'NEEDLE', glob: '*.txt' }, context());
      results.add(r.ok ? r.content : `error: ${r.error}`);
    }
    expect([...results]).toEqual(['No files found']);
  }, 120_000);

  it('Write never reads past the cap of a file another process keeps growing to 64 MiB and cutting back in place', async () => {
    const file = join(ws, 'zz.txt');
    writeFileSync(file, 'x\n');
    // ftruncate() grows the same file at once, so a size checked on the open handle may be stale by
    // the read; it stays large a while, as a file being written does, then is cut back.
    child = background(`
      const fs = require('fs'); const fd = fs.openSync(${JSON.stringify(file)}, 'r+');
      const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      for (;;) { fs.ftruncateSync(fd, 2); pause(1); fs.ftruncateSync(fd, 64 * 1024 * 1024); pause(5); }`);
    const write = createWriteTool();
    const outcomes = new Set<string>();
    for (let attempt = 0; attempt < 1000; attempt++) {
      const r = await write.run({ file_path: file, content: 'x\n' }, context());
      const original = r.ok ? ((r.response as { originalFile: string | null }).originalFile ?? '') : '';
      outcomes.add(
        r.ok
          ? original.length > MAX_TEXT_FILE_BYTES + 1
            ? `read ${original.length} characters`
            : 'written'
          : r.error.replace(/\d+ bytes,/, 'N bytes,'),
      );
    }
    const allowed = ['written', `Cannot write ${file}: it is N bytes, more than the ${MAX_TEXT_FILE_BYTES} bytes Write replaces.`];
    expect([...outcomes].filter((outcome) => !allowed.includes(outcome))).toEqual([]);
  }, 120_000);
});
