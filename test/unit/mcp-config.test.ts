import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMcpDocument, loadMcpSetting, serversByPrecedence } from '../../src/core/mcp/mcp-config';
import { mcpServerOf, mcpToolName, mcpToolNames, sanitizeServerName, sanitizeToolName } from '../../src/core/mcp/mcp-names';
import { expandKnownVariables, expandServer, inputDestination } from '../../src/core/mcp/mcp-variables';
import { matchPermissionRule, parsePermissionRule } from '../../src/core/permissions/permission-rule';

const source = { kind: 'workspace' as const, file: '/ws/.vscode/mcp.json' };

describe('MCP configuration files', () => {
  it('reads VS Code servers (stdio, http, sse) with inputs, and Claude Code mcpServers', () => {
    const vscode = loadMcpDocument(
      `{
  // VS Code's format
  "inputs": [{ "type": "promptString", "id": "token", "description": "API token", "password": true }],
  "servers": {
    "memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": { "N": 1, "GONE": null } },
    "remote": { "type": "http", "url": "https://example.invalid/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
    "old": { "type": "sse", "url": "http://127.0.0.1:1/sse" },
  }
}`,
      source,
    );
    expect(vscode.problems).toEqual([]);
    expect(vscode.inputs).toEqual([{ type: 'promptString', id: 'token', description: 'API token', password: true }]);
    expect(vscode.servers.map((s) => [s.name, s.transport])).toEqual([
      ['memory', 'stdio'],
      ['remote', 'http'],
      ['old', 'sse'],
    ]);
    expect(vscode.servers[0]).toMatchObject({ command: 'npx', env: { N: '1' } });

    const claude = loadMcpDocument(
      JSON.stringify({ mcpServers: { fs: { command: 'mcp-fs' }, web: { url: 'https://example.invalid' } } }),
      source,
    );
    expect(claude.servers.map((s) => [s.name, s.transport])).toEqual([
      ['fs', 'stdio'],
      ['web', 'http'],
    ]);
  });

  it('reports each bad entry at its position and keeps the good ones', () => {
    const text =
      '{\n  "servers": {\n    "a": { "type": "stdio" },\n    "b": { "url": 5 },\n    "c": { "command": "ok", "comand": "x" },\n    "d e": { "command": "y" },\n    "d_e": { "command": "z" }\n  }\n}';
    const loaded = loadMcpDocument(text, source);
    expect(loaded.servers.map((s) => s.name)).toEqual(['c', 'd_e']);
    const at = loaded.problems.map((p) => `${p.line}:${p.severity}:${p.message}`);
    expect(at).toEqual([
      '3:error:Server "a" is stdio: it needs a "command".',
      '4:error:"url" must be a string, not a number.',
      '5:warning:Unknown property "comand" (ignored). Did you mean "command"?',
      '7:error:Server "d_e" has the same tool prefix mcp__d_e__ as another server here.',
    ]);
  });

  it('a syntax error, a non-object and a file without servers are problems, not throws', () => {
    expect(loadMcpDocument('{ "servers": { ', source).problems[0]).toMatchObject({ code: 'syntax', line: 1 });
    expect(loadMcpDocument('[1]', source).problems[0].message).toContain('JSON object');
    expect(loadMcpDocument('{"server": {}}', source).problems.map((p) => p.severity)).toEqual(['warning', 'warning']);
    expect(loadMcpSetting({ x: { command: 'a' } }, { kind: 'user' }).servers[0].name).toBe('x');
    expect(loadMcpSetting([], { kind: 'user' }).problems[0].message).toContain('object of servers');
  });
});

