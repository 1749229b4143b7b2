import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadMcpDocument } from '../../src/core/mcp/mcp-config';
import { McpManager } from '../../src/core/mcp/mcp-manager';
import { makeWorkspace } from '../support/workspace';

// A stdio server whose helper runs in a session of its own and holds the server's stdout (a
// daemon, a browser, `setsid`): the pipe never closes while the helper lives, so the connection
// must end at the server's exit, for stop(), a crash mid-call and the server's last answer.

const FIXTURE = path.resolve(__dirname, '../fixtures/mcp/detached-child-server.mjs');
const GROUPED = path.resolve(__dirname, '../fixtures/mcp/group-helper-server.mjs');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function managerFor(env: Record<string, string> = {}, fixture = FIXTURE) {
  const ws = makeWorkspace();
  const pidFile = path.join(ws.dir, 'helper.pid');
  const manager = new McpManager({ workspaceFolder: ws.dir, env: process.env, log: () => undefined, callTimeoutMs: 60_000 });
  cleanups.push(
    () => ws.cleanup(),
    () => {
      // Only the helper this test's server started, by its pid.
      if (!existsSync(pidFile)) return;
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      } catch {
        // Gone already.
      }
    },
    () => manager.stop(),
  );
  const config = loadMcpDocument(
    JSON.stringify({ mcpServers: { d: { command: process.execPath, args: [fixture], env: { HELPER_PID_FILE: pidFile, ...env } } } }),
    { kind: 'cli', file: path.join(ws.dir, 'mcp.json') },
  );
  return { manager, config, pidFile };
}

/** The call's outcome once it settles: `answered: <text>` or `failed: <message>`. */
function outcomeOf(manager: McpManager, tool: string): () => string | undefined {
  let outcome: string | undefined;
  manager.callTool('d', tool, {}, new AbortController().signal).then(
    (result) => (outcome = `answered: ${result.content.map((c) => (c.type === 'text' ? c.text : c.type)).join('')}`),
    (error: Error) => (outcome = `failed: ${error.message}`),
  );
  return () => outcome;
}

describe('a stdio server whose helper holds its stdout from a session of its own', () => {
  it('stop() returns once the server process is gone, though the helper lives on', async () => {
    const { manager, config, pidFile } = managerFor();
    await manager.start([config]);
    expect(manager.statuses()[0].state).toBe('connected');
    expect(existsSync(pidFile)).toBe(true);
    let stopped = false;
    void manager.stop().then(() => (stopped = true));
    await vi.waitFor(() => expect(stopped).toBe(true), { timeout: 10_000, interval: 50 });
  });

  it.each([
    ['with the helper', {}],
    ['without a helper', { NO_HELPER: '1' }],
  ])('%s, a crash mid-call fails the call at once saying the server exited, not at the call timeout', async (_, env) => {
    const { manager, config } = managerFor(env);
    await manager.start([config]);
    const outcome = outcomeOf(manager, 'crash');
    // The call timeout is 60 s: an outcome within 10 s is the exit noticed.
    await vi.waitFor(() => expect(outcome()).toBeDefined(), { timeout: 10_000, interval: 50 });
    expect(outcome()).toMatch(/^failed: .*the server exited with code 7 before answering/);
    await vi.waitFor(() => expect(manager.statuses()[0].state).toBe('failed'));
    expect(manager.statuses()[0].error).toMatch(/the server closed the connection/);
  });

  it('an answer written just before the server exits still reaches the call', async () => {
    const { manager, config } = managerFor();
    await manager.start([config]);
    const outcome = outcomeOf(manager, 'last');
    await vi.waitFor(() => expect(outcome()).toBeDefined(), { timeout: 10_000, interval: 50 });
    expect(outcome()).toBe('answered: last words');
    await vi.waitFor(() => expect(manager.statuses()[0].state).toBe('failed'));
  });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("a stdio server that exits while a helper of its own process group holds its pipes (npx's node, a shell wrapper's server)", () => {
  it('the helper goes with the server: its group is killed at the exit, with no stop() needed', async () => {
    const { manager, config, pidFile } = managerFor({}, GROUPED);
    await manager.start([config]);
    expect(manager.statuses()[0].state).toBe('connected');
    const helper = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(helper)).toBe(true);
    await manager.callTool('d', 'crash', {}, new AbortController().signal).catch(() => undefined);
    await vi.waitFor(() => expect(manager.statuses()[0].state).toBe('failed'));
    await vi.waitFor(() => expect(alive(helper)).toBe(false), { timeout: 5_000, interval: 50 });
  });
});
