import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGrepTool, type GrepInput } from '../../src/core/agent/tools/grep-tool';

// Grep kept every matching file's text, split into lines, until it reported: 100 files of
// 4 MiB searched for `a` raised the host's memory by 845 MiB, in modes that print one line per file.

const FILES = 64;
let ws: string;
beforeAll(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'grep-memory-')));
  const body = `${'abcdefgh'.repeat(9)}\n`.repeat((4 * 1024 * 1024) / 73); // ~4 MiB of short lines
  for (let i = 0; i < FILES; i++) writeFileSync(join(ws, `data${String(i).padStart(2, '0')}.txt`), body);
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** The run's result and how far the JS heap rose above where it started (RSS does not fall back between tests). */
async function measured(input: GrepInput) {
  const ctx = { workspaceRoot: ws, cwd: ws, signal: new AbortController().signal, env: {}, sessionId: 's' };
  // What the previous test let go of is collected first, so that it is not counted here.
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const start = process.memoryUsage().heapUsed;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - start)), 5);
  try {
    return { result: await createGrepTool().run(input, ctx), peakMiB: peak / 2 ** 20 };
  } finally {
    clearInterval(sampler);
  }
}

it.each([['files_with_matches'], ['count']] as const)(
  'Grep in %s mode holds no matching file once it is counted: 256 MiB of matches stay well under their size',
  async (output_mode) => {
    const { result, peakMiB } = await measured({ pattern: 'a', output_mode });
    expect(result).toMatchObject({ ok: true, response: { numFiles: FILES } });
    // Holding them all took over 500 MiB; a few batches of 16 files are in flight at most.
    expect(peakMiB).toBeLessThan(200);
  },
  120_000,
);

it('Grep in content mode still answers with the head and tail of all the matching lines', async () => {
  const { result } = await measured({ pattern: 'a', output_mode: 'content' });
  // Joined whole, the lines were longer than a string can be ("Invalid string length").
  expect(result).toMatchObject({ ok: true, response: { numFiles: FILES, numLines: FILES * Math.floor((4 * 1024 * 1024) / 73) } });
  expect(result.ok && result.content).toMatch(/^.*data00\.txt:1:abcdefgh[^]*characters truncated[^]*data63\.txt:57456:abcdefgh/);
}, 120_000);
