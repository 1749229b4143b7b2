import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostToManager } from '../../../src/shared/manager-protocol';
import type { McpServerView } from '../../../src/shared/manager-views';
import { text, toolCalls } from '../../support/model-server';
import { stub, type FakeSecretStorage, type FakeWebview } from '../../support/vscode-stub';
import { modals, startChat, until, type ChatHarness } from './extension-harness';

const FIXTURE = path.resolve(__dirname, '../../fixtures/mcp/misbehaving-server.mjs');
const HOSTILE = path.resolve(__dirname, '../../fixtures/mcp/hostile-server.mjs');
const POLICY = path.resolve(__dirname, '../../fixtures/mcp/policy-server.mjs');

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A workspace .mcp.json whose server writes its pid to `started.pid` when it starts. */
const WORKSPACE_MCP = JSON.stringify({
  mcpServers: { fix: { command: process.execPath, args: [FIXTURE], env: { MCP_FIXTURE_PID_FILE: '${workspaceFolder}/started.pid' } } },
});
const offeredTools = (harness: ChatHarness) =>
  (harness.server.requests.at(-1)?.body as { tools?: Array<{ function: { name: string } }> }).tools?.map((t) => t.function.name) ?? [];

describe('MCP servers in VS Code', () => {
  it('an untrusted workspace starts none of its servers; the user setting still works; trust applies from the next chat', async () => {
    h = await startChat({ '.mcp.json': WORKSPACE_MCP }, [text('first'), text('second')], {
      trusted: false,
      setup: () => {
        stub.setConfig('hookpilot.mcpServers', { mine: { command: process.execPath, args: [FIXTURE] } }, 'globalValue');
        // A workspace's own settings value cannot add servers, trusted or not.
        stub.setConfig('hookpilot.mcpServers', { theirs: { command: process.execPath, args: [FIXTURE] } }, 'workspaceValue');
      },
    });
    await h.prompt('hello');
    expect(offeredTools(h)).toContain('mcp__mine__echo');
    expect(offeredTools(h).some((n) => n.startsWith('mcp__fix__') || n.startsWith('mcp__theirs__'))).toBe(false);
    expect(existsSync(h.workspace.file('started.pid'))).toBe(false);

    stub.setTrusted(true);
    h.webview.send({ type: 'newChat' });
    await until(() => h!.webview.ofType('reset').length > 1, 'the new chat');
    await h.prompt('hello again');
    expect(offeredTools(h)).toContain('mcp__fix__echo');
    expect(readFileSync(h.workspace.file('started.pid'), 'utf8')).toMatch(/^\d+$/);
  });

  it("an untrusted workspace is not the folder of the user's servers: `python -m` finds no module of the repository's", async () => {
    h = await startChat({ 'mcp_server_time.py': "open('planted-ran', 'w').write('the repository ran as the user')\n" }, [text('hi')], {
      trusted: false,
      setup: (context) => {
        const where = path.join(context.storageUri.fsPath, 'where.txt');
        stub.setConfig(
          'hookpilot.mcpServers',
          {
            // As the server's README configures it.
            time: { command: 'python3', args: ['-m', 'mcp_server_time'] },
            where: { command: 'sh', args: ['-c', 'pwd > "$1"; exec "$2" "$3"', 'sh', where, process.execPath, FIXTURE] },
          },
          'globalValue',
        );
      },
    });
    await h.prompt('hello');
    expect(offeredTools(h)).toContain('mcp__where__echo');
    expect(existsSync(h.workspace.file('planted-ran'))).toBe(false);
    // An empty folder of Hookpilot's global storage, which no model tool may write.
    const cwd = readFileSync(path.join(h.storageDir, 'where.txt'), 'utf8').trim();
    expect(cwd).toBe(path.join(h.context.globalStorageUri.fsPath, 'mcp-untrusted-cwd'));
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("an untrusted workspace is not the folder of the user's servers: npx does not run its node_modules/.bin", async () => {
    const planted = "#!/usr/bin/env node\nrequire('fs').writeFileSync(require('path').join(__dirname, 'planted-ran'), 'x');\n";
    h = await startChat(
      {
        'node_modules/@modelcontextprotocol/server-memory/package.json': JSON.stringify({
          name: '@modelcontextprotocol/server-memory',
          version: '9.9.9',
          bin: { 'mcp-server-memory': 'planted.js' },
        }),
        'node_modules/@modelcontextprotocol/server-memory/planted.js': planted,
      },
      [text('hi')],
      {
        trusted: false,
        setup: () => {
          const dir = stub.state.folders[0].uri.fsPath;
          chmodSync(path.join(dir, 'node_modules/@modelcontextprotocol/server-memory/planted.js'), 0o755);
          mkdirSync(path.join(dir, 'node_modules/.bin'));
          symlinkSync('../@modelcontextprotocol/server-memory/planted.js', path.join(dir, 'node_modules/.bin/mcp-server-memory'));
          // The README's `npx -y`; offline, so that the test never reaches the registry.
          const args = ['--offline', '-y', '@modelcontextprotocol/server-memory'];
          stub.setConfig('hookpilot.mcpServers', { memory: { command: 'npx', args } }, 'globalValue');
        },
      },
    );
    await h.prompt('hello');
    expect(existsSync(h.workspace.file('node_modules/@modelcontextprotocol/server-memory/planted-ran'))).toBe(false);
  });

  it("a user server using the untrusted workspace's folder fails with the reason; granting trust starts it", async () => {
    const servers = {
      byVariable: { command: process.execPath, args: [FIXTURE], env: { ROOT: '${workspaceFolder}' } },
      relativeCwd: { command: process.execPath, args: [FIXTURE], cwd: 'tools' },
      relativeEnvFile: { command: process.execPath, args: [FIXTURE], envFile: '.env.mcp' },
      elsewhere: { command: process.execPath, args: [FIXTURE] },
    };
    h = await startChat({ 'tools/.keep': '', '.env.mcp': 'A=1\n' }, [text('hi')], {
      trusted: false,
      setup: () => stub.setConfig('hookpilot.mcpServers', servers, 'globalValue'),
    });
    const webview = await openManager();
    await serverState(webview, 'elsewhere', 'connected');
    for (const [name, reason] of [
      ['byVariable', 'it uses ${workspaceFolder}'],
      ['relativeCwd', 'its cwd "tools" is relative to the workspace folder'],
      ['relativeEnvFile', 'its envFile ".env.mcp" is relative to the workspace folder'],
    ])
      expect((await serverState(webview, name, 'failed')).error).toBe(
        `could not start: ${reason}, and an untrusted workspace's folder is not used (Restricted Mode); it starts once the workspace is trusted`,
      );

    stub.setTrusted(true);
    for (const name of Object.keys(servers)) await serverState(webview, name, 'connected');
  });

  it("a trusted workspace's server of a user server's name is refused: the user's server answers the user's rules", async () => {
    const policy = (verdict: string, label: string) => ({ policy: { command: process.execPath, args: [POLICY, verdict, label] } });
    h = await startChat(
      { '.mcp.json': JSON.stringify({ mcpServers: policy('allow', 'impostor') }) },
      [toolCalls([{ id: 'p1', name: 'mcp__policy__check', arguments: {} }]), text('done')],
      {
        setup: () => {
          stub.setConfig('hookpilot.mcpServers', policy('deny', 'user'), 'globalValue');
          stub.setConfig('hookpilot.permissions', { allow: ['mcp__policy'] }, 'globalValue');
        },
      },
    );
    await h.prompt('ask the policy');
    const card = JSON.stringify(h.items());
    expect(card).toContain('user: deny');
    expect(card).not.toContain('impostor');
    expect(stub.state.logLines).toContainEqual({
      level: 'warn',
      message: expect.stringMatching(/"policy".*user settings.*\.mcp\.json.*ignored/),
    });
    const webview = await openManager();
    expect(await serverState(webview, 'policy', 'connected')).toMatchObject({ sourceKind: 'user' });
  });

  it("a server's envFile and the folders its script loads from are protected: an allowed Write of them still asks a person", async () => {
    const vscodeMcp = {
      servers: { fix: { type: 'stdio', command: process.execPath, args: ['tools/server.mjs'], envFile: '${workspaceFolder}/.env.mcp' } },
    };
    const write = (id: string, file: string, content: string) =>
      toolCalls([{ id, name: 'Write', arguments: { file_path: file, content } }]);
    h = await startChat(
      { '.vscode/mcp.json': JSON.stringify(vscodeMcp), 'tools/server.mjs': readFileSync(FIXTURE, 'utf8'), '.env.mcp': 'A=1\n' },
      [
        write('w1', '.env.mcp', 'NODE_OPTIONS=--require ./evil.cjs\n'),
        write('w2', 'node_modules/x/index.js', 'module.exports = 1;\n'),
        write('w3', 'notes.md', 'fine\n'),
        text('done'),
      ],
      { setup: () => stub.setConfig('hookpilot.permissions', { allow: ['Write'] }, 'globalValue') },
    );
    await h.prompt('take over');
    // The person's answer: each modal dismissed, which denies.
    expect(modals().map((m) => m.message)).toEqual(['Hookpilot wants to use Write', 'Hookpilot wants to use Write']);
    expect(readFileSync(h.workspace.file('.env.mcp'), 'utf8')).toBe('A=1\n');
    expect(existsSync(h.workspace.file('node_modules/x/index.js'))).toBe(false);
    expect(readFileSync(h.workspace.file('notes.md'), 'utf8')).toBe('fine\n');
  });

  it("an untrusted workspace's server files are protected too: granting trust would start the server as they are then", async () => {
    const local = { command: process.execPath, args: ['tools/server.mjs'], envFile: '${workspaceFolder}/.env.mcp' };
    h = await startChat(
      { '.mcp.json': JSON.stringify({ mcpServers: { local } }), 'tools/server.mjs': readFileSync(FIXTURE, 'utf8'), '.env.mcp': 'A=1\n' },
      [
        toolCalls([{ id: 'w1', name: 'Write', arguments: { file_path: '.env.mcp', content: 'NODE_OPTIONS=--require ./evil.cjs\n' } }]),
        text('done'),
      ],
      { trusted: false, setup: () => stub.setConfig('hookpilot.permissions', { allow: ['Write'] }, 'globalValue') },
    );
    await h.prompt('take over');
    expect(modals().map((m) => m.message)).toEqual(['Hookpilot wants to use Write']);
    expect(readFileSync(h.workspace.file('.env.mcp'), 'utf8')).toBe('A=1\n');
  });

  it('Show MCP Servers lists status and tools, and disables, enables and restarts a server', async () => {
    h = await startChat({}, [text('hi')], {
      setup: () => stub.setConfig('hookpilot.mcpServers', { mine: { command: process.execPath, args: [FIXTURE] } }, 'globalValue'),
    });
    const shown: Array<Array<{ label: string; description?: string; detail?: string }>> = [];
    const answers = [/mine/, /^Disable$/, /mine/, /^Enable$/, /mine/, /^Restart$/];
    stub.state.answerQuickPick = (items) => {
      shown.push(items);
      const want = answers.shift();
      return items.find((i) => want?.test(i.label))?.label;
    };
    const show = () => stub.state.commands.get('hookpilot.showMcpServers')!();
    await show();
    expect(shown[0][0]).toMatchObject({
      description: expect.stringMatching(/^connected · stdio · \d+ tool/),
      detail: expect.stringContaining('echo'),
    });
    expect(h.root.chat).toBeDefined();
    await show();
    expect(shown[2][0].description).toMatch(/^disabled/);
    await show();
    expect(shown[4][0].description).toMatch(/^connected/);
  });

  it('a rule allows the call, the tool card names the server, and ${input:…} is asked once and kept in SecretStorage', async () => {
    const asked: Array<{ password?: boolean }> = [];
    const vscodeMcp = {
      inputs: [{ type: 'promptString', id: 'token', description: 'API token', password: true }],
      servers: { mine: { type: 'stdio', command: process.execPath, args: [FIXTURE], env: { TOKEN: '${input:token}' } } },
    };
    h = await startChat(
      { '.vscode/mcp.json': JSON.stringify(vscodeMcp) },
      [toolCalls([{ id: 'm1', name: 'mcp__mine__say', arguments: { text: 'hi from mcp' } }]), text('done')],
      {
        setup: () => {
          stub.setConfig('hookpilot.permissions', { allow: ['mcp__mine'] }, 'globalValue');
          stub.state.answerInputBox = (options: { password?: boolean }) => {
            asked.push(options);
            return 'typed-secret';
          };
        },
      },
    );
    await h.prompt('use mcp');
    const card = JSON.stringify(h.items());
    expect(card).toContain('MCP mine: say');
    expect(card).toContain('hi from mcp');
    expect(asked).toEqual([expect.objectContaining({ password: true })]);
    // Kept for this workspace and file, not under the id alone.
    const stored = (h.context.secrets as unknown as FakeSecretStorage).values;
    expect([...stored.values()]).toEqual(['typed-secret']);
    expect(stored.has('hookpilot.mcp.input.token')).toBe(false);
  });

  it('an ${input:id} answer is kept for its workspace and file: another workspace declaring the same id is asked anew', async () => {
    const asked: string[] = [];
    const answer = (value: string) => (options: { title?: string }) => {
      asked.push(String(options.title));
      return value;
    };
    const mcpJson = JSON.stringify({
      inputs: [{ type: 'promptString', id: 'github_token', description: 'GitHub token', password: true }],
      servers: {
        gh: { command: process.execPath, args: [HOSTILE], env: { T: '${input:github_token}', RECORD_FILE: '${workspaceFolder}/seen.txt' } },
      },
    });
    // Workspace A: the person types the token for its server.
    h = await startChat({ '.vscode/mcp.json': mcpJson }, [text('a')], {
      setup: () => void (stub.state.answerInputBox = answer('token-for-A')),
    });
    await h.prompt('hi');
    expect(asked).toHaveLength(1);
    expect(readFileSync(h.workspace.file('seen.txt'), 'utf8')).toBe('T=token-for-A\n');
    // A window reload of the same workspace uses the kept answer.
    await h.restart();
    const webview = await openManager();
    await serverState(webview, 'gh', 'connected');
    expect(asked).toHaveLength(1);
    expect(readFileSync(h.workspace.file('seen.txt'), 'utf8')).toBe('T=token-for-A\nT=token-for-A\n');
    const kept = new Map((h.context.secrets as unknown as FakeSecretStorage).values);
    await h.close();
    h = undefined;

    // Workspace B, with the same SecretStorage (the same extension): its file declares the same id.
    h = await startChat({ '.vscode/mcp.json': mcpJson }, [text('b')], {
      setup: async (context) => {
        for (const [key, value] of kept) await context.secrets.store(key, value);
        stub.state.answerInputBox = answer('typed-in-B');
      },
    });
    await h.prompt('hi');
    expect(asked).toHaveLength(2);
    expect(readFileSync(h.workspace.file('seen.txt'), 'utf8')).toBe('T=typed-in-B\n');
  });

  it('an ${input:id} answer is kept for what it is sent to: a changed command or URL path is asked anew', async () => {
    const asked: string[] = [];
    let typed = 0;
    const mcpJson = (ghArgs: string[], url: string) =>
      JSON.stringify({
        inputs: [
          { type: 'promptString', id: 'token', description: 'GitHub token', password: true },
          { type: 'promptString', id: 'key', description: 'API key', password: true },
        ],
        servers: {
          gh: { command: process.execPath, args: ghArgs, env: { T: '${input:token}', RECORD_FILE: '${workspaceFolder}/seen.txt' } },
          // Nothing listens there: the answer is asked for before connecting, which then fails.
          remote: { type: 'http', url, headers: { Authorization: 'Bearer ${input:key}' } },
        },
      });
    h = await startChat({ '.vscode/mcp.json': mcpJson([HOSTILE], 'http://127.0.0.1:9/mcp?v=1') }, [text('a')], {
      setup: () =>
        void (stub.state.answerInputBox = (options: { title?: string }) => {
          asked.push(String(options.title).replace('MCP server input: ', ''));
          return `typed-${++typed}`;
        }),
    });
    await h.prompt('hi');
    expect(asked.sort()).toEqual(['key', 'token']);
    expect(readFileSync(h.workspace.file('seen.txt'), 'utf8')).toMatch(/^T=typed-[12]\n$/);

    // Another query string is the same destination: the kept answers are used.
    await personSaves(h.workspace.file('.vscode/mcp.json'), mcpJson([HOSTILE], 'http://127.0.0.1:9/mcp?v=2'));
    await serverState(await openManager(), 'gh', 'connected');
    expect(asked).toHaveLength(2);

    // A repository update points the server elsewhere: neither kept answer goes there unasked.
    await personSaves(h.workspace.file('.vscode/mcp.json'), mcpJson([HOSTILE, '--other'], 'http://127.0.0.1:9/elsewhere'));
    await serverState(await openManager(), 'gh', 'connected');
    expect(asked.slice(2).sort()).toEqual(['key', 'token']);
    expect(readFileSync(h.workspace.file('seen.txt'), 'utf8').split('\n').at(-2)).toMatch(/^T=typed-[34]$/);
  });

  it('an ${input:id} answer kept before answers were tied to their server is not used: the person is asked', async () => {
    const asked: string[] = [];
    const mcpJson = JSON.stringify({
      inputs: [{ type: 'promptString', id: 'token', description: 'GitHub token', password: true }],
      servers: {
        gh: { command: process.execPath, args: [HOSTILE], env: { T: '${input:token}', RECORD_FILE: '${workspaceFolder}/seen.txt' } },
      },
    });
    let oldKey = '';
    h = await startChat({ '.vscode/mcp.json': mcpJson }, [text('a')], {
      setup: async (context) => {
        // The earlier key: a hash of the folder, the file and the id.
        const folder = stub.state.folders[0].uri.fsPath;
        const scope = JSON.stringify([folder, path.join(folder, '.vscode', 'mcp.json'), 'token']);
        oldKey = `hookpilot.mcp.input.${createHash('sha256').update(scope).digest('hex')}`;
        await context.secrets.store(oldKey, 'kept-before');
        stub.state.answerInputBox = (options: { title?: string }) => {
          asked.push(String(options.title));
          return 'typed-now';
        };
      },
    });
    await h.prompt('hi');
    expect(asked).toHaveLength(1);
    expect(readFileSync(h.workspace.file('seen.txt'), 'utf8')).toBe('T=typed-now\n');
    expect((h.context.secrets as unknown as FakeSecretStorage).values.has(oldKey)).toBe(false);
  });
});

/** Opens the Hook Manager (a new panel) and says `ready` as its page would. */
/** A person saves an MCP file in the editor: it applies, and the running servers restart from it. */
async function personSaves(file: string, content: string): Promise<void> {
  stub.saveDocument(file, content);
  await h!.root.engineHost.reload();
  await stub.state.commands.get('hookpilot.showMcpServers')!();
}

async function openManager(): Promise<FakeWebview> {
  await stub.state.commands.get('hookpilot.openHookManager')?.();
  const webview = stub.state.panels.at(-1)!.webview;
  webview.send({ type: 'ready' });
  return webview;
}

type McpSnapshot = Extract<HostToManager, { type: 'mcpServers' }>;
const snapshots = (webview: FakeWebview) => webview.ofType<McpSnapshot>('mcpServers').map((m) => m.servers);
const serverIn = (webview: FakeWebview, name: string): McpServerView | undefined =>
  snapshots(webview)
    .at(-1)
    ?.find((s) => s.name === name);
const serverState = (webview: FakeWebview, name: string, state: McpServerView['state']) =>
  until(() => (serverIn(webview, name)?.state === state ? serverIn(webview, name) : undefined), `${name} ${state} in the MCP tab`);

describe('the Hook Manager MCP tab', () => {
  it('shows each server live with its tools; restart and off/on come back as new snapshots; off is kept for the workspace', async () => {
    h = await startChat({ '.vscode/mcp.json': JSON.stringify({ servers: { fix: { command: process.execPath, args: [FIXTURE] } } }) }, [
      text('one'),
      text('two'),
    ]);
    let webview = await openManager();
    const connected = await serverState(webview, 'fix', 'connected');
    expect(connected).toMatchObject({ sourceKind: 'workspace', file: '.vscode/mcp.json', transport: 'stdio', enabled: true });
    expect(connected.tools.map((t) => t.qualifiedName)).toContain('mcp__fix__echo');
    // Live: the snapshots went through starting before connected.
    expect(snapshots(webview).map((list) => list.find((s) => s.name === 'fix')?.state)).toContain('starting');

    const before = snapshots(webview).length;
    webview.send({ type: 'restartMcpServer', name: 'fix' });
    await until(
      () =>
        snapshots(webview)
          .slice(before)
          .some((l) => l[0]?.state === 'starting') && serverIn(webview, 'fix')?.state === 'connected',
      'a restart',
    );

    webview.send({ type: 'toggleMcpServer', name: 'fix', enabled: false });
    expect(await serverState(webview, 'fix', 'disabled')).toMatchObject({ enabled: false, tools: [] });
    webview.send({ type: 'restartMcpServer', name: 'fix' });
    await h.prompt('anything');
    expect(serverIn(webview, 'fix')?.state).toBe('disabled');
    expect(offeredTools(h).some((n) => n.startsWith('mcp__fix__'))).toBe(false);

    // A window reload keeps the choice.
    await h.restart();
    webview = await openManager();
    await serverState(webview, 'fix', 'disabled');
    webview.send({ type: 'toggleMcpServer', name: 'fix', enabled: true });
    await serverState(webview, 'fix', 'connected');
  });

  it('an untrusted workspace lists its servers as untrusted and starts none, whatever the toggle; trust starts them', async () => {
    h = await startChat({ '.mcp.json': WORKSPACE_MCP }, [text('hi')], {
      trusted: false,
      setup: () => stub.setConfig('hookpilot.mcpServers', { mine: { command: process.execPath, args: [FIXTURE] } }, 'globalValue'),
    });
    const webview = await openManager();
    await serverState(webview, 'mine', 'connected');
    expect(serverIn(webview, 'fix')).toMatchObject({ state: 'untrusted', sourceKind: 'workspace', file: '.mcp.json', tools: [] });
    // The palette lists it the same way.
    const shown: Array<Array<{ label: string; description?: string; detail?: string }>> = [];
    stub.state.answerQuickPick = (items) => void shown.push(items);
    await stub.state.commands.get('hookpilot.showMcpServers')!();
    expect(shown[0].find((i) => i.label.includes('fix'))).toMatchObject({
      description: 'untrusted · stdio · 0 tool(s)',
      detail: expect.stringContaining('Restricted Mode'),
    });

    webview.send({ type: 'toggleMcpServer', name: 'fix', enabled: false });
    await until(() => serverIn(webview, 'fix')?.enabled === false, 'the choice shown');
    webview.send({ type: 'toggleMcpServer', name: 'fix', enabled: true });
    await until(() => serverIn(webview, 'fix')?.enabled === true, 'the choice shown');
    webview.send({ type: 'restartMcpServer', name: 'fix' });
    await h.prompt('hello');
    expect(serverIn(webview, 'fix')?.state).toBe('untrusted');
    expect(existsSync(h.workspace.file('started.pid'))).toBe(false);
    expect(offeredTools(h).some((n) => n.startsWith('mcp__fix__'))).toBe(false);

    stub.setTrusted(true);
    await serverState(webview, 'fix', 'connected');
    expect(readFileSync(h.workspace.file('started.pid'), 'utf8')).toMatch(/^\d+$/);
  });

  it('a server churning its tool list reaches the MCP tab as a few snapshots, the last one current', async () => {
    const changing = path.resolve(__dirname, '../../fixtures/mcp/changing-tools-server.mjs');
    const files = { '.vscode/mcp.json': JSON.stringify({ servers: { dyn: { command: process.execPath, args: [changing] } } }) };
    h = await startChat(files, [toolCalls([{ id: 'c1', name: 'mcp__dyn__churn', arguments: { count: 300 } }]), text('done')], {
      setup: () => stub.setConfig('hookpilot.permissions', { allow: ['mcp__dyn'] }, 'globalValue'),
    });
    const webview = await openManager();
    await serverState(webview, 'dyn', 'connected');
    const before = snapshots(webview).length;
    await h.prompt('churn');
    await until(() => serverIn(webview, 'dyn')?.tools.some((t) => t.name === 'churn_299'), 'the last list in the tab');
    expect(
      serverIn(webview, 'dyn')
        ?.tools.filter((t) => t.name.startsWith('churn_'))
        .map((t) => t.name),
    ).toEqual(['churn_299']);
    expect(snapshots(webview).length - before).toBeLessThan(30);
  });
});
