import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HookEngine } from '../../src/core/engine/hook-engine';
import { loadWorkspaceConfigs } from '../../src/core/hooks/config/workspace-config-files';
import type { DispatchResult } from '../../src/core/hooks/dispatch-result';
import type { HookPayload } from '../../src/core/hooks/types';
import { toolPayload } from '../support/hook-fixtures';
import { hooksJson, makeWorkspace } from '../support/workspace';

// An rpc guard whose config lists no intercept events is there before its handshake: its
// hooks wait for the server, and a server that never answers fails them by their onFailure.

const UNRULY = path.resolve(__dirname, '../fixtures/rpc/unruly-server.js');

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

interface ServerOptions {
  handshake?: 'now' | 'release' | 'never';
  caps?: Record<string, unknown>;
  config?: Record<string, unknown>;
  hooks?: Record<string, unknown>;
  command?: string[];
}

/** A workspace whose hooks.json declares the unruly server as `policy`, and an engine on it. */
async function engineWith(options: ServerOptions) {
  const ws = makeWorkspace({
    '.vscode/hooks.json': hooksJson(options.hooks ?? {}, {
      servers: {
        policy: {
          command: options.command ?? ['node', UNRULY, `--handshake=${options.handshake ?? 'now'}`],
          env: {
            FIXTURE_RELEASE: '${CLAUDE_PROJECT_DIR}/release',
            FIXTURE_LOG: '${CLAUDE_PROJECT_DIR}/events.log',
            FIXTURE_CAPS: JSON.stringify(options.caps ?? { name: 'policy' }),
          },
          ...options.config,
        },
      },
    }),
  });
  cleanups.push(ws.cleanup);
  const storage = mkdtempSync(path.join(tmpdir(), 'hookpilot-provisional-'));
  const logs: string[] = [];
  const engine = new HookEngine({ projectDir: ws.dir, storageDir: storage, trusted: true, log: (level, m) => logs.push(`${level}: ${m}`) });
  cleanups.push(async () => {
    await engine.dispose();
    rmSync(storage, { recursive: true, force: true });
  });
  await engine.reload(loadWorkspaceConfigs(ws.dir));
  const events = () => (existsSync(ws.file('events.log')) ? readFileSync(ws.file('events.log'), 'utf8').trim().split('\n') : []);
  const release = () => writeFileSync(ws.file('release'), '');
  const spec = (id: string) => engine.registry.current().find(id)?.hook.spec;
  return { ws, engine, logs, events, release, spec };
}

const bash = (command: string, cwd: string): HookPayload => toolPayload('PreToolUse', 'Bash', { command }, { cwd });
const rpcRuns = (result: DispatchResult) => result.runs.filter((r) => r.handler === 'rpc').map((r) => [r.hookId, r.status]);

