import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_INFO, HOOK_EVENTS, type HookEventName } from '../../src/core/hooks/events';
import { FrameGuard, MAX_FRAME_BYTES } from '../../src/core/hooks/handlers/rpc/rpc-frame-guard';
import { rpcHookDefinitions } from '../../src/core/hooks/handlers/rpc/rpc-hook-definitions';
import { RpcHookHandler } from '../../src/core/hooks/handlers/rpc/rpc-hook-handler';
import { hookEventParamsSchema, hookInterceptResultSchema, initializeParamsSchema } from '../../src/core/hooks/handlers/rpc/rpc-protocol';
import { RpcServerPool, type RpcServerPoolOptions } from '../../src/core/hooks/handlers/rpc/rpc-server-pool';
import type { RpcServerState } from '../../src/core/hooks/handlers/rpc/rpc-types';
import type { HookDefinition, HookOutcome, HookPayload, ServerDefinition } from '../../src/core/hooks/types';

const FIXTURE = resolve(__dirname, '../fixtures/rpc/fixture-server.js');
const RAW = resolve(__dirname, '../fixtures/rpc/raw-server.js');
const EXAMPLE = resolve(__dirname, '../../examples/rpc-policy-server/server.js');

let projectDir: string;
let pool: RpcServerPool | undefined;
const logs: Array<[string, string]> = [];

beforeAll(() => {
  projectDir = mkdtempSync(join(tmpdir(), 'hookpilot-rpc-'));
});
afterAll(() => rmSync(projectDir, { recursive: true, force: true }));
afterEach(async () => {
  await pool?.dispose();
  pool = undefined;
  logs.length = 0;
});

interface FixtureState {
  pid: number;
  envNames: string[];
  projectDirEnv: string;
  passedToken?: string;
  cwd: string;
  initialize: unknown;
  initialized: boolean;
  observed: unknown[];
  intercepted: unknown[];
  cancelled: unknown[];
  shutdown: boolean;
  grandchildPid: number | null;
}

let stateCounter = 0;
interface FixtureOptions {
  mode?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  observe?: HookEventName[];
  intercept?: HookEventName[];
}

function fixtureServer(name: string, options: FixtureOptions = {}): ServerDefinition & { stateFile: string } {
  const stateFile = join(projectDir, `state-${process.pid}-${stateCounter++}.json`);
  return {
    name,
    command: [process.execPath, FIXTURE, `--mode=${options.mode ?? 'normal'}`, ...(options.args ?? [])],
    env: { FIXTURE_STATE: stateFile, ...options.env },
    cwd: options.cwd,
    observe: options.observe ?? [],
    intercept: options.intercept ?? [],
    enabled: true,
    priority: 10,
    onFailure: 'continue',
    timeoutMs: 5000,
    source: { kind: 'hooksJson', file: '.vscode/hooks.json', line: 3 },
    stateFile,
  };
}

function readState(file: string): FixtureState | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as FixtureState) : undefined;
}

async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function newPool(options: Partial<RpcServerPoolOptions> = {}): RpcServerPool {
  pool = new RpcServerPool({ projectDir, logger: (level, message) => logs.push([level, message]), backoff: { initialMs: 20 }, ...options });
  return pool;
}

async function started(servers: ServerDefinition[], options: Partial<RpcServerPoolOptions> = {}): Promise<RpcServerPool> {
  const p = newPool(options);
  await p.sync(servers);
  for (const server of servers) await waitState(p, server.name, 'ready');
  return p;
}

function waitState(p: RpcServerPool, name: string, state: RpcServerState, timeoutMs = 5000): Promise<true> {
  return waitFor(() => p.status(name)?.state === state, `${name} to be ${state} (is ${JSON.stringify(p.status(name))})`, timeoutMs);
}

function payload(event: HookEventName, extra: Record<string, unknown> = {}): HookPayload {
  return { hook_event_name: event, session_id: 'session-1', transcript_path: join(projectDir, 't.jsonl'), cwd: projectDir, ...extra };
}

function hookFor(p: RpcServerPool, server: ServerDefinition, event: HookEventName): HookDefinition {
  const hook = rpcHookDefinitions(server, p.capabilities(server.name)).find((h) => h.event === event);
  if (!hook) throw new Error(`no ${event} hook for ${server.name}`);
  return hook;
}

