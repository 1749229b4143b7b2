import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_WAITING_WRITES } from '../../src/core/hooks/handlers/rpc/rpc-message-writer';
import { RpcServerPool, type RpcServerPoolOptions } from '../../src/core/hooks/handlers/rpc/rpc-server-pool';
import { STDERR_LOG_BUDGET_CHARS } from '../../src/core/hooks/handlers/rpc/rpc-stderr-log';
import { FOREIGN_MESSAGE_ALLOWANCE, STRAY_LOG_LINES } from '../../src/core/hooks/handlers/rpc/rpc-stray-messages';
import type { RpcLogLevel } from '../../src/core/hooks/handlers/rpc/rpc-types';
import type { HookPayload, ServerDefinition } from '../../src/core/hooks/types';

// What a server cannot make the host do: hold every message it does not read, or log all it writes.

const UNRULY = resolve(__dirname, '../fixtures/rpc/unruly-server.js');
const STRAY = resolve(__dirname, '../fixtures/rpc/stray-server.js');

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

function stray(name: string, args: string[], env: Record<string, string> = {}): ServerDefinition {
  return { ...unruly(name, 'nothing', env), command: [process.execPath, STRAY, ...args], env };
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
    // The host answers no request of a server (the protocol has none): the flood itself stops it.
    expect(p.status('flooder')?.lastError).toMatch(/^rpc server "flooder" sent \d+ messages the protocol does not have/);
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

const preToolUse: HookPayload = {
  hook_event_name: 'PreToolUse',
  session_id: 'session-1',
  transcript_path: '/tmp/t.jsonl',
  cwd: '/tmp',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
};
/** How much the host's heap grew at most while `during` ran, in MiB. */
async function heapGrowthMiB(during: () => Promise<void>): Promise<number> {
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 10);
  try {
    await during();
  } finally {
    clearInterval(sampler);
  }
  return (Math.max(peak, process.memoryUsage().heapUsed) - base) / 1024 / 1024;
}

const denied = { status: 'ok', value: { hookSpecificOutput: expect.objectContaining({ permissionDecision: 'deny' }) } };

describe('rpc server messages the protocol does not have', () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => void uncaught.push(error);
  afterEach(() => {
    process.off('uncaughtException', onUncaught);
    uncaught.length = 0;
  });

  for (const [what, before, depth] of [
    ['nested 10,000 deep (20 KB)', 'deep', '10000'],
    ['nested 4,000 deep (8 KB)', 'deep', '4000'],
    ['of almost 4 MiB', 'flat', ''],
  ]) {
    it(`drops a message whose method is a number, ${what}, in one short log line, and the server's answer still counts`, async () => {
      process.on('uncaughtException', onUncaught);
      const p = await started(stray('odd', [`--before=${before}`], { FIXTURE_DEPTH: depth }));
      const pid = p.status('odd')?.pid;
      for (let i = 0; i < 3; i++) expect(await p.intercept('odd', 'PreToolUse', preToolUse, { timeoutMs: 5000 })).toEqual(denied);
      const dropped = 'rpc server "odd" sent a message whose method is a number, which the protocol does not have; dropped';
      expect(logs.filter((l) => l.message === dropped).map((l) => l.level)).toEqual(['warn', 'warn', 'warn']);
      // What the library would have done with it runs a turn later: give it that turn.
      await new Promise((r) => setImmediate(r));
      expect(uncaught).toEqual([]);
      expect(Math.max(...logs.map((l) => l.message.length))).toBeLessThan(1024);
      expect(p.status('odd')).toMatchObject({ state: 'ready', pid, crashes: 0 });
    });
  }

  it('fails a call whose error answer has a message nested 100,000 deep (200 KB) with a reason, nothing uncaught', async () => {
    process.on('uncaughtException', onUncaught);
    const p = await started(stray('odd', ['--answer=deep-error'], { FIXTURE_DEPTH: '100000' }));
    const result = await p.intercept('odd', 'PreToolUse', preToolUse, { timeoutMs: 5000 });
    expect(result).toEqual({ status: 'error', error: 'rpc server "odd" answered hook/intercept with error 1: (no message)' });
    await new Promise((r) => setImmediate(r));
    expect(uncaught).toEqual([]);
  });

  for (const [what, args, env] of [
    ['notifications x/n', ['--flood=notification:1000000'], {}],
    ['$/cancelRequest notifications with new ids', ['--flood=notification:1000000'], { FIXTURE_METHOD: '$/cancelRequest' }],
    ['requests with new ids', ['--flood=request:1000000'], {}],
  ] as const) {
    it(`stops a server that floods the host with ${what} (~60 MB) and keeps the host's heap bounded`, async () => {
      const grew = await heapGrowthMiB(async () => {
        const p = await synced(stray('flood', [...args], env), { backoff: { initialMs: 20, maxCrashes: 1 } });
        await vi.waitFor(() => expect(p.status('flood')?.state).toBe('failed'), { timeout: 60_000, interval: 50 });
        expect(p.status('flood')?.lastError).toMatch(
          new RegExp(
            `^rpc server "flood" sent ${FOREIGN_MESSAGE_ALLOWANCE + 1} messages the protocol does not have within 1 s \\(the last: a (notification|request) "`,
          ),
        );
      });
      expect(grew).toBeLessThan(64);
      // Its first messages were logged, the rest of the interval counted in one line.
      expect(logs.filter((l) => l.message.includes('which the protocol does not have; dropped'))).toHaveLength(STRAY_LOG_LINES);
    }, 90_000);
  }

  it('reads 1,000,000 answers to requests never sent (~60 MB) in bounded memory, logs a few a second, and keeps the server', async () => {
    const count = 1_000_000;
    const p = await started(stray('answers', [`--flood=answer:${count}`]));
    const pid = p.status('answers')?.pid;
    const grew = await heapGrowthMiB(() =>
      vi.waitFor(() => expect(p.stderrTail('answers')).toContain('flood done'), { timeout: 60_000, interval: 50 }),
    );
    expect(grew).toBeLessThan(64);
    const ignored = () => logs.filter((l) => /^rpc server "answers" sent an answer to request \d+, which is not waiting/.test(l.message));
    const unlogged = () =>
      logs.flatMap((l) => {
        const more =
          /^rpc server "answers" sent (\d+) more messages that were dropped or ignored without a log line \(over 10 per 1 s\)$/.exec(
            l.message,
          );
        return more ? [Number(more[1])] : [];
      });
    // Every answer is either logged or counted.
    await vi.waitFor(() => expect(ignored().length + unlogged().reduce((a, b) => a + b, 0)).toBe(count), { timeout: 10_000 });
    expect(ignored().length + unlogged().length).toBeLessThan(1000);
    expect(p.status('answers')).toMatchObject({ state: 'ready', pid, crashes: 0 });
    expect(await p.intercept('answers', 'PreToolUse', preToolUse, { timeoutMs: 5000 })).toEqual(denied);
  }, 90_000);
});
