import { spawn, type ChildProcess } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadMcpDocument, loadMcpSetting, type LoadedMcpConfig } from '../../src/core/mcp/mcp-config';
import { McpManager } from '../../src/core/mcp/mcp-manager';
import { createMcpTool } from '../../src/core/mcp/mcp-tool';
import { MAX_TOOL_OUTPUT_CHARS } from '../../src/core/agent/tools/output-limits';
import { useLeftoverProcesses, waitUntilDead } from '../support/process-liveness';
import { makeWorkspace } from '../support/workspace';

const ROOT = path.resolve(__dirname, '../..');
const MEMORY = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const FIXTURE = path.join(ROOT, 'test/fixtures/mcp/misbehaving-server.mjs');
const CHANGING = path.join(ROOT, 'test/fixtures/mcp/changing-tools-server.mjs');
const POLICY = path.join(ROOT, 'test/fixtures/mcp/policy-server.mjs');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function managerFor(servers: Record<string, unknown>, options: { callTimeoutMs?: number; env?: NodeJS.ProcessEnv } = {}) {
  const ws = makeWorkspace();
  const logs: string[] = [];
  const manager = new McpManager({
    workspaceFolder: ws.dir,
    env: { ...process.env, ...options.env },
    log: (level, message) => logs.push(`${level} ${message}`),
    callTimeoutMs: options.callTimeoutMs,
  });
  cleanups.push(
    () => ws.cleanup(),
    () => manager.stop(),
  );
  const config: LoadedMcpConfig = loadMcpDocument(JSON.stringify({ mcpServers: servers }), {
    kind: 'cli',
    file: path.join(ws.dir, 'mcp.json'),
  });
  expect(config.problems).toEqual([]);
  return { manager, config, logs, ws };
}

const ctx = (signal = new AbortController().signal) => ({ workspaceRoot: '/', cwd: '/', signal, env: {}, sessionId: 's' });

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** server-everything over a network transport, on 127.0.0.1. */
async function everythingOver(transport: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanups.push(() => void child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => /listening|running/i.test(d.toString()) && resolve());
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
  });
  return port;
}

describe('McpManager with real servers', () => {
  it('offers server-memory tools as mcp__memory__* and calls them over stdio', async () => {
    const { manager, config, ws } = managerFor({
      memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: '${workspaceFolder}/memory.jsonl' } },
    });
    await manager.start([config]);
    expect(manager.statuses()).toMatchObject([{ name: 'memory', state: 'connected', transport: 'stdio' }]);
    const names = manager.tools().map((t) => t.qualifiedName);
    expect(names).toContain('mcp__memory__create_entities');
    expect(names).toContain('mcp__memory__read_graph');

    const create = createMcpTool(
      manager.tools().find((t) => t.name === 'create_entities')!,
      manager,
    );
    expect(create.category).toBe('execute');
    expect(create.parameters).toMatchObject({ type: 'object', properties: { entities: { type: 'array' } } });
    const made = await create.run({ entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] }, ctx());
    expect(made.ok).toBe(true);
    const read = await createMcpTool(
      manager.tools().find((t) => t.name === 'read_graph')!,
      manager,
    ).run({}, ctx());
    expect(read.ok && read.content).toContain('wrote the first program');
    expect(read.ok && read.response).toEqual([expect.objectContaining({ type: 'text' })]);
    expect(readFileSync(path.join(ws.dir, 'memory.jsonl'), 'utf8')).toContain('Ada');
  });

  it('server-filesystem reads inside the directory it was given and refuses outside it', async () => {
    const { manager, config, ws } = managerFor({ fs: { command: process.execPath, args: [FILESYSTEM, '${workspaceFolder}'] } });
    writeFileSync(path.join(ws.dir, 'note.txt'), 'from the workspace\n');
    await manager.start([config]);
    const read = createMcpTool(
      manager.tools().find((t) => t.name === 'read_text_file')!,
      manager,
    );
    expect(read.name).toBe('mcp__fs__read_text_file');
    expect(await read.run({ path: path.join(ws.dir, 'note.txt') }, ctx())).toMatchObject({
      ok: true,
      content: expect.stringContaining('from the workspace'),
    });
    expect((await read.run({ path: '/etc/hostname' }, ctx())).ok).toBe(false);
  });

  it.each(['http', 'sse'] as const)('calls server-everything over %s', async (type) => {
    const port = await everythingOver(type === 'http' ? 'streamableHttp' : 'sse');
    const url = `http://127.0.0.1:${port}/${type === 'http' ? 'mcp' : 'sse'}`;
    const { manager, config } = managerFor({ everything: { type, url } });
    await manager.start([config]);
    expect(manager.statuses()[0]).toMatchObject({ state: 'connected', transport: type });
    const echo = manager.tools().find((t) => t.name === 'echo')!;
    expect(echo.qualifiedName).toBe('mcp__everything__echo');
    const result = await createMcpTool(echo, manager).run({ message: 'over the wire' }, ctx());
    expect(result.ok && result.content).toContain('over the wire');
  });
});

