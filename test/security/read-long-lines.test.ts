import { closeSync, ftruncateSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/audit/redactor';
import { createReadTool, MAX_HELD_LINE_CHARS } from '../../src/core/agent/tools/read-tool';
import type { ToolContext } from '../../src/core/agent/tools/tool';

// Read streams a file over 5 MB, but its line splitter held a line whole however long: a file
// the model wrote as one line of hundreds of megabytes was held, and scanned by the redactor,
// whole on the host's only thread. A line is now held up to MAX_HELD_LINE_CHARS from its start
// and its end only; a secret across that cut must stay hidden.

const SECRET = 'Zq8vN3kLpW2xR7tY5mB1cD4Xe';
const read = createReadTool();
let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'read-long-lines-')));
});
afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
});

function context(): ToolContext {
  const redactor = new Redactor({ secretValues: [SECRET] });
  return {
    workspaceRoot: ws,
    cwd: ws,
    signal: new AbortController().signal,
    env: {},
    sessionId: 's',
    redactForModel: (text: string) => redactor.redactForModel(text),
  };
}

describe('Read of a streamed file with a very long line', () => {
  it('shows the start of a line longer than a JavaScript string can be, which it cannot have held whole', async () => {
    // 520 MiB: past V8's longest string (2^29 - 24 characters). Text at the start (a NUL in the
    // first 8 KiB would make it binary), then a hole that reads as NUL characters, on one line.
    const file = join(ws, 'one-line.txt');
    const fd = openSync(file, 'w');
    writeSync(fd, 'a'.repeat(16 * 1024));
    ftruncateSync(fd, 520 * 1024 * 1024);
    closeSync(fd);
    const r = await read.run({ file_path: file, limit: 1 }, context());
    expect(r.ok && r.content).toBe(`     1\t${'a'.repeat(2000)}... [line truncated]`);
  }, 120_000);

  it('shows the lines around a cut line, each as far as Read shows a line', async () => {
    const file = join(ws, 'long.log');
    const long = `${'b'.repeat(6 * 1024 * 1024)}TAIL`;
    writeFileSync(file, `first\n${long}\nlast\n`);
    const r = await read.run({ file_path: file }, context());
    expect(r.ok && r.content).toBe(`     1\tfirst\n     2\t${'b'.repeat(2000)}... [line truncated]\n     3\tlast`);
  });

  it('does not show the start of a secret that the cut of a held line goes through', async () => {
    // A token the redactor shortens fills the held start but for 10 characters, so the part
    // of the line shown reaches the cut, 10 characters into the secret.
    const file = join(ws, 'crafted.txt');
    const token = `sk-${'A'.repeat(MAX_HELD_LINE_CHARS - 3 - 11)}`;
    writeFileSync(file, `${token} ${SECRET} ${'c'.repeat(6 * 1024 * 1024)}\n`);
    const r = await read.run({ file_path: file }, context());
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain('whose cut might go through a secret');
    expect(JSON.stringify(r)).not.toContain(SECRET.slice(0, 6));
  });

  it('hides a secret that ends a cut line and continues on the next, as a whole read does', async () => {
    const file = join(ws, 'key.txt');
    // A private key whose BEGIN line ends a line cut in its middle: the key body follows.
    const body = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';
    writeFileSync(file, `${'d'.repeat(6 * 1024 * 1024)} -----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`);
    const r = await read.run({ file_path: file }, context());
    expect(r.ok).toBe(true);
    expect(JSON.stringify(r)).not.toContain(body.slice(0, 20));
    const window = await read.run({ file_path: file, offset: 2, limit: 1 }, context());
    expect(JSON.stringify(window)).not.toContain(body.slice(0, 20));
  });
});
