import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { readAll } from '../../src/cli/read-input';

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