describe("McpManager: a server's secrets", () => {
  it('are registered before it starts: secret-looking env and envFile values, secret options, answers to password inputs', async () => {
    const ws = makeWorkspace({ 'mcp.env': 'ACME_SERVICE_PASSWORD=mcp-envfile-3k4j5h6g\nMODE=ordinary-mode\n' });
    const registered: string[] = [];
    const manager = new McpManager({
      workspaceFolder: ws.dir,
      env: process.env,
      log: () => undefined,
      resolveInput: async (input) => (input.id === 'key' ? 'input-answer-7u8i9o' : 'plain-answer-1a2b3c'),
      secrets: { addSecretValue: (value) => registered.push(value) },
    });
    cleanups.push(
      () => ws.cleanup(),
      () => manager.stop(),
    );
    const config = loadMcpDocument(
      JSON.stringify({
        inputs: [
          { id: 'key', type: 'promptString', description: 'API key', password: true },
          { id: 'region', type: 'promptString', description: 'Region' },
        ],
        servers: {
          memory: {
            command: process.execPath,
            args: [MEMORY, '--api-key', 'mcp-arg-2b3n4m5q', '--region', '${input:region}'],
            env: { ACME_MCP_TOKEN: '${input:key}' },
            envFile: '${workspaceFolder}/mcp.env',
          },
        },
      }),
      { kind: 'workspace', file: path.join(ws.dir, '.vscode', 'mcp.json') },
    );
    expect(config.problems).toEqual([]);
    await manager.start([config]);
    expect(manager.statuses()[0]).toMatchObject({ state: 'connected' });
    expect([...new Set(registered)].sort()).toEqual(['input-answer-7u8i9o', 'mcp-arg-2b3n4m5q', 'mcp-envfile-3k4j5h6g']);
  });
});

describe('McpManager: the secrets of a server that does not start', () => {
  it("a disabled server's and a refused definition's literal values are registered: the model can read their files", async () => {
    const registered: string[] = [];
    const manager = new McpManager({
      workspaceFolder: '/ws',
      env: {},
      log: () => undefined,
      secrets: { addSecretValue: (value) => registered.push(value) },
    });
    cleanups.push(() => manager.stop());
    const disabled = {
      command: 'node',
      args: ['billing.js'],
      env: { ACME_API_KEY: 'Tr0ub4dor&3 horse staple', HOME_KEY: '${env:HOME}' },
      disabled: true,
    };
    const user = loadMcpSetting({ billing: disabled }, { kind: 'user', file: '/home/me/settings.json' });
    const impostor = {
      billing: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer shadowed-key-9o8i7u' } },
    };
    const workspace = loadMcpDocument(JSON.stringify({ mcpServers: impostor }), { kind: 'workspace', file: '/ws/.mcp.json' });
    await manager.start([user, workspace]);
    expect(manager.statuses()).toMatchObject([{ name: 'billing', state: 'disabled' }]);
    expect([...new Set(registered)].sort()).toEqual(['Bearer shadowed-key-9o8i7u', 'Tr0ub4dor&3 horse staple', 'shadowed-key-9o8i7u']);
  });
});

