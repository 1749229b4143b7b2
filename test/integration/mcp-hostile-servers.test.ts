import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MAX_TOOL_OUTPUT_CHARS } from '../../src/core/agent/tools/output-limits';
import { MAX_RESULT_DEPTH } from '../../src/core/mcp/mcp-limits';
import { matchesValue } from '../../src/core/hooks/matcher';
import { GroupStdioTransport } from '../../src/core/mcp/group-stdio-transport';
import { loadMcpDocument } from '../../src/core/mcp/mcp-config';
import { McpManager, type McpManagerOptions } from '../../src/core/mcp/mcp-manager';
import { createMcpTool, currentMcpTools } from '../../src/core/mcp/mcp-tool';
import { MAX_DESCRIPTION_CHARS, MAX_LISTING_BYTES, MAX_SCHEMA_CHARS, MAX_SHOWN_NAME_CHARS } from '../../src/core/mcp/mcp-tool-listing';
import { makeWorkspace } from '../support/workspace';

// MCP servers that attack their host: each test runs a real server (a subprocess over stdio,
// or an HTTP server on 127.0.0.1) and checks that the host stays bounded and says why.

const FIXTURES = path.resolve(__dirname, '../fixtures/mcp');
const HOSTILE = path.join(FIXTURES, 'hostile-server.mjs');
const PING_FLOOD = path.join(FIXTURES, 'ping-flood-server.mjs');
const HTTP_FLOOD = path.join(FIXTURES, 'http-flood-server.mjs');
const BULKY = path.join(FIXTURES, 'bulky-tools-server.mjs');
const DEEP_RESULT = path.join(FIXTURES, 'deep-result-server.mjs');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Options = Partial<Omit<McpManagerOptions, 'workspaceFolder' | 'env' | 'log'>>;

function managerFor(servers: Record<string, unknown>, options: Options = {}) {
  const ws = makeWorkspace();
  const logs: Array<{ at: number; line: string }> = [];
  const manager = new McpManager({
    workspaceFolder: ws.dir,
    env: process.env,
    log: (level, message) => logs.push({ at: performance.now(), line: `${level} ${message}` }),
    ...options,
  });
  cleanups.push(
    () => ws.cleanup(),
    () => manager.stop(),
  );
  const config = loadMcpDocument(JSON.stringify({ mcpServers: servers }), { kind: 'cli', file: path.join(ws.dir, 'mcp.json') });
  expect(config.problems).toEqual([]);
  return { manager, config, logs: () => logs.map((l) => l.line), timedLogs: logs };
}

const hostile = (mode: string, env: Record<string, string> = {}) => ({
  evil: { command: process.execPath, args: [HOSTILE], env: { MODE: mode, ...env } },
});
const ctx = (signal = new AbortController().signal) => ({ workspaceRoot: '/', cwd: '/', signal, env: {}, sessionId: 's' });
const toolOf = (manager: McpManager, name: string) => {
  const info = manager.tools().find((t) => t.name === name);
  if (!info)
    throw new Error(
      `no tool ${name} in ${manager
        .tools()
        .map((t) => t.name)
        .join(', ')}`,
    );
  return createMcpTool(info, manager);
};

/** The HTTP flood fixture on 127.0.0.1; its port. */
async function httpFlood(env: Record<string, string>): Promise<number> {
  const child = spawn(process.execPath, [HTTP_FLOOD], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => void child.kill('SIGKILL'));
  return new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (code) => reject(new Error(`the flood server exited with ${code}`)));
  });
}

describe('a stdio server that does not read its stdin', () => {
  it('is closed with a clear error once the answers waiting for it pass the cap, instead of filling our memory', async () => {
    const { manager, config } = managerFor(
      { pings: { command: process.execPath, args: [PING_FLOOD], env: { COUNT: '200000' } } },
      { maxMessageBytes: 64 * 1024 },
    );
    await manager.start([config]);
    await vi.waitFor(() => expect(manager.statuses()[0].state).toBe('failed'), { timeout: 20_000, interval: 50 });
    expect(manager.statuses()[0].error).toMatch(/is not reading its stdin: over 65536 bytes of messages to it wait to be written/);
  });
});

