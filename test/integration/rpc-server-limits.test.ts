import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_WAITING_WRITES } from '../../src/core/hooks/handlers/rpc/rpc-message-writer';
import { RpcServerPool, type RpcServerPoolOptions } from '../../src/core/hooks/handlers/rpc/rpc-server-pool';
import { STDERR_LOG_BUDGET_CHARS } from '../../src/core/hooks/handlers/rpc/rpc-stderr-log';
import type { RpcLogLevel } from '../../src/core/hooks/handlers/rpc/rpc-types';
import type { HookPayload, ServerDefinition } from '../../src/core/hooks/types';

// What a server cannot make the host do: hold every message it does not read, or log all it writes.

const UNRULY = resolve(__dirname, '../fixtures/rpc/unruly-server.js');

let projectDir: string;
let pool: RpcServerPool | undefined;
const logs: Array<{ level: RpcLogLevel; message: string }> = [];

beforeAll(() => {
  projectDir = mkdtempSync(join(tmpdir(), 'hookpilot-rpc-limits-'));
});
afterAll(() => rmSync(projectDir, { recursive: true, force: true }));
afterEach(async () => {
  await pool?.dispose();
  pool = undefined;
  logs.length = 0;
});

function unruly(name: string, then: string, env: Record<string, string> = {}): ServerDefinition {
  return {
    name,
    command: [process.execPath, UNRULY, `--then=${then}`],
    env: { FIXTURE_CAPS: JSON.stringify({ name, observe: ['PostToolUse'] }), ...env },
    observe: [],
    intercept: [],
    enabled: true,
    priority: 0,
    source: { kind: 'hooksJson' },
  };
}

async function synced(server: ServerDefinition, options: Partial<RpcServerPoolOptions> = {}): Promise<RpcServerPool> {
  pool = new RpcServerPool({
    projectDir,
    logger: (level, message) => logs.push({ level, message }),
    backoff: { initialMs: 20 },
    ...options,
  });
  await pool.sync([server]);
  return pool;
}

async function started(server: ServerDefinition): Promise<RpcServerPool> {
  const p = await synced(server);
  await vi.waitFor(() => expect(p.status(server.name)?.state).toBe('ready'), { timeout: 5000 });
  return p;
}

const postToolUse = (i: number): HookPayload => ({
  hook_event_name: 'PostToolUse',
  session_id: 'session-1',
  transcript_path: join(projectDir, 't.jsonl'),
  cwd: projectDir,
  tool_name: 'Read',
  tool_input: { file_path: `f${i}` },
  tool_response: { content: 'x'.repeat(16 * 1024) },
});

const stalled = (name: string) =>
  new RegExp(`^rpc server "${name}" is not reading its stdin \\(${MAX_WAITING_WRITES} messages waiting\\); the server was stopped`);

describe('rpc server stdin', () => {
  it('stops a server that does not read the notifications sent to it, then restarts it', async () => {
    const p = await started(unruly('deaf', 'deaf'));
    const pid = p.status('deaf')?.pid;
    // One notification per turn of the event loop, as events come: until the server is gone.
    for (let i = 0; i < 1000 && p.notify('deaf', 'PostToolUse', postToolUse(i)) === undefined; i++) {
      await new Promise((r) => setImmediate(r));
    }
    await vi.waitFor(() => expect(logs.map((l) => l.message)).toContainEqual(expect.stringMatching(stalled('deaf'))), { timeout: 5000 });
    expect(logs.find((l) => stalled('deaf').test(l.message))?.message).toMatch(/; restarting in 20 ms$/);
    await vi.waitFor(() => expect(p.status('deaf')).toMatchObject({ state: 'ready', crashes: 1 }), { timeout: 5000 });
    expect(p.status('deaf')?.pid).not.toBe(pid);
  });

  it('keeps a server that reads a burst queued within one turn of the event loop', async () => {
    const log = join(projectDir, 'burst.log');
    const p = await started(unruly('reader', 'nothing', { FIXTURE_LOG: log }));
    const pid = p.status('reader')?.pid;
    for (let i = 0; i < 1000; i++) expect(p.notify('reader', 'PostToolUse', postToolUse(i))).toBeUndefined();
    await vi.waitFor(() => expect(readFileSync(log, 'utf8').match(/^observe PostToolUse$/gm)).toHaveLength(1000), { timeout: 10_000 });
    expect(p.status('reader')).toMatchObject({ state: 'ready', pid, crashes: 0 });
  });

  it('stops a server that floods the host with requests while not reading the answers', async () => {
    // It floods from `initialized` on: it may be stopped before a test could see it ready.
    const p = await synced(unruly('flooder', 'flood-requests'), { backoff: { initialMs: 20, maxCrashes: 1 } });
    await vi.waitFor(() => expect(p.status('flooder')?.state).toBe('failed'), { timeout: 10_000 });
    expect(p.status('flooder')?.lastError).toMatch(stalled('flooder'));
  });
});

describe('rpc server stderr', () => {
  it('logs whole lines within a budget per second, says how much it dropped, and keeps the tail', async () => {
    const chunks = 160;
    const lastLine = 'flood done: last line';
    const written = chunks * 64 * 1024 + lastLine.length + 1;
    const p = await started(unruly('noisy', 'flood-stderr', { FIXTURE_FLOOD_CHUNKS: String(chunks) }));
    const forwarded = () =>
      logs.filter((l) => l.level === 'debug' && l.message.startsWith('[noisy] ')).flatMap((l) => l.message.split('\n'));
    const notes = () =>
      logs.flatMap((l) => {
        const dropped = /^rpc server "noisy": (\d+) characters of stderr were not logged \(over 64 KiB per 1 s\)/.exec(l.message);
        return dropped ? [Number(dropped[1])] : [];
      });
    const logged = () => forwarded().reduce((sum, line) => sum + line.length - '[noisy] '.length + 1, 0);
    // Everything the server wrote is either logged or counted as dropped.
    await vi.waitFor(() => expect(logged() + notes().reduce((a, b) => a + b, 0)).toBe(written), { timeout: 20_000 });

    expect(notes().length).toBeGreaterThan(0);
    expect(logged()).toBeLessThanOrEqual(STDERR_LOG_BUDGET_CHARS * (notes().length + 1));
    for (const line of forwarded()) expect(line).toMatch(/^\[noisy\] (flood \d{8} x+|flood done: last line)$/);
    expect(p.stderrTail('noisy')).toMatch(/flood 00163839 x+\nflood done: last line\n$/);
  });
});