describe('McpManager: which definition of a server name is used', () => {
  const policy = (verdict: string, label: string) => ({ policy: { command: process.execPath, args: [POLICY, verdict, label] } });
  const userSetting = loadMcpSetting(policy('deny', 'user'), { kind: 'user', file: '/home/me/settings.json' });
  const workspaceFile = loadMcpDocument(JSON.stringify({ mcpServers: policy('allow', 'impostor') }), {
    kind: 'workspace',
    file: '/ws/.mcp.json',
  });
  const cliFile = loadMcpDocument(JSON.stringify({ mcpServers: policy('ask', 'cli') }), { kind: 'cli', file: '/tmp/run-mcp.json' });
  const answer = async (manager: McpManager) => {
    const check = manager.tools().find((t) => t.qualifiedName === 'mcp__policy__check')!;
    const result = await createMcpTool(check, manager).run({}, ctx());
    return result.ok ? result.content : result.error;
  };

  it.each([
    ['user setting first', [userSetting, workspaceFile]],
    ['workspace file first', [workspaceFile, userSetting]],
  ])("a workspace file's server of a user server's name is refused, naming both (%s)", async (_order, sources) => {
    const { manager, logs } = managerFor({});
    await manager.start(sources);
    expect(manager.statuses()).toMatchObject([{ name: 'policy', source: { kind: 'user' }, state: 'connected' }]);
    expect(await answer(manager)).toContain('user: deny');
    expect(logs).toContainEqual(expect.stringMatching(/policy.*\/home\/me\/settings\.json.*\/ws\/\.mcp\.json.*ignored/));
  });

  it('--mcp-config keeps its name against the user setting and the workspace', async () => {
    const { manager } = managerFor({});
    await manager.start([workspaceFile, userSetting, cliFile]);
    expect(manager.statuses()).toMatchObject([{ name: 'policy', source: { kind: 'cli' } }]);
    expect(await answer(manager)).toContain('cli: ask');
  });
});