describe('the stdio transport', () => {
  it('queues what a server does not read behind one drain listener, and closes the server past the cap', async () => {
    const transport = new GroupStdioTransport({
      command: process.execPath,
      args: ['-e', 'process.stdin.pause(); setInterval(() => {}, 1 << 30)'],
      env: process.env,
      cwd: process.cwd(),
      maxMessageBytes: 256 * 1024,
      maxPendingWriteBytes: 256 * 1024,
      onStderr: () => undefined,
    });
    let closed = false;
    transport.onclose = () => (closed = true);
    await transport.start();
    cleanups.push(() => transport.close());
    const stdin = (transport as unknown as { child: ChildProcess }).child.stdin!;
    const sends: Array<Promise<void>> = [];
    const note = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: 'x'.repeat(1024) } };
    for (let i = 0; i < 1000; i++) sends.push(transport.send(note));
    expect(stdin.listenerCount('drain')).toBeLessThanOrEqual(1);
    const outcomes = await Promise.allSettled(sends);
    expect(outcomes.filter((o) => o.status === 'rejected').length).toBeGreaterThan(0);
    expect(transport.failure).toMatch(/is not reading its stdin: over 262144 bytes of messages to it wait to be written/);
    await vi.waitFor(() => expect(closed).toBe(true));
  });
});

describe("a tool's outputSchema", () => {
  it("is not checked with the server's regexes: a result its backtracking pattern rejects comes through", async () => {
    // The SDK's default (Ajv) would run `^(a+)+$` on our thread (seconds for 27 a's and a `!`)
    // and then refuse this result, which the pattern does not match. A short one shows the check
    // is not run at all, without timing anything.
    const { manager, config } = managerFor(hostile('redos', { N: '3' }));
    await manager.start([config]);
    const result = await toolOf(manager, 'check').run({}, ctx());
    expect(result).toMatchObject({ ok: true, content: '{"a":"aaa!"}' });
  });
});

describe('tool listings that never end', () => {
  it('pages that never end stop at the page cap: the start finishes', async () => {
    const { manager, config, logs } = managerFor(hostile('paginate-forever'), { startTimeoutMs: 20_000 });
    await manager.start([config]);
    expect(manager.statuses()[0]).toMatchObject({ state: 'connected', tools: [] });
    expect(logs()).toContainEqual(expect.stringMatching(/evil: its tool list goes on past 100 pages/));
  }, 25_000);

  it('a cursor given twice ends the listing', async () => {
    const { manager, config, logs } = managerFor(hostile('paginate-repeat'));
    await manager.start([config]);
    expect(manager.statuses()[0].tools.map((t) => t.name)).toEqual(['t1', 't2']);
    expect(logs()).toContainEqual(expect.stringMatching(/evil: its tool list gave a page cursor twice/));
  });

  it('connecting and listing share one deadline: the start ends at the start timeout', async () => {
    // Each page takes 50 ms, so the page cap is 5 s away: the deadline ends the listing.
    const { manager, config } = managerFor(hostile('paginate-forever', { PAGE_DELAY_MS: '50' }), { startTimeoutMs: 500 });
    await manager.start([config]);
    expect(manager.statuses()[0]).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/timed out after 500 ms connecting and listing/),
    });
  });

  it('an SSE server that never sends its endpoint fails at the start timeout', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const port = (server.address() as { port: number }).port;
    const { manager, config } = managerFor({ mute: { type: 'sse', url: `http://127.0.0.1:${port}/sse` } }, { startTimeoutMs: 500 });
    await manager.start([config]);
    expect(manager.statuses()[0]).toMatchObject({ state: 'failed', error: expect.stringMatching(/timed out after 500 ms/) });
  });

  it('a re-listing that pages forever stops at the page cap, and the call that changed the list returns', async () => {
    const { manager, config, logs } = managerFor(hostile('paginate-after-change'), { callTimeoutMs: 20_000, relistIntervalMs: 0 });
    await manager.start([config]);
    expect(await toolOf(manager, 'trigger').run({}, ctx())).toMatchObject({ ok: true, content: 'triggered' });
    expect(manager.tools()).toEqual([]);
    expect(logs()).toContainEqual(expect.stringMatching(/its tool list goes on past 100 pages/));
  });

  it('a call that changed the list waits for the re-listing only as long as its own timeout leaves', async () => {
    // The re-listing has the start timeout (a minute here); the call only its 1 s.
    const { manager, config } = managerFor(hostile('hang-after-change'), { callTimeoutMs: 1_000, startTimeoutMs: 60_000 });
    await manager.start([config]);
    expect(await toolOf(manager, 'trigger').run({}, ctx())).toMatchObject({ ok: true, content: 'triggered' });
    // The earlier list stays while the re-listing hangs.
    expect(manager.tools().map((t) => t.name)).toEqual(['echo', 'trigger']);
  }, 20_000);
});