function run(
  p: RpcServerPool,
  hook: HookDefinition,
  body: HookPayload,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<HookOutcome> {
  return new RpcHookHandler(p).run({
    hook,
    payload: body,
    signal: options.signal ?? new AbortController().signal,
    timeoutMs: options.timeoutMs ?? 5000,
    projectDir,
  });
}

function bash(command: string, fixture?: Record<string, unknown>): HookPayload {
  return payload('PreToolUse', { tool_name: 'Bash', tool_input: { command }, tool_use_id: 'tu1', ...(fixture ? { fixture } : {}) });
}

/** A full garbage collection, so a WeakRef tells whether anything still holds its target. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Zombies count as dead: an orphan's reaper (PID 1 in a container) may take its time. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return !existsSync('/proc/self/stat');
  }
}

describe('stdout frame guard', () => {
  const frame = (body: string) =>
    `Content-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${body}`;

  it('accepts well-framed messages however the stream is chunked', () => {
    const stream = Buffer.from(frame('{"jsonrpc":"2.0","id":1,"result":{"ünï":"cödé"}}') + frame('{}') + frame(''));
    for (const size of [1, 2, 7, 64, stream.length]) {
      const guard = new FrameGuard();
      for (let i = 0; i < stream.length; i += size) {
        const chunk = stream.subarray(i, i + size);
        expect(guard.check(chunk)).toEqual({ validLength: chunk.length });
      }
    }
  });

  it('passes the valid prefix and names the garbage after it', () => {
    const guard = new FrameGuard();
    const good = frame('{"jsonrpc":"2.0","id":1,"result":null}');
    const result = guard.check(Buffer.from(`${good}debug: x=1\n`));
    expect(result).toEqual({
      validLength: Buffer.byteLength(good),
      violation: 'line feed without carriage return in header: "debug: x=1\\n"',
    });
    expect(guard.check(Buffer.from(frame('{}'))).validLength).toBe(0);
  });

  it('refuses a Content-Length over 4 MiB at the header, before any of the body', () => {
    const guard = new FrameGuard();
    const good = frame('{}');
    const big = `Content-Length: ${MAX_FRAME_BYTES + 1}\r\n\r\n{"x":`;
    expect(guard.check(Buffer.from(good + big))).toEqual({
      validLength: Buffer.byteLength(good),
      violation: `a message of ${MAX_FRAME_BYTES + 1} bytes, over the ${MAX_FRAME_BYTES}-byte limit`,
      oversize: true,
    });
    expect(new FrameGuard().check(Buffer.from(frame('x'.repeat(1000))))).toEqual({
      validLength: Buffer.byteLength(frame('x'.repeat(1000))),
    });
  });

  it('refuses two Content-Length headers, of which the guard and the reader would each believe another', () => {
    const header = 'Content-Length: 2\r\nContent-Length: 5000000000\r\n\r\n{}';
    expect(new FrameGuard().check(Buffer.from(header)).violation).toMatch(/^more than one Content-Length header: /);
    expect(new FrameGuard().check(Buffer.from('content-length: 2\r\nCONTENT-LENGTH: 2\r\n\r\n{}')).violation).toMatch(
      /^more than one Content-Length header/,
    );
  });

  it('rejects a header block without Content-Length or with bare line feeds', () => {
    expect(new FrameGuard().check(Buffer.from('Content-Type: x\r\n\r\n{}')).violation).toMatch(/^message header without Content-Length/);
    expect(new FrameGuard().check(Buffer.from('Content-Length: 2\n\n{}')).violation).toMatch(/^line feed without carriage return/);
    expect(new FrameGuard().check(Buffer.from('{"jsonrpc":"2.0"}')).violation).toBe('not a message header: "{\\"jsonrpc\\":\\"2.0\\"}"');
    expect(new FrameGuard().check(Buffer.from('Démarrage…')).violation).toBe('not a message header: "Démarrage…"');
  });
});

describe('rpc server pool: handshake and lifecycle', () => {
  it('handshakes, resolves aliases, reports unknown events and passes the whole env', async () => {
    mkdirSync(join(projectDir, 'sub'), { recursive: true });
    const server = fixtureServer('caps', {
      cwd: 'sub',
      env: {
        PASSED_TOKEN: '${GITHUB_TOKEN}',
        FIXTURE_CAPS: JSON.stringify({
          name: 'fixture',
          version: '1.2.3',
          observe: ['turn_start', 'PostToolUse', 'NotAnEvent'],
          intercept: ['before_tool', 'approve_tool'],
        }),
      },
    });
    const p = await started([server], {
      env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-x', GITHUB_TOKEN: 'ghp-x', MY_SECRET: 's', HARMLESS: '1' },
      sessionId: 'session-1',
    });

    expect(p.capabilities('caps')).toEqual({
      serverName: 'fixture',
      serverVersion: '1.2.3',
      observe: ['TurnStart', 'PostToolUse'],
      intercept: ['PreToolUse', 'PermissionRequest'],
      unknownEvents: ['NotAnEvent'],
      approveEveryCall: true,
    });
    expect(logs.some(([level, message]) => level === 'warn' && message.includes('NotAnEvent'))).toBe(true);
    const state = await waitFor(() => {
      const s = readState(server.stateFile);
      return s?.initialized && s;
    }, 'initialized');
    const init = initializeParamsSchema.parse(state.initialize);
    expect(init).toMatchObject({ protocolVersion: 1, client: { name: 'hookpilot' }, projectDir, sessionId: 'session-1' });
    expect(state.envNames).toContain('HARMLESS');
    expect(state.envNames).toContain('FIXTURE_STATE');
    // A server is the user's own code: like a command hook, it gets the whole environment.
    expect(state.envNames).toEqual(expect.arrayContaining(['OPENAI_API_KEY', 'GITHUB_TOKEN', 'MY_SECRET', 'PASSED_TOKEN']));
    expect(state.passedToken).toBe('ghp-x');
    expect(state.cwd).toBe(join(projectDir, 'sub'));
    expect(state.projectDirEnv).toBe(projectDir);
    expect(p.status('caps')).toMatchObject({ state: 'ready', pid: state.pid, crashes: 0 });
  });

  it('derives one hook per event from config and handshake', () => {
    const server = fixtureServer('defs', { observe: ['PostToolUse', 'Stop'], intercept: [] });
    // Before its handshake, a server that lists no intercept events is asked about every event it could intercept.
    const provisional = rpcHookDefinitions(server);
    expect(provisional.map((h) => h.event)).toEqual(HOOK_EVENTS.filter((event) => EVENT_INFO[event].kind !== 'observe'));
    expect(provisional.every((h) => h.spec.type === 'rpc' && h.spec.mode === 'intercept' && h.spec.provisional)).toBe(true);
    const before = rpcHookDefinitions({ ...server, intercept: ['PreToolUse'] });
    expect(before.map((h) => [h.id, h.spec])).toEqual([
      ['rpc:defs:PreToolUse', { type: 'rpc', server: 'defs', mode: 'intercept' }],
      ['rpc:defs:PostToolUse', { type: 'rpc', server: 'defs', mode: 'observe' }],
      ['rpc:defs:Stop', { type: 'rpc', server: 'defs', mode: 'observe' }],
    ]);
    // A list the handshake leaves out announces nothing: the config's stands.
    const unannounced = rpcHookDefinitions({ ...server, intercept: ['PreToolUse'] }, { observe: ['PostToolUse'] });
    expect(unannounced.map((h) => `${h.id} ${h.spec.type === 'rpc' ? h.spec.mode : ''}`)).toEqual([
      'rpc:defs:PreToolUse intercept',
      'rpc:defs:PostToolUse observe',
    ]);
    const after = rpcHookDefinitions(server, { observe: ['PostToolUse', 'TurnStart'], intercept: ['PreToolUse', 'Stop'] });
    expect(after.map((h) => `${h.id} ${h.spec.type === 'rpc' ? h.spec.mode : ''}`)).toEqual([
      'rpc:defs:PreToolUse intercept',
      'rpc:defs:Stop intercept',
      'rpc:defs:PostToolUse observe',
    ]);
    const fromHandshake = rpcHookDefinitions(
      { ...server, observe: [] },
      { observe: ['PostToolUse', 'PreToolUse'], intercept: ['PreToolUse', 'TurnStart'] },
    );
    expect(fromHandshake.map((h) => `${h.id} ${h.spec.type === 'rpc' ? h.spec.mode : ''}`)).toEqual([
      'rpc:defs:PreToolUse intercept',
      'rpc:defs:PostToolUse observe',
      'rpc:defs:TurnStart observe',
    ]);
    expect(fromHandshake[0]).toMatchObject({
      name: 'defs',
      event: 'PreToolUse',
      priority: 10,
      onFailure: 'continue',
      timeoutMs: 5000,
      enabled: true,
      source: server.source,
    });
  });

  it('sync starts, restarts changed, stops disabled and removed servers, and says so', async () => {
    const a = fixtureServer('a');
    const p = newPool();
    const changes: string[] = [];
    const subscription = p.onDidChange((c) => changes.push(`${c.server}:${c.status.state}`));
    await p.sync([a]);
    await waitState(p, 'a', 'ready');
    const firstPid = p.status('a')?.pid ?? -1;
    expect(changes).toEqual(['a:starting', 'a:ready']);

    await p.sync([{ ...a, priority: 99 }]);
    expect(p.status('a')?.pid).toBe(firstPid);

    await p.sync([{ ...a, command: [...a.command, '--changed'] }]);
    await waitState(p, 'a', 'ready');
    expect(p.status('a')?.pid).not.toBe(firstPid);
    expect(processAlive(firstPid)).toBe(false);

    await p.sync([{ ...a, command: [...a.command, '--changed'], enabled: false }]);
    expect(p.status('a')).toMatchObject({ state: 'stopped', pid: undefined });
    expect(p.capabilities('a')).toBeUndefined();

    await p.sync([]);
    expect(p.status('a')).toBeUndefined();
    subscription.dispose();
    const count = changes.length;
    await p.sync([a]);
    await waitState(p, 'a', 'ready');
    expect(changes.length).toBe(count);
  });

  it('fails at once when the command cannot start or the server refuses the handshake', async () => {
    const missing: ServerDefinition = { ...fixtureServer('missing'), command: ['hookpilot-no-such-command-xyz'] };
    const refusing = fixtureServer('refusing', { mode: 'refuse' });
    const bad = fixtureServer('bad', { mode: 'bad-handshake' });
    const p = newPool();
    await p.sync([missing, refusing, bad]);
    await Promise.all(['missing', 'refusing', 'bad'].map((n) => waitState(p, n, 'failed')));
    expect(p.status('missing')?.lastError).toMatch(/rpc server "missing" could not start: .*ENOENT/);
    expect(p.status('refusing')?.lastError).toContain('fixture refuses to initialize');
    expect(p.status('bad')?.lastError).toMatch(/answered initialize with an invalid result: name: .*; observe: Invalid input/);
    expect(p.status('missing')?.crashes).toBe(0);
  });

  it('dispose sends shutdown and exit, and leaves no process behind', async () => {
    const server = fixtureServer('tidy', { args: ['--grandchild'] });
    const p = await started([server]);
    const state = await waitFor(() => {
      const s = readState(server.stateFile);
      return s?.grandchildPid ? s : undefined;
    }, 'grandchild');
    expect(processAlive(state.pid)).toBe(true);
    expect(processAlive(state.grandchildPid ?? -1)).toBe(true);
    await p.dispose();
    expect(readState(server.stateFile)?.shutdown).toBe(true);
    expect(processAlive(state.pid)).toBe(false);
    await waitFor(() => !processAlive(state.grandchildPid ?? -1), 'grandchild to die', 1000);
  });

  it('kills a server that ignores shutdown', async () => {
    const server = fixtureServer('stubborn', { mode: 'ignore-shutdown' });
    const p = await started([server]);
    const pid = p.status('stubborn')?.pid ?? -1;
    expect(processAlive(pid)).toBe(true);
    await p.dispose();
    expect(processAlive(pid)).toBe(false);
  });
});

describe('rpc hook handler: intercept and observe', () => {
  it('round-trips deny, allow, updatedInput, context and null answers', async () => {
    const server = fixtureServer('policy');
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');

    const deny = await run(p, pre, bash('rm -rf /', { action: 'deny', reason: 'no way' }));
    expect(deny).toMatchObject({ status: 'success', effects: { decision: 'deny', reason: 'no way' } });

    const allow = await run(p, pre, bash('ls', { action: 'allow' }));
    expect(allow).toMatchObject({ status: 'success', effects: { decision: 'allow' } });

    const update = await run(p, pre, bash('ls', { action: 'update', updatedInput: { command: 'ls -la' } }));
    expect(update).toMatchObject({ status: 'success', effects: { decision: 'allow', updatedInput: { command: 'ls -la' } } });

    const context = await run(p, pre, bash('ls', { action: 'context' }));
    expect(context).toMatchObject({ status: 'success', effects: { additionalContext: 'PreToolUse Bash session-1' } });

    expect(await run(p, pre, bash('ls', { action: 'null' }))).toMatchObject({ status: 'success', effects: {} });
    expect(await run(p, pre, bash('ls'))).toMatchObject({ status: 'success', effects: {} });

    const state = readState(server.stateFile);
    expect(state?.intercepted).toHaveLength(6);
    expect(hookEventParamsSchema.parse(state?.intercepted[0])).toMatchObject({
      event: 'PreToolUse',
      payload: { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } },
    });
  });

  it('turns a JSON-RPC error or an invalid answer into an error outcome', async () => {
    const server = fixtureServer('broken');
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');
    const failed = await run(p, pre, bash('ls', { action: 'error' }));
    expect(failed).toMatchObject({ status: 'error' });
    expect(failed.status === 'error' && failed.error).toMatch(
      /rpc server "broken" answered hook\/intercept with error -32001: policy engine broke/,
    );
    const invalid = await run(p, pre, bash('ls', { action: 'invalid' }));
    expect(invalid.status === 'error' && invalid.error).toMatch(/rpc server "broken": invalid hook output/);
    expect(p.status('broken')?.state).toBe('ready');
  });

  it('sends observe events as notifications and returns at once', async () => {
    const server = fixtureServer('watcher');
    const p = await started([server]);
    const post = hookFor(p, server, 'PostToolUse');
    expect(post.spec).toEqual({ type: 'rpc', server: 'watcher', mode: 'observe' });
    for (let i = 0; i < 3; i++) {
      const outcome = await run(
        p,
        post,
        payload('PostToolUse', { tool_name: 'Read', tool_input: { file_path: `f${i}` }, tool_response: {} }),
      );
      expect(outcome).toMatchObject({ status: 'success', effects: {} });
    }
    const state = await waitFor(() => {
      const s = readState(server.stateFile);
      return s && s.observed.length === 3 && s;
    }, '3 observed events');
    const params = state.observed.map((o) => hookEventParamsSchema.parse(o));
    expect(params.map((o) => (o.payload.tool_input as { file_path: string }).file_path)).toEqual(['f0', 'f1', 'f2']);
    expect(params[0].event).toBe('PostToolUse');
  });

  it('times out a request the server never answers, cancels it, and stays usable', async () => {
    const server = fixtureServer('slow');
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');
    const pid = p.status('slow')?.pid;
    const outcome = await run(p, pre, bash('ls', { action: 'hang', tag: 'late' }), { timeoutMs: 300 });
    expect(outcome.status).toBe('timeout');
    expect(outcome.status === 'timeout' && outcome.error).toBe('rpc server "slow" did not answer hook/intercept within 300 ms');
    await waitFor(() => readState(server.stateFile)?.cancelled.includes('late'), 'the server to see $/cancelRequest');
    expect(await run(p, pre, bash('ls', { action: 'allow' }))).toMatchObject({ status: 'success', effects: { decision: 'allow' } });
    expect(p.status('slow')).toMatchObject({ state: 'ready', pid });
  });

  it('cancels a request when the invocation signal aborts', async () => {
    const server = fixtureServer('abortable');
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');
    const controller = new AbortController();
    const running = run(p, pre, bash('ls', { action: 'hang', tag: 'aborted' }), { signal: controller.signal });
    // Aborted once the server holds the request: the abort cancels a request in flight.
    await waitFor(
      () => JSON.stringify(readState(server.stateFile)?.intercepted ?? []).includes('"tag":"aborted"'),
      'the server to receive the request',
    );
    controller.abort();
    expect((await running).status).toBe('cancelled');
    await waitFor(() => readState(server.stateFile)?.cancelled.includes('aborted'), 'the server to see $/cancelRequest');
    const already = new AbortController();
    already.abort();
    expect((await run(p, pre, bash('ls', { action: 'allow' }), { signal: already.signal })).status).toBe('cancelled');
  });

  it('keeps nothing of a request it gave up on: a server that never answers does not make the host hold the payloads', async () => {
    const server = fixtureServer('hung');
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');
    const pid = p.status('hung')?.pid;
    // The payload lives only in this function's frame, which is gone when it returns.
    const timedOut = async (i: number): Promise<WeakRef<object>> => {
      const body = bash(`cat f${i}`, { action: 'hang' });
      expect((await run(p, pre, body, { timeoutMs: 100 })).status).toBe('timeout');
      return new WeakRef(body.tool_input as object);
    };
    const sent: Array<WeakRef<object>> = [];
    for (let i = 0; i < 5; i++) sent.push(await timedOut(i));
    // A WeakRef keeps its target until the current job ends.
    await new Promise((r) => setTimeout(r, 0));
    collectGarbage();
    expect(sent.map((ref, i) => (ref.deref() === undefined ? 'released' : `request ${i} kept`))).toEqual(Array(5).fill('released'));
    expect(p.status('hung')).toMatchObject({ state: 'ready', pid });
  });

  it('applies only the first answer to a request: a second one under its id, or one after its timeout, is ignored', async () => {
    const server: ServerDefinition = { ...fixtureServer('raw'), command: [process.execPath, RAW] };
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');
    const late = await run(p, pre, bash('ls', { action: 'late', delayMs: 300 }), { timeoutMs: 100 });
    expect(late.status).toBe('timeout');
    // Deny, then allow, in one write: the allow must not replace the deny.
    const twice = await run(p, pre, bash('rm -rf /', { action: 'twice' }));
    expect(twice).toMatchObject({ status: 'success', effects: { decision: 'deny', reason: 'first answer' } });
    const ignored = () => logs.filter(([, m]) => /^rpc server "raw" sent an answer to request \d+, which is not waiting/.test(m));
    await waitFor(() => ignored().length === 2, 'the repeated and the late answer to be ignored');
    expect(await run(p, pre, bash('ls'))).toMatchObject({ status: 'success', effects: {} });
    expect(await run(p, pre, bash('rm -rf /', { action: 'twice' }))).toMatchObject({ status: 'success', effects: { decision: 'deny' } });
  });

  it('fails the request in flight when the server crashes, restarts it, and the next request works', async () => {
    const server = fixtureServer('fragile');
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');
    const pid = p.status('fragile')?.pid;
    const crashed = await run(p, pre, bash('ls', { action: 'crash', code: 3 }));
    expect(crashed.status).toBe('error');
    expect(crashed.status === 'error' && crashed.error).toBe('rpc server "fragile" exited (code 3)');
    // Issued while the server restarts: waits for readiness within its own timeout.
    const next = await run(p, pre, bash('ls', { action: 'allow' }));
    expect(next).toMatchObject({ status: 'success', effects: { decision: 'allow' } });
    expect(p.status('fragile')).toMatchObject({ state: 'ready', crashes: 1 });
    expect(p.status('fragile')?.pid).not.toBe(pid);
    expect(logs.some(([level, m]) => level === 'warn' && m.includes('exited (code 3); restarting in 20 ms'))).toBe(true);
  });

  it('stops a server that announces a frame over 4 MiB before buffering it, fails the request, and restarts it', async () => {
    const server = fixtureServer('bloated');
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');
    const pid = p.status('bloated')?.pid;
    const outcome = await run(p, pre, bash('ls', { action: 'huge-frame' }));
    expect(outcome).toMatchObject({
      status: 'error',
      error: 'rpc server "bloated" sent a message of 5000000000 bytes, over the 4194304-byte limit; the server was stopped',
    });
    const next = await run(p, pre, bash('ls', { action: 'allow' }));
    expect(next).toMatchObject({ status: 'success', effects: { decision: 'allow' } });
    expect(p.status('bloated')?.pid).not.toBe(pid);
    expect(
      logs.some(([level, m]) => level === 'warn' && m.includes('over the 4194304-byte limit; the server was stopped; restarting')),
    ).toBe(true);
  });

  it('cuts a long answer like command output before it reaches the model, and spills the whole of it', async () => {
    const server = fixtureServer('verbose');
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');
    const handler = new RpcHookHandler(p);
    const invocation = {
      hook: pre,
      payload: bash('ls', { action: 'long-reason', repeat: 250_000 }),
      signal: new AbortController().signal,
      timeoutMs: 5000,
      projectDir,
    };
    const cut = await handler.run(invocation);
    expect(cut.status).toBe('success');
    const reason = cut.status === 'success' ? (cut.effects.reason ?? '') : '';
    expect(cut).toMatchObject({ effects: { decision: 'deny' } });
    expect(reason.length).toBeLessThan(2_200);
    expect(reason).toMatch(/\[Hook output truncated: 1,000,000 chars, showing the first 2000\]$/);

    const spillDir = join(projectDir, 'spill');
    const spilled = await new RpcHookHandler(p, { spillDir }).run(invocation);
    const pointer = spilled.status === 'success' ? (spilled.effects.reason ?? '') : '';
    const file = /saved in (.+)\]$/.exec(pointer)?.[1];
    expect(file && readFileSync(file, 'utf8')).toBe('no. '.repeat(250_000));
  });

  it('gives up on a crash loop, keeps the hooks, and fails their requests clearly', async () => {
    const server = fixtureServer('looping', { mode: 'crash-on-start', intercept: ['PreToolUse'] });
    const p = newPool({ backoff: { initialMs: 10, maxCrashes: 2 } });
    await p.sync([server]);
    await waitState(p, 'looping', 'failed');
    const status = p.status('looping');
    expect(status?.crashes).toBe(2);
    expect(status?.lastError).toContain(
      'rpc server "looping" exited (code 7); stderr: fixture: crashing on start as asked (gave up after 2 crashes within 60 s)',
    );
    expect(logs.filter(([level]) => level === 'warn').map(([, m]) => m)).toContain(
      'rpc server "looping" exited (code 7); stderr: fixture: crashing on start as asked; restarting in 10 ms',
    );
    const outcome = await run(p, rpcHookDefinitions(server, p.capabilities('looping'))[0], bash('ls'));
    expect(outcome.status).toBe('error');
    expect(outcome.status === 'error' && outcome.error).toMatch(/^rpc server "looping" is failed \(rpc server "looping" exited \(code 7\)/);
    expect(outcome.trace.stderr).toContain('crashing on start');
    // A later sync is a retry.
    await p.sync([server]);
    expect(p.status('looping')?.state).not.toBe('failed');
    await waitState(p, 'looping', 'failed');
  });

  it('explains stdout garbage, fails the request, and recovers without hurting the host', async () => {
    const server = fixtureServer('noisy');
    const p = await started([server]);
    const pre = hookFor(p, server, 'PreToolUse');
    const outcome = await run(p, pre, bash('ls', { action: 'garbage' }));
    expect(outcome.status).toBe('error');
    expect(outcome.status === 'error' && outcome.error).toBe(
      'rpc server "noisy" wrote non-protocol output to stdout (not a message header: "oops, a debug print\\n"); servers must write only JSON-RPC messages there and log to stderr',
    );
    expect(await run(p, pre, bash('ls', { action: 'allow' }))).toMatchObject({ status: 'success', effects: { decision: 'allow' } });
  });

  it('marks a server that prints a banner on stdout as failed with the reason', async () => {
    const server = fixtureServer('banner', { mode: 'banner' });
    const p = newPool({ backoff: { initialMs: 10, maxCrashes: 1 } });
    await p.sync([server]);
    await waitState(p, 'banner', 'failed');
    expect(p.status('banner')?.lastError).toContain(
      'wrote non-protocol output to stdout (not a message header: "Fixture server 1.0 starting...',
    );
  });

  it('times out a handshake; observe events while not ready are reported, not queued', async () => {
    const server = fixtureServer('mute', { mode: 'silent-handshake', observe: ['PostToolUse'], intercept: ['PreToolUse'] });
    const p = newPool({ handshakeTimeoutMs: 200, backoff: { initialMs: 10, maxCrashes: 1 } });
    await p.sync([server]);
    const observed = await run(p, hookFor(p, server, 'PostToolUse'), payload('PostToolUse'));
    expect(observed.status === 'error' && observed.error).toBe('rpc server "mute" is starting; PostToolUse notification dropped');
    await waitState(p, 'mute', 'failed');
    expect(p.status('mute')?.lastError).toContain('rpc server "mute" did not answer initialize within 200 ms');
  });
});

describe('example rpc-policy-server', () => {
  const example: ServerDefinition = {
    name: 'policy',
    command: [process.execPath, EXAMPLE],
    observe: [],
    intercept: [],
    enabled: true,
    priority: 0,
    source: { kind: 'hooksJson' },
  };

  it('denies rm -rf and git push --force, lets the rest through, and approves read-only tools', async () => {
    const p = await started([example]);
    const pre = hookFor(p, example, 'PreToolUse');
    const decide = async (command: string) => {
      const outcome = await run(p, pre, bash(command));
      if (outcome.status !== 'success') throw new Error(`unexpected ${outcome.status}`);
      return outcome.effects.decision ?? 'none';
    };
    expect(await decide('rm -rf build')).toBe('deny');
    expect(await decide('cd /tmp && sudo rm -fr ~/project')).toBe('deny');
    expect(await decide('rm --recursive --force x')).toBe('deny');
    expect(await decide('git push --force origin main')).toBe('deny');
    expect(await decide('git -C repo push -f')).toBe('deny');
    expect(await decide('rm -r build')).toBe('none');
    expect(await decide('git push --force-with-lease origin main')).toBe('none');
    expect(await decide('ls -la')).toBe('none');
    const denied = await run(p, pre, bash('rm -rf /'));
    expect(denied.status === 'success' && denied.effects.reason).toMatch(/^rpc-policy-server: rm -rf is not allowed/);

    const permission = hookFor(p, example, 'PermissionRequest');
    const read = await run(p, permission, payload('PermissionRequest', { tool_name: 'Read', tool_input: { file_path: 'a' } }));
    expect(read).toMatchObject({ status: 'success', effects: { permission: { behavior: 'allow' } } });
    const write = await run(p, permission, payload('PermissionRequest', { tool_name: 'Write', tool_input: { file_path: 'a' } }));
    expect(write).toMatchObject({ status: 'success', effects: {} });
  });

  it('speaks the protocol to a plain vscode-jsonrpc client and counts observed events', async () => {
    const child = spawn(process.execPath, [EXAMPLE], { stdio: ['pipe', 'pipe', 'pipe'] });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    connection.listen();
    try {
      const caps = await connection.sendRequest('initialize', {
        protocolVersion: 1,
        client: { name: 'hookpilot', version: '0.0.0' },
        projectDir,
      });
      expect(caps).toMatchObject({ name: 'rpc-policy-server', intercept: ['PreToolUse', 'PermissionRequest'] });
      await connection.sendNotification('initialized');
      for (const event of ['PostToolUse', 'PostToolUse', 'TurnStart'] as const)
        await connection.sendNotification('hook/observe', { event, payload: payload(event) });
      const answer = await connection.sendRequest('hook/intercept', { event: 'PreToolUse', payload: bash('git push --force') });
      expect(hookInterceptResultSchema.parse(answer)?.hookSpecificOutput?.permissionDecision).toBe('deny');
      expect(await connection.sendRequest('policy/stats')).toEqual({ observed: { PostToolUse: 2, TurnStart: 1 }, denied: 1, approved: 0 });
      expect(await connection.sendRequest('shutdown')).toBeNull();
      const exited = new Promise((r) => child.once('exit', r));
      await connection.sendNotification('exit');
      expect(await exited).toBe(0);
    } finally {
      connection.dispose();
      child.kill();
    }
  });
});