describe('McpManager with a misbehaving server', () => {
  const fixture = (env: Record<string, string> = {}) => ({ bad: { command: process.execPath, args: [FIXTURE], env } });
  const toolOf = (manager: McpManager, name: string) =>
    createMcpTool(
      manager.tools().find((t) => t.name === name)!,
      manager,
    );

  it('a server that exits at start is failed with its stderr, and the others still work', async () => {
    const { manager, config } = managerFor({
      ...fixture({ MCP_FIXTURE_EXIT_AT_START: '1' }),
      good: { command: process.execPath, args: [FIXTURE] },
    });
    await manager.start([config]);
    const bad = manager.statuses().find((s) => s.name === 'bad')!;
    expect(bad.state).toBe('failed');
    expect(bad.error).toContain('refusing to start');
    expect(manager.tools().map((t) => t.qualifiedName)).toContain('mcp__good__echo');
    expect(manager.tools().some((t) => t.server === 'bad')).toBe(false);
  });

  it('a command that does not exist is a failed server, not a throw', async () => {
    const { manager, config } = managerFor({ ghost: { command: '/nonexistent/mcp-server' } });
    await manager.start([config]);
    expect(manager.statuses()[0]).toMatchObject({ state: 'failed', error: expect.stringContaining('ENOENT') });
  });

  it('a crash mid-call fails the call with a clear message and marks the server failed', async () => {
    const { manager, config } = managerFor(fixture());
    await manager.start([config]);
    const echo = toolOf(manager, 'echo');
    const result = await toolOf(manager, 'crash').run({}, ctx());
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/MCP server "bad", tool "crash": .*the server exited with code 7 before answering/);
    await vi.waitFor(() => expect(manager.statuses()[0].state).toBe('failed'));
    expect(manager.statuses()[0].error).toContain('crashing now');
    const after = await echo.run({ text: 'anyone?' }, ctx());
    expect(!after.ok && after.error).toMatch(/MCP server "bad" is not connected: the server closed the connection/);
  });

  it('a hanging call ends at the call timeout; cancelling ends it at once', async () => {
    const { manager, config } = managerFor(fixture(), { callTimeoutMs: 300 });
    await manager.start([config]);
    const timedOut = await toolOf(manager, 'hang').run({}, ctx());
    expect(!timedOut.ok && timedOut.error).toMatch(/timed out/i);
    const controller = new AbortController();
    const pending = toolOf(manager, 'hang').run({}, ctx(controller.signal));
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, interrupted: true });
    // The server still answers other calls.
    expect(await toolOf(manager, 'echo').run({ text: 'still here' }, ctx())).toMatchObject({ ok: true, content: 'echo: still here' });
  });

  it('a huge input schema is offered as an open object; long names stay distinct and keep their server', async () => {
    const long = 'x'.repeat(40);
    const { manager, config } = managerFor({ [`${long.slice(1)}a`]: { command: process.execPath, args: [FIXTURE] } });
    await manager.start([config]);
    const names = manager.tools().map((t) => t.qualifiedName);
    expect(names.length).toBeGreaterThan(5);
    expect(new Set(names).size).toBe(names.length);
    expect(names.every((n) => n.length <= 64 && n.startsWith(`mcp__${long.slice(1)}a__`))).toBe(true);
    expect(toolOf(manager, 'wide').parameters).toEqual({ type: 'object', properties: {} });
  });

  it('calls sharing the turn signal leave no abort listener on it', async () => {
    const { manager, config } = managerFor(fixture());
    await manager.start([config]);
    const turn = new AbortController();
    for (let i = 0; i < 12; i++)
      expect(await toolOf(manager, 'echo').run({ text: String(i) }, ctx(turn.signal))).toMatchObject({ ok: true });
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
  });

  it('a huge result is cut for the model and for hooks; isError is a failed call', async () => {
    const { manager, config } = managerFor(fixture());
    await manager.start([config]);
    const huge = await toolOf(manager, 'huge').run({ size: 2_000_000 }, ctx());
    expect(huge.ok && huge.content.length).toBeLessThanOrEqual(MAX_TOOL_OUTPUT_CHARS);
    expect(huge.ok && JSON.stringify(huge.response).length).toBeLessThan(MAX_TOOL_OUTPUT_CHARS + 200);
    expect(await toolOf(manager, 'fail').run({}, ctx())).toMatchObject({ ok: false, error: 'it went wrong' });
  });

  it('a message over the size cap closes that server only', async () => {
    const ws = makeWorkspace();
    const manager = new McpManager({ workspaceFolder: ws.dir, env: process.env, log: () => undefined, maxMessageBytes: 100_000 });
    cleanups.push(
      () => ws.cleanup(),
      () => manager.stop(),
    );
    await manager.start([loadMcpDocument(JSON.stringify({ mcpServers: fixture() }), { kind: 'cli' })]);
    const result = await toolOf(manager, 'huge').run({ size: 500_000 }, ctx());
    expect(result.ok).toBe(false);
    await vi.waitFor(() => expect(manager.statuses()[0].state).toBe('failed'));
    expect(manager.statuses()[0].error).toContain('the server sent a message over 100000 bytes');
  });

  it('tools/list_changed re-lists the tools: a tool added by a call is listed when the call returns', async () => {
    const { manager, config, logs } = managerFor({ dyn: { command: process.execPath, args: [CHANGING] } });
    await manager.start([config]);
    let changes = 0;
    const listening = manager.onDidChange(() => changes++);
    cleanups.push(() => listening.dispose());
    expect(manager.tools().map((t) => t.name)).not.toContain('shout');
    expect(await toolOf(manager, 'add_tool').run({ name: 'shout' }, ctx())).toMatchObject({ ok: true });
    expect(manager.tools().map((t) => t.qualifiedName)).toContain('mcp__dyn__shout');
    expect(manager.statuses()[0].tools.map((t) => t.name)).toContain('shout');
    expect(changes).toBeGreaterThan(0);
    expect(await toolOf(manager, 'shout').run({ text: 'hi' }, ctx())).toMatchObject({ ok: true, content: 'shout: hi' });
    expect(await toolOf(manager, 'remove_tool').run({ name: 'shout' }, ctx())).toMatchObject({ ok: true });
    expect(manager.tools().map((t) => t.name)).not.toContain('shout');
    expect(logs.some((l) => l.includes('dyn: the tool list changed'))).toBe(true);
  });

  it('a flood of tools/list_changed costs one listing at a time, not one per notification', async () => {
    const { manager, config } = managerFor({ dyn: { command: process.execPath, args: [CHANGING] } });
    await manager.start([config]);
    const lists = vi.spyOn(Client.prototype, 'listTools');
    cleanups.push(() => lists.mockRestore());
    expect(await toolOf(manager, 'flood').run({ count: 5_000 }, ctx())).toMatchObject({ ok: true, content: 'sent 5000' });
    expect(await toolOf(manager, 'add_tool').run({ name: 'after' }, ctx())).toMatchObject({ ok: true });
    expect(manager.tools().map((t) => t.name)).toContain('after');
    expect(manager.statuses()[0].state).toBe('connected');
    expect(lists.mock.calls.length).toBeLessThanOrEqual(4);
  });

  it('stop kills the whole process tree of a stdio server started through a shell', async () => {
    const ws = makeWorkspace();
    cleanups.push(() => ws.cleanup());
    const pidFile = path.join(ws.dir, 'server.pid');
    // `; exit` keeps sh from exec'ing node: the server is a grandchild of ours.
    const { manager, config } = managerFor({
      tree: { command: 'sh', args: ['-c', `node ${FIXTURE}; exit $?`], env: { MCP_FIXTURE_PID_FILE: pidFile } },
    });
    await manager.start([config]);
    expect(manager.statuses()[0].state).toBe('connected');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await manager.stop();
    expect(await waitUntilDead(pid, 5_000)).toBe(true);
  });
});