describe('tools/list_changed loops', () => {
  it('a server that answers every listing with another change is re-listed at most once per interval', async () => {
    const { manager, config } = managerFor(hostile('relist-loop'), { relistIntervalMs: 300 });
    const starts: number[] = [];
    const listTools = Client.prototype.listTools;
    const lists = vi.spyOn(Client.prototype, 'listTools');
    cleanups.push(() => lists.mockRestore());
    lists.mockImplementation(function (this: Client, ...args: Parameters<Client['listTools']>) {
      starts.push(performance.now());
      return listTools.apply(this, args);
    });
    await manager.start([config]);
    await vi.waitFor(() => expect(starts.length).toBeGreaterThanOrEqual(4), { timeout: 10_000, interval: 20 });
    const gaps = starts.slice(1).map((at, i) => at - starts[i]);
    // The interval is a least time: timers may fire a millisecond early on a coarse clock.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(295);
  });
});

describe('HTTP and SSE message size', () => {
  it.each(['http', 'sse'] as const)('an endless %s event closes that server with a clear error', async (type) => {
    const port = await httpFlood({ MB: '64' });
    const url = `http://127.0.0.1:${port}/${type === 'http' ? 'mcp' : 'sse'}`;
    const { manager, config } = managerFor({ flood: { type, url } }, { maxMessageBytes: 1024 * 1024, callTimeoutMs: 20_000 });
    await manager.start([config]);
    expect(manager.statuses()[0].state).toBe('connected');
    const result = await toolOf(manager, 'flood').run({}, ctx());
    expect(result.ok).toBe(false);
    await vi.waitFor(() => expect(manager.statuses()[0].state).toBe('failed'));
    expect(manager.statuses()[0].error).toMatch(/the server sent an SSE event over 1 MiB/);
  });

  it('an endless JSON response body closes that server with a clear error', async () => {
    const port = await httpFlood({ MB: '64' });
    const { manager, config } = managerFor(
      { flood: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } },
      { maxMessageBytes: 1024 * 1024, callTimeoutMs: 20_000 },
    );
    await manager.start([config]);
    expect((await toolOf(manager, 'flood_json').run({}, ctx())).ok).toBe(false);
    await vi.waitFor(() => expect(manager.statuses()[0].state).toBe('failed'));
    expect(manager.statuses()[0].error).toMatch(/the server sent a response over 1 MiB/);
  });

  it.each(['http', 'sse'] as const)('over %s, the limit is per message: many events under it add up past it', async (type) => {
    const port = await httpFlood({ COUNT: '20', KB: '50' });
    const url = `http://127.0.0.1:${port}/${type === 'http' ? 'mcp' : 'sse'}`;
    const { manager, config } = managerFor({ chatty: { type, url } }, { maxMessageBytes: 256 * 1024 });
    await manager.start([config]);
    expect(await toolOf(manager, 'chatty').run({}, ctx())).toMatchObject({ ok: true, content: 'chatty done' });
    expect(await toolOf(manager, 'chatty').run({}, ctx())).toMatchObject({ ok: true, content: 'chatty done' });
    expect(manager.statuses()[0].state).toBe('connected');
  });
});

describe('tool names', () => {
  it('a tool cannot carry another server\'s prefix: mcp__github__get_issue on "evil" is not matched by a matcher for github', async () => {
    const { manager, config } = managerFor(hostile('impersonate'));
    await manager.start([config]);
    const names = manager.tools().map((t) => t.qualifiedName);
    expect(names).toEqual(['mcp__evil__mcp_github_get_issue']);
    expect(matchesValue('mcp__github__get_.*', names[0])).toBe(false);
    expect(matchesValue('mcp__github__.*', names[0])).toBe(false);
    expect(matchesValue('mcp__evil__.*', names[0])).toBe(true);
    // The server is still called with the tool's own name.
    expect(await toolOf(manager, 'mcp__github__get_issue').run({}, ctx())).toMatchObject({
      ok: true,
      content: 'ran mcp__github__get_issue',
    });
  });

  it('tools whose names sanitise alike stay apart, and the clash is reported', async () => {
    const { manager, config, logs } = managerFor(hostile('clash'));
    await manager.start([config]);
    const names = manager.tools().map((t) => t.qualifiedName);
    expect(names[0]).toBe('mcp__evil__get_thing');
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).not.toMatch(/mcp__.*__.*__/);
    expect(logs().filter((l) => l.includes('has the name of an earlier tool once sanitised'))).toHaveLength(2);
    for (const tool of ['get_thing', 'get__thing', 'get.thing'])
      expect(await toolOf(manager, tool).run({}, ctx())).toMatchObject({ ok: true, content: `ran ${tool}` });
  });
});

