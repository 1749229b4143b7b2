import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookEngine } from '../../src/core/engine/hook-engine';
import { loadHooksDocument, loadHooksValue } from '../../src/core/hooks/config/config-loader';
import { toolPayload } from '../support/hook-fixtures';

// A trusted workspace's defaults, allowlists and built-in switches reach its own hooks only:
// the engine as the hosts build it, the user's hooks beside the workspace's.

let server: http.Server;
let base: string;
const seen: Array<{ url: string; token: string | undefined }> = [];
const cleanups: Array<() => Promise<void>> = [];

beforeEach(async () => {
  seen.length = 0;
  server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', token: req.headers['x-token'] as string | undefined });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function engineIn(): { engine: HookEngine; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-scope-'));
  const engine = new HookEngine({
    projectDir: dir,
    storageDir: path.join(dir, '.storage'),
    trusted: true,
    startProcesses: false,
    env: { ...process.env, GUARD_TOKEN: 'user-secret' },
  });
  cleanups.push(async () => {
    await engine.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return { engine, dir };
}

const httpGuard = (url: string, name: string) => ({
  hooks: {
    PreToolUse: [{ type: 'http', url, name, headers: { 'x-token': '$GUARD_TOKEN' }, allowedEnvVars: ['GUARD_TOKEN'], onFailure: 'block' }],
  },
});

describe("a trusted workspace's configuration and the user's hooks", () => {
  it("the workspace's allowlists do not stop or starve the user's http guard; they bound the workspace's own", async () => {
    const { engine, dir } = engineIn();
    const user = loadHooksValue(httpGuard(`${base}/user`, 'user-guard'), { kind: 'user' });
    const workspace = loadHooksDocument(
      JSON.stringify({ ...httpGuard(`${base}/ws`, 'ws-guard'), allowedHttpHookUrls: [], httpHookAllowedEnvVars: [] }),
      { kind: 'hooksJson', file: path.join(dir, '.vscode', 'hooks.json') },
    );
    await engine.reload([user, workspace]);
    const r = await engine.dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'echo pwned > pwned.txt' }));
    expect(seen).toEqual([{ url: '/user', token: 'user-secret' }]);
    expect(r.decision).toBe('deny');
    const byName = Object.fromEntries(r.runs.map((run) => [run.hookName, run]));
    expect(byName['user-guard']).toMatchObject({ status: 'success', decision: 'deny' });
    expect(byName['ws-guard']).toMatchObject({ status: 'error', error: expect.stringContaining("workspace's allowedHttpHookUrls") });
    expect(engine.problems.filter((p) => p.code === 'workspace-only').map((p) => p.path)).toEqual([
      'allowedHttpHookUrls',
      'httpHookAllowedEnvVars',
    ]);
  });

  it("the workspace's defaults time only its own hooks, and its builtins cannot turn Cancellation or AuditLog off", async () => {
    const { engine, dir } = engineIn();
    const guard = (command: string) => ({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } });
    const user = loadHooksValue(guard('node user-guard.js'), { kind: 'user' });
    const workspace = loadHooksDocument(
      JSON.stringify({
        ...guard('node ws-guard.js'),
        defaults: { commandTimeoutMs: 1, interceptorTimeoutMs: 1, observerTimeoutMs: 1 },
        builtins: { Cancellation: false, AuditLog: false },
      }),
      { kind: 'hooksJson', file: path.join(dir, '.vscode', 'hooks.json') },
    );
    await engine.reload([user, workspace]);
    const states = engine.registry.current().states;
    const hook = (command: string) => states.find((s) => s.hook.spec.type === 'command' && s.hook.spec.command === command)!.hook;
    expect(engine.dispatcher.timeoutFor(hook('node user-guard.js'))).toBe(600_000);
    expect(engine.dispatcher.timeoutFor(hook('node ws-guard.js'))).toBe(1);
    const builtins = states.filter((s) => s.hook.source.kind === 'builtin');
    const cancellation = builtins.find((s) => s.hook.name === 'Cancellation')!;
    expect(cancellation.active).toBe(true);
    expect(engine.dispatcher.timeoutFor(cancellation.hook)).toBe(5_000);
    expect(builtins.filter((s) => s.hook.name === 'AuditLog').every((s) => s.active)).toBe(true);
    expect(engine.problems.filter((p) => p.code === 'workspace-only').map((p) => p.path)).toEqual([
      'builtins.Cancellation',
      'builtins.AuditLog',
      'defaults.commandTimeoutMs',
      'defaults.interceptorTimeoutMs',
      'defaults.observerTimeoutMs',
    ]);
  });
});

describe("the person's settings and the managed policy's locked hooks", () => {
  const policy = { kind: 'managed', file: '/etc/hookpilot/managed-settings.json' } as const;
  /** As an administrator writes it: no onFailure, so a failure lets the call through (Claude Code's default). */
  const policyHttpGuard = (url: string) => {
    const { onFailure: _failOpen, ...guard } = httpGuard(url, 'policy-guard').hooks.PreToolUse[0];
    return loadHooksDocument(JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [guard] }] } }), policy);
  };

  it("the person's allowlists neither stop the policy's http guard nor strip its credential", async () => {
    const { engine } = engineIn();
    const user = loadHooksValue({ allowedHttpHookUrls: ['https://hooks.example.com/*'], httpHookAllowedEnvVars: [] }, { kind: 'user' });
    await engine.reload([policyHttpGuard(`${base}/policy`), user]);
    const r = await engine.dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'echo pwned > pwned.txt' }));
    expect(seen).toEqual([{ url: '/policy', token: 'user-secret' }]);
    expect(r.decision).toBe('deny');
  });

  it("the person's defaults do not time the policy's guard out: it keeps Hookpilot's", async () => {
    const { engine } = engineIn();
    const managed = loadHooksDocument(
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node policy-guard.js' }] }] } }),
      policy,
    );
    await engine.reload([managed, loadHooksValue({ defaults: { commandTimeoutMs: 1, interceptorTimeoutMs: 1 } }, { kind: 'user' })]);
    const hook = engine.registry.current().states.find((s) => s.hook.source.kind === 'managed')!.hook;
    expect(engine.dispatcher.timeoutFor(hook)).toBe(600_000);
  });
});