describe('MCP names and rules', () => {
  it('sanitises server and tool names; a server name never holds __', () => {
    expect(mcpToolName('my server', 'do.it')).toBe('mcp__my_server__do_it');
    expect(sanitizeServerName('a__b')).toBe('a_b');
    expect(sanitizeServerName('_x_')).toBe('x');
    expect(mcpServerOf('mcp__memory__read_graph')).toBe('memory');
    expect(mcpServerOf('Bash')).toBeUndefined();
    const long = mcpToolName('s', 'a'.repeat(80));
    expect(long).toHaveLength(64);
    expect(long).not.toBe(mcpToolName('s', `${'a'.repeat(79)}b`));
    expect(loadMcpSetting({ ['n'.repeat(41)]: { command: 'x' } }, { kind: 'user' }).problems[0].message).toContain('at most 40');
  });

  it("warns of a server whose tool names are not spelled as Claude Code's: rules written that way match none of its tools", () => {
    const loaded = loadMcpDocument(
      JSON.stringify({ mcpServers: { my__srv: { command: 'a' }, _x_: { command: 'b' }, 'd e': { command: 'c' } } }),
      source,
    );
    expect(loaded.servers.map((s) => s.name)).toEqual(['my_srv', 'x', 'd_e']);
    expect(loaded.problems.map((p) => `${p.severity}:${p.message}`)).toEqual([
      'warning:Server "my__srv" is offered as mcp__my_srv__<tool> (no name holds "__" here): rules, hook matchers and `if` must name it mcp__my_srv; ' +
        "Claude Code's spelling mcp__my__srv__<tool> matches none of its tools, so a deny rule written so denies nothing.",
      'warning:Server "_x_" is offered as mcp__x__<tool> (no name holds "__" here): rules, hook matchers and `if` must name it mcp__x; ' +
        "Claude Code's spelling mcp___x___<tool> matches none of its tools, so a deny rule written so denies nothing.",
    ]);
  });

  it("a tool name never holds __, so it cannot spell another server's mcp__<server>__ prefix", () => {
    expect(sanitizeToolName('mcp__github__get_issue')).toBe('mcp_github_get_issue');
    expect(mcpToolName('evil', 'mcp__github__get_issue')).toBe('mcp__evil__mcp_github_get_issue');
    expect(mcpServerOf(mcpToolName('evil', 'mcp__github__get_issue'))).toBe('evil');
    // A cut long name gets its hash without making a __ where it was cut.
    const cut = mcpToolName('s', `${'a'.repeat(46)}_${'b'.repeat(30)}`);
    expect(cut).toHaveLength(63);
    expect(cut.slice('mcp__s__'.length)).not.toContain('__');
  });

  it('tools of one server whose names sanitise alike are told apart, each clash reported', () => {
    const clashes: string[] = [];
    const names = mcpToolNames('s', ['get_thing', 'get__thing', 'get.thing', 'other'], (tool, name) => clashes.push(`${tool} -> ${name}`));
    expect(names[0]).toBe('mcp__s__get_thing');
    expect(names[3]).toBe('mcp__s__other');
    expect(new Set(names).size).toBe(4);
    expect(names[1]).toMatch(/^mcp__s__get_thing_[0-9a-f]{8}$/);
    expect(clashes).toEqual([`get__thing -> ${names[1]}`, `get.thing -> ${names[2]}`]);
    // The same list gives the same names.
    expect(mcpToolNames('s', ['get_thing', 'get__thing', 'get.thing', 'other'])).toEqual(names);
  });

  it('mcp__server names every tool of that server and no other server; mcp__server__* too', () => {
    const matches = (rule: string, tool: string) =>
      matchPermissionRule(parsePermissionRule(rule)!, tool, {}, { cwd: '/', projectRoot: '/', home: '/' });
    expect(matches('mcp__memory', 'mcp__memory__create_entities')).toBe('match');
    expect(matches('mcp__memory', 'mcp__memory2__create_entities')).toBe('no-match');
    expect(matches('mcp__memory__*', 'mcp__memory__read_graph')).toBe('match');
    expect(matches('mcp__memory__read_graph', 'mcp__memory__read_graph')).toBe('match');
    expect(matches('mcp__memory__read_graph', 'mcp__memory__create_entities')).toBe('no-match');
    expect(matches('mcp__mem', 'mcp__memory__read_graph')).toBe('no-match');
  });
});

describe('MCP server precedence', () => {
  const named = (command: string) => ({ policy: { command }, [command]: { command } });
  const user = loadMcpSetting(named('mine'), { kind: 'user', file: '/home/me/settings.json' });
  const cli = loadMcpDocument(JSON.stringify({ mcpServers: named('given') }), { kind: 'cli', file: '/tmp/given.json' });
  const claude = loadMcpDocument(JSON.stringify({ mcpServers: named('claude') }), { kind: 'workspace', file: '/ws/.mcp.json' });
  const vscode = loadMcpDocument(JSON.stringify({ servers: named('vscode') }), { kind: 'workspace', file: '/ws/.vscode/mcp.json' });
  const commandOf = (server: { transport: string; command?: string }) => server.command;

  it("keeps the person's definition of a name whatever order the sources come in; the workspace's is refused", () => {
    for (const sources of [
      [claude, vscode, user, cli],
      [user, claude, cli, vscode],
    ]) {
      const { servers, refused } = serversByPrecedence(sources);
      expect(servers.map((s) => [s.name, commandOf(s)])).toEqual([
        ['policy', 'given'],
        ['given', 'given'],
        ['mine', 'mine'],
        ['claude', 'claude'],
        ['vscode', 'vscode'],
      ]);
      expect(refused.map((r) => [r.server.source.file, r.kept.source.file])).toEqual([
        ['/home/me/settings.json', '/tmp/given.json'],
        ['/ws/.mcp.json', '/tmp/given.json'],
        ['/ws/.vscode/mcp.json', '/tmp/given.json'],
      ]);
    }
    expect(serversByPrecedence([vscode, claude, user]).servers[0]).toMatchObject({ name: 'policy', source: { kind: 'user' } });
  });
});