describe('bulky tool listings', () => {
  const bulky = (env: Record<string, string>) => ({ bulky: { command: process.execPath, args: [BULKY], env } });

  it('a 1 MB tool name is cut wherever it is shown, and a call still sends it whole', async () => {
    const { manager, config } = managerFor(bulky({ NAME_SIZE: '1000000' }));
    await manager.start([config]);
    const [info] = manager.tools();
    expect(info.name.length).toBeLessThanOrEqual(MAX_SHOWN_NAME_CHARS + 1);
    expect(info.qualifiedName.length).toBeLessThanOrEqual(64);
    const [tool] = currentMcpTools(manager);
    expect(tool.description.length).toBeLessThan(MAX_SHOWN_NAME_CHARS + 100);
    expect(await tool.run({}, ctx())).toMatchObject({ ok: true, content: 'called 1000000' });
  });

  it('each page is cut as it arrives: 1 MB descriptions keep 2048 characters each', async () => {
    const { manager, config } = managerFor(bulky({ PAGES: '3', DESCRIPTION_SIZE: '1000000' }));
    await manager.start([config]);
    const infos = manager.tools();
    expect(infos).toHaveLength(3);
    for (const info of infos) expect(info.description).toHaveLength(MAX_DESCRIPTION_CHARS);
    expect(manager.statuses()[0]).toMatchObject({ state: 'connected' });
    expect(manager.statuses()[0].error).toBeUndefined();
  });

  it('an input schema over the limit is kept only as an open object, with a warning', async () => {
    const { manager, config, logs } = managerFor(bulky({ SCHEMA_SIZE: String(MAX_SCHEMA_CHARS + 1) }));
    await manager.start([config]);
    expect(manager.tools()[0].inputSchema).toEqual({ type: 'object', properties: {} });
    expect(logs().some((l) => l.includes(`is over ${MAX_SCHEMA_CHARS} characters; the model is offered an open object`))).toBe(true);
  });

  it('a listing over the byte cap stops there: the tools before it are offered and the status says the list was cut', async () => {
    // Six pages of one tool with a 1 MB name (a call needs it whole): the fifth would pass 4 MiB.
    const { manager, config } = managerFor(bulky({ PAGES: '6', NAME_SIZE: '1000000' }));
    await manager.start([config]);
    expect(MAX_LISTING_BYTES).toBe(4 * 1024 * 1024);
    expect(manager.tools()).toHaveLength(4);
    expect(manager.statuses()[0]).toMatchObject({
      state: 'connected',
      error: 'its tool list is over 4 MiB: only the 4 tool(s) listed before that are offered',
    });
  });
});

describe('embedded resources', () => {
  it("a resource's text is cut for hooks, and a long blob dropped, as other parts are", async () => {
    const { manager, config } = managerFor(hostile('resource', { SIZE: '2000000' }));
    await manager.start([config]);
    const text = await toolOf(manager, 'resource').run({}, ctx());
    expect(text.ok && JSON.stringify(text.response).length).toBeLessThan(MAX_TOOL_OUTPUT_CHARS + 500);
    expect(text.ok && text.response).toEqual([
      {
        type: 'resource',
        resource: expect.objectContaining({ uri: 'file:///big.txt', text: expect.stringContaining('characters truncated') }),
      },
    ]);
    const blob = await toolOf(manager, 'blob').run({}, ctx());
    expect(blob.ok && blob.response).toEqual([
      { type: 'resource', resource: expect.objectContaining({ uri: 'file:///big.bin', blob: '' }) },
    ]);
  });
});

describe('results nested too deep', () => {
  it.each(['deep-structured', 'deep-meta'])(
    '%s: the call fails, naming the depth, instead of a stack overflow wherever the result is written out',
    async (name) => {
      const { manager, config } = managerFor({ deep: { command: process.execPath, args: [DEEP_RESULT] } });
      await manager.start([config]);
      const result = await toolOf(manager, name).run({}, ctx());
      expect(result).toMatchObject({ ok: false, error: expect.stringContaining(`nested more than ${MAX_RESULT_DEPTH} levels deep`) });
      expect(() => JSON.stringify(result)).not.toThrow();
    },
  );
});