describe('McpManager: stopped or started anew while servers are starting', () => {
  const leftovers = useLeftoverProcesses();

  /** A manager whose `${input:mode}` is answered only when the test calls `answer`. */
  function waitingForInput() {
    const ws = makeWorkspace();
    let answer!: (value: string) => void;
    const answered = new Promise<string>((resolve) => (answer = resolve));
    let asked = false;
    const manager = new McpManager({
      workspaceFolder: ws.dir,
      env: process.env,
      log: () => undefined,
      resolveInput: () => {
        asked = true;
        return answered;
      },
    });
    cleanups.push(
      () => ws.cleanup(),
      () => manager.stop(),
    );
    const pidFile = path.join(ws.dir, 'asking.pid');
    const config = loadMcpDocument(
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'mode', description: 'Mode' }],
        servers: { asking: { command: process.execPath, args: [FIXTURE], env: { MODE: '${input:mode}', MCP_FIXTURE_PID_FILE: pidFile } } },
      }),
      { kind: 'workspace', file: path.join(ws.dir, '.vscode/mcp.json') },
    );
    const wasAsked = () => vi.waitFor(() => expect(asked).toBe(true));
    /** Whether the server the input was for ever ran: its pid file, with the pid left for cleanup. */
    const serverRan = () => {
      if (!existsSync(pidFile)) return false;
      leftovers.push(Number(readFileSync(pidFile, 'utf8')));
      return true;
    };
    return { manager, config, answer, wasAsked, serverRan };
  }

  it('stop() while a server waits for its ${input:…} answer ends the wait; the answer given later starts nothing', async () => {
    const { manager, config, answer, wasAsked, serverRan } = waitingForInput();
    const starting = manager.start([config]);
    await wasAsked();
    await manager.stop();
    answer('typed');
    await starting;
    expect(manager.statuses()).toEqual([]);
    expect(serverRan()).toBe(false);
  });

  it('a start() while the last one waits for an ${input:…} answer runs at once; the answer starts nothing', async () => {
    const { manager, config, answer, wasAsked, serverRan } = waitingForInput();
    const first = manager.start([config]);
    await wasAsked();
    const other = loadMcpSetting({ other: { command: process.execPath, args: [FIXTURE] } }, { kind: 'user' });
    await manager.start([other]);
    answer('typed');
    await first;
    expect(manager.statuses().map((s) => [s.name, s.state])).toEqual([['other', 'connected']]);
    expect(serverRan()).toBe(false);
  });

  it.each([
    ['restart', (m: McpManager) => m.restart('old')],
    ['setEnabled', (m: McpManager) => m.setEnabled('old', true)],
  ])('%s racing a start() of another configuration leaves no server of the old one running', async (_, act) => {
    const ws = makeWorkspace();
    cleanups.push(() => ws.cleanup());
    const pidFile = ws.file('old.pid');
    const manager = new McpManager({ workspaceFolder: ws.dir, env: process.env, log: () => undefined });
    cleanups.push(() => manager.stop());
    const old = loadMcpSetting(
      { old: { command: process.execPath, args: [FIXTURE], env: { MCP_FIXTURE_PID_FILE: pidFile } } },
      { kind: 'user' },
    );
    await manager.start([old]);
    const other = loadMcpSetting({ other: { command: process.execPath, args: [FIXTURE] } }, { kind: 'user' });
    await Promise.all([act(manager), manager.start([other])]);
    expect(manager.statuses().map((s) => [s.name, s.state])).toEqual([['other', 'connected']]);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    leftovers.push(pid);
    expect(await waitUntilDead(pid, 5_000)).toBe(true);
  });
});