describe('MCP variables', () => {
  const stdio = (extra: Record<string, unknown>) => loadMcpSetting({ s: { command: 'run', ...extra } }, { kind: 'user' }).servers[0];

  it('expands workspaceFolder, env:NAME, NAME, NAME:-default and envFile', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hp-mcp-vars-'));
    writeFileSync(path.join(dir, '.env'), 'FROM_FILE=yes\n');
    const server = await expandServer(
      stdio({
        args: ['${workspaceFolder}/x', '${env:HOME_X}', '${MISSING:-fallback}'],
        env: { A: '${HOME_X}' },
        envFile: '${workspaceFolder}/.env',
      }),
      {
        workspaceFolder: dir,
        env: { HOME_X: '/home/x' },
        inputs: [],
      },
    );
    expect(server).toMatchObject({ args: [`${dir}/x`, '/home/x', 'fallback'], env: { FROM_FILE: 'yes', A: '/home/x' } });
  });

  it('fills without asking what a start fills the same way, and leaves inputs and unset variables as written', async () => {
    const ctx = { workspaceFolder: '/ws', env: { T: '/tools' }, inputs: [] };
    const known = ['${workspaceFolder}/a', '${env:T}/b', '${T}/c', '${U:-/u}/d', `\${userHome}/e`];
    const started = await expandServer(stdio({ args: known }), ctx);
    expect(known.map((arg) => expandKnownVariables(arg, ctx))).toEqual(started.transport === 'stdio' && started.args);
    expect(expandKnownVariables('${input:dir}/x ${NOPE}/y ${env:NOPE}', ctx)).toBe('${input:dir}/x ${NOPE}/y ${env:NOPE}');
  });

  it('a missing variable or an input without anyone to ask is an error naming it', async () => {
    const ctx = { workspaceFolder: '/ws', env: {}, inputs: [{ id: 'tok', description: '', password: true }] };
    await expect(expandServer(stdio({ args: ['${NOPE}'] }), ctx)).rejects.toThrow('the environment variable NOPE is not set');
    await expect(expandServer(stdio({ args: ['${input:tok}'] }), ctx)).rejects.toThrow('only VS Code can ask');
    await expect(expandServer(stdio({ args: ['${input:other}'] }), ctx)).rejects.toThrow('no input "other"');
    const asked = await expandServer(stdio({ args: ['${input:tok}'] }), { ...ctx, resolveInput: async () => 'secret' });
    expect(asked.transport === 'stdio' && asked.args).toEqual(['secret']);
  });

  it('an http server URL must stay http(s) after expansion', async () => {
    const server = loadMcpSetting({ s: { url: '${U}' } }, { kind: 'user' }).servers[0];
    await expect(expandServer(server, { workspaceFolder: '/', env: { U: 'file:///etc/passwd' }, inputs: [] })).rejects.toThrow(
      'not an http(s) URL',
    );
  });

  it("an input's destination is the URL's origin and path, or what a stdio server runs, as a start fills them", () => {
    const ctx = { workspaceFolder: '/ws', env: { HOST: 'api.example.com' } };
    const http = (url: string) => inputDestination(loadMcpSetting({ s: { url } }, { kind: 'user' }).servers[0], ctx);
    expect(http('https://${HOST}/mcp?v=1')).toBe('https://api.example.com/mcp');
    expect(http('https://API.example.com/mcp?v=2#x')).toBe(http('https://${HOST}/mcp?v=1'));
    expect(
      new Set([http('https://api.example.com/mcp'), http('https://api.example.com/other'), http('https://evil.example/mcp')]).size,
    ).toBe(3);
    expect(http('${input:url}')).toBe('${input:url}');

    const base = { args: ['-y', '@scope/server'], env: { T: '${input:token}' } };
    const run = (extra: Record<string, unknown>) => inputDestination(stdio({ ...base, ...extra }), ctx);
    expect(run({ args: ['-y', '${workspaceFolder}/s'] })).toBe(run({ args: ['-y', '/ws/s'] }));
    const changed = [
      {},
      { command: 'npx' },
      { args: ['-y', '@evil/server'] },
      { cwd: 'tools' },
      { env: { ...base.env, NODE_OPTIONS: '-r x' } },
      { envFile: '.env' },
    ];
    expect(new Set(changed.map(run)).size).toBe(changed.length);
  });
});