describe('rpc hooks before the handshake', () => {
  it('a PreToolUse sent before a late handshake waits for it and gets the server’s deny; the hooks are then rebuilt from it', async () => {
    const { ws, engine, release, spec } = await engineWith({
      handshake: 'release',
      caps: { name: 'policy', intercept: ['PreToolUse'], observe: ['PostToolUse'] },
      config: { onFailure: 'block', timeout_ms: 20_000 },
    });
    expect(engine.rpcPool.status('policy')?.state).toBe('starting');
    expect(spec('rpc:policy:PreToolUse')).toEqual({ type: 'rpc', server: 'policy', mode: 'intercept', provisional: true });

    const pending = engine.dispatcher.dispatch(bash('touch marker', ws.dir));
    release();
    expect(await pending).toMatchObject({ blocked: true, decision: 'deny', blockReason: 'denied by unruly' });

    // The pool's change event rebuilt the hooks from the handshake's lists.
    expect(spec('rpc:policy:PreToolUse')).toEqual({ type: 'rpc', server: 'policy', mode: 'intercept' });
    expect(spec('rpc:policy:PostToolUse')).toEqual({ type: 'rpc', server: 'policy', mode: 'observe' });
    expect(spec('rpc:policy:Stop')).toBeUndefined();
  });

  it('a provisional hook notifies an event the handshake only observes, and sends nothing for one it does not take', async () => {
    const { ws, engine, events, release } = await engineWith({
      handshake: 'release',
      caps: { name: 'policy', intercept: ['PreToolUse'], observe: ['PostToolUse'] },
      config: { timeout_ms: 20_000 },
    });
    const post = engine.dispatcher.dispatch(toolPayload('PostToolUse', 'Bash', { command: 'ls' }, { cwd: ws.dir, tool_response: {} }));
    const stop = engine.dispatcher.dispatch({ ...toolPayload('PreToolUse', 'Bash', {}), hook_event_name: 'Stop', cwd: ws.dir });
    release();
    const [posted, stopped] = await Promise.all([post, stop]);
    expect(rpcRuns(posted)).toEqual([['rpc:policy:PostToolUse', 'success']]);
    expect(rpcRuns(stopped)).toEqual([['rpc:policy:Stop', 'success']]);
    // One pipe keeps the order: once the later request is seen, anything sent before it was too.
    await engine.dispatcher.dispatch(bash('ls', ws.dir));
    await vi.waitFor(() => expect(events()).toContain('intercept PreToolUse'));
    expect(events()).toEqual(['initialized', 'observe PostToolUse', 'intercept PreToolUse']);
  });

  it('a server that never answers its handshake blocks the call when onFailure is block', async () => {
    const { ws, engine } = await engineWith({ handshake: 'never', config: { onFailure: 'block', timeout_ms: 500 } });
    const result = await engine.dispatcher.dispatch(bash('touch marker', ws.dir));
    expect(result.blocked).toBe(true);
    expect(result.runs.filter((r) => r.handler === 'rpc')).toEqual([
      expect.objectContaining({ hookId: 'rpc:policy:PreToolUse', status: 'timeout', failedClosed: true }),
    ]);
  });

  it('a server that failed before any handshake keeps its provisional hooks, which block', async () => {
    const { ws, engine, spec } = await engineWith({
      command: ['hookpilot-no-such-command-xyz'],
      config: { onFailure: 'block' },
    });
    await vi.waitFor(() => expect(engine.rpcPool.status('policy')?.state).toBe('failed'));
    expect(spec('rpc:policy:PreToolUse')).toMatchObject({ provisional: true });
    const result = await engine.dispatcher.dispatch(bash('touch marker', ws.dir));
    expect(result.blocked).toBe(true);
    expect(result.blockReason).toMatch(/rpc server "policy" is failed \(rpc server "policy" could not start: .*ENOENT/);
  });

  it('a provisional hook of a server that is down fails open without onFailure: an observer does not deny every approval', async () => {
    const { ws, engine } = await engineWith({ command: ['hookpilot-no-such-command-xyz'], config: { observe: ['PostToolUse'] } });
    await vi.waitFor(() => expect(engine.rpcPool.status('policy')?.state).toBe('failed'));
    const payload = toolPayload('PermissionRequest', 'Bash', { command: 'touch first' }, { cwd: ws.dir });
    const result = await engine.dispatcher.dispatch(payload);
    expect(result.permission).toBeUndefined();
    expect(result.runs.filter((r) => r.handler === 'rpc')).toEqual([
      expect.objectContaining({ hookId: 'rpc:policy:PermissionRequest', status: 'error' }),
    ]);
  });
});

describe('rpc handshake lists', () => {
  it('a handshake that leaves out intercept keeps the config’s list: its deny applies', async () => {
    const { ws, engine, spec } = await engineWith({ caps: { name: 'policy' }, config: { intercept: ['PreToolUse'] } });
    await vi.waitFor(() => expect(engine.rpcPool.status('policy')?.state).toBe('ready'));
    expect(spec('rpc:policy:PreToolUse')).toEqual({ type: 'rpc', server: 'policy', mode: 'intercept' });
    expect(await engine.dispatcher.dispatch(bash('touch marker', ws.dir))).toMatchObject({ blocked: true, decision: 'deny' });
  });

  it('says which events the config lists that the handshake took away', async () => {
    const { engine, logs } = await engineWith({
      caps: { name: 'policy', intercept: ['Stop'], observe: ['PostToolUse'] },
      config: { intercept: ['PreToolUse', 'PostToolUse', 'Stop'] },
    });
    await vi.waitFor(() => expect(engine.rpcPool.status('policy')?.state).toBe('ready'));
    expect(logs).toContain('warn: rpc server "policy" does not take PreToolUse, which the config lists: those events are not sent to it');
    expect(logs).toContain(
      'warn: rpc server "policy" only observes PostToolUse, which the config lists to intercept: its answers to those events are not asked for',
    );
  });

  it('an rpc hook bound in hooks with a matcher sends its request whatever the handshake lists', async () => {
    const { ws, engine, events } = await engineWith({
      caps: { name: 'policy', intercept: ['Stop'] },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'rpc', server: 'policy' }] }] },
    });
    await vi.waitFor(() => expect(engine.rpcPool.status('policy')?.state).toBe('ready'));
    expect(await engine.dispatcher.dispatch(bash('touch marker', ws.dir))).toMatchObject({ blocked: true, decision: 'deny' });
    expect(events()).toEqual(['initialized', 'intercept PreToolUse']);
  });
});
