import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MAX_INPUT_DEPTH, MAX_INPUT_FILE_BYTES, readAll, readJsonObject } from '../../src/cli/read-input';

describe('the prompt on stdin', () => {
  it('is read whole up to the limit, and a stream past it is a usage error, not the whole of it in memory', async () => {
    expect(await readAll(Readable.from([Buffer.from('fix '), Buffer.from('the tests')]), 64)).toBe('fix the tests');
    let produced = 0;
    // `yes | hookpilot run`: a stream that never ends on its own.
    const endless = new Readable({
      read() {
        produced += 16;
        this.push('y\ny\ny\ny\ny\ny\ny\ny\n');
      },
    });
    await expect(readAll(endless, 1024)).rejects.toThrow('the prompt on stdin is over');
    expect(produced).toBeLessThan(64 * 1024);
    expect(endless.destroyed).toBe(true);
  });

  it('says what it waits for when the pipe stays silent', async () => {
    const stdin = new PassThrough();
    const notes: string[] = [];
    const reading = readAll(stdin, 1024, () => notes.push('waiting'));
    await vi.waitFor(() => expect(notes).toEqual(['waiting']), { timeout: 10_000 });
    stdin.end('hello');
    expect(await reading).toBe('hello');
  });
});

describe('--input @file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-input-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a JSON object from a file, through a link', async () => {
    writeFileSync(path.join(dir, 'payload.json'), '{"command":"ls"}');
    symlinkSync(path.join(dir, 'payload.json'), path.join(dir, 'link.json'));
    expect(await readJsonObject(`@${path.join(dir, 'link.json')}`, '--input')).toEqual({ command: 'ls' });
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(readJsonObject(`@${fifo}`, '--input')).rejects.toThrow(`--input: cannot read ${fifo}: it is not a regular file`);
  });

  it('refuses a device that never ends, and a file over the limit, without reading it', async () => {
    await expect(readJsonObject('@/dev/zero', '--input')).rejects.toThrow('--input: cannot read /dev/zero: it is not a regular file');
    const big = path.join(dir, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, MAX_INPUT_FILE_BYTES + 1);
    await expect(readJsonObject(`@${big}`, '--input')).rejects.toThrow(`--input: cannot read ${big}: it is over 8 MiB`);
  });

  it('refuses a value nested deeper than the limit, which printing the report would run out of stack on', async () => {
    const nested = (levels: number) => `{"command":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    writeFileSync(path.join(dir, 'deep.json'), nested(6000));
    await expect(readJsonObject(`@${path.join(dir, 'deep.json')}`, '--input')).rejects.toThrow(
      `--input: nested more than ${MAX_INPUT_DEPTH} levels deep`,
    );
    await expect(readJsonObject(nested(MAX_INPUT_DEPTH + 1), '--input')).rejects.toThrow('nested more than');
    expect(await readJsonObject(nested(MAX_INPUT_DEPTH), '--input')).toHaveProperty('command');
  });
});
