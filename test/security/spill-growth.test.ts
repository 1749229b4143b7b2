import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SPILL_DIR_BYTES, spillLongText } from '../../src/core/hooks/protocol/spill';

// A hook that echoes the tool input back (a logger, a formatter) has output as long as the
// model makes its input, call after call, session after session: each long output is saved to
// a file of the spill folder, which must not grow without bound.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hp-spill-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const folderBytes = (folder: string) => readdirSync(folder).reduce((sum, name) => sum + statSync(path.join(folder, name)).size, 0);
const savedIn = (message: string) => /saved in (.+)\]$/.exec(message)?.[1] ?? '';

describe('spilled hook output', () => {
  it('keeps the spill folder within its budget: the oldest files go, the newest stay', async () => {
    const folder = path.join(dir, 'spill');
    // What an earlier run left, older than anything written now.
    const earlier = path.join(folder, 'hook-earlier-echo.txt');
    mkdirSync(folder, { recursive: true });
    writeFileSync(earlier, 'x'.repeat(1024 * 1024), { mode: 0o600 });
    utimesSync(earlier, new Date(0), new Date(0));
    const files: string[] = [];
    for (let call = 0; call < 48; call++) {
      const message = await spillLongText(`${call} `.padEnd(1024 * 1024, 'q'), { dir: folder, sessionId: 's1', label: 'echo' });
      files.push(savedIn(message));
    }
    expect(folderBytes(folder)).toBeLessThanOrEqual(MAX_SPILL_DIR_BYTES);
    expect(files.slice(-16).every((file) => existsSync(file))).toBe(true);
    expect(existsSync(earlier)).toBe(false);
    expect(existsSync(files[0])).toBe(false);
  });
});
