import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stub, Uri } from '../../support/vscode-stub';
import { hooksJson } from '../../support/workspace';
import { startHost, until, type HostHarness } from './extension-harness';

// The agent plants an MCP server by a route the protected-path check does not see (a script a
// person let run, a process left behind): the server would start with the user's whole
// environment, outside every hook. The workspace's MCP files are held like hooks.json until a
// person applies the change.

const FIXTURE = path.resolve(__dirname, '../../fixtures/mcp/misbehaving-server.mjs');

let h: HostHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** An MCP file whose server `name` writes its pid to `<name>.pid` in the workspace when it starts. */
const mcpJson = (name: string, key: 'mcpServers' | 'servers' = 'mcpServers') =>
  JSON.stringify({
    [key]: { [name]: { command: process.execPath, args: [FIXTURE], env: { MCP_FIXTURE_PID_FILE: `\${workspaceFolder}/${name}.pid` } } },
  });
const started = (name: string) => existsSync(h!.workspace.file(`${name}.pid`));
const held = () => h?.root.engineHost.pendingChanges ?? [];
const mcpWatcher = () => stub.state.watchers.find((w) => w.pattern === '{**/.mcp.json,**/.vscode/mcp.json}')!;
/** Writes `rel` in the workspace as any process could, with no editor involved. */
function write(rel: string, content: string): string {
  const file = h!.workspace.file(rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}
/** What a new chat does first: start the servers, and wait until they have. */
const startServers = () => stub.state.commands.get('hookpilot.showMcpServers')!();

/** The agent's script writes the file; VS Code's watcher reports it. */
function plant(rel: string, content: string): void {
  const file = write(rel, content);
  mcpWatcher().changed.fire(Uri.file(file));
}

describe('the workspace MCP files changed outside the editor', () => {
  it('a planted .mcp.json is held with its diff, and its server does not start, not even after a window reload', async () => {
    h = await startHost({});
    await startServers();
    plant('.mcp.json', mcpJson('planted'));
    const [change] = await until(() => held().length > 0 && held(), 'the held change');
    expect(change).toMatchObject({ label: '.mcp.json', governs: 'mcpServers', appliedText: undefined, newText: mcpJson('planted') });
    expect(change.diff).toContain('"planted"');
    const question = await until(
      () => stub.state.messages.find((m) => m.level === 'warning' && m.message.includes(': .mcp.json.')),
      'the question',
    );
    // It says what the file configures, and what stays in force meanwhile.
    expect(question.message).toMatch(
      /^MCP server configuration changed on disk outside the editor: \.mcp\.json\. Hookpilot keeps the MCP servers applied before/,
    );

    await startServers();
    await h.restart();
    await startServers();
    expect(held().map((c) => c.label)).toEqual(['.mcp.json']);
    expect(started('planted')).toBe(false);
  });

  it('granting trust starts the applied servers only, not one a held change adds', async () => {
    h = await startHost({ '.mcp.json': mcpJson('team') }, { trusted: false });
    await startServers();
    plant('.mcp.json', mcpJson('planted'));
    await until(() => held().length > 0, 'the held change');
    stub.setTrusted(true);
    await until(() => started('team'), 'the applied server to start on the trust grant');
    await startServers();
    expect(started('planted')).toBe(false);
  });

  it('MCP files written while no window watched are held at the next activation, and start nothing', async () => {
    h = await startHost({});
    await h.restart({
      beforeStart: () => {
        write('.mcp.json', mcpJson('planted'));
        write('.vscode/mcp.json', mcpJson('other', 'servers'));
      },
    });
    await startServers();
    expect(
      held()
        .map((c) => c.label)
        .sort(),
    ).toEqual(['.mcp.json', '.vscode/mcp.json']);
    expect(started('planted') || started('other')).toBe(false);
  });

  it('Apply starts the server at once: the running servers restart from the applied file', async () => {
    h = await startHost({});
    await startServers();
    plant('.mcp.json', mcpJson('planted'));
    const [change] = await until(() => held().length > 0 && held(), 'the held change');
    await h.root.engineHost.applyPending(change.id);
    await until(() => started('planted'), 'the applied server to start');
    expect(held()).toEqual([]);
  });

  it('Discard keeps the server out, across a window reload too', async () => {
    h = await startHost({ '.mcp.json': mcpJson('team') });
    await startServers();
    await until(() => started('team'), 'the applied server');
    plant('.mcp.json', mcpJson('planted'));
    const [change] = await until(() => held().length > 0 && held(), 'the held change');
    h.root.engineHost.discardPending(change.id);
    await h.restart();
    await startServers();
    expect(held()).toEqual([]);
    expect(started('planted')).toBe(false);
    expect(readFileSync(h.workspace.file('team.pid'), 'utf8')).toMatch(/^\d+$/);
  });

  it('a save from the editor applies at once: the saved server starts with no question', async () => {
    h = await startHost({});
    await startServers();
    const file = write('.vscode/mcp.json', '');
    stub.saveDocument(file, mcpJson('mine', 'servers'));
    mcpWatcher().changed.fire(Uri.file(file));
    await until(() => started('mine'), 'the saved server to start');
    expect(held()).toEqual([]);
    expect(stub.state.messages.filter((m) => m.level === 'warning')).toEqual([]);
  });

  it('a save runs the ConfigChange hooks as a project_settings change; a block keeps it held', async () => {
    const block = `const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.writeFileSync(require('path').join(input.cwd, 'config-change.json'), JSON.stringify(input));
process.stderr.write('no new MCP servers'); process.exit(2);
`;
    h = await startHost({
      '.vscode/hooks.json': hooksJson({ ConfigChange: [{ hooks: [{ type: 'command', command: 'node hooks/block.js', name: 'no-mcp' }] }] }),
      'hooks/block.js': block,
    });
    await startServers();
    const file = h.workspace.file('.mcp.json');
    stub.saveDocument(file, mcpJson('mine'));
    mcpWatcher().changed.fire(Uri.file(file));
    const [change] = await until(() => held().length > 0 && held(), 'the blocked change');
    expect(change.blockedBy).toMatchObject({ hookName: 'no-mcp', reason: 'no new MCP servers' });
    const payload = JSON.parse(readFileSync(h.workspace.file('config-change.json'), 'utf8')) as Record<string, unknown>;
    expect(payload).toMatchObject({ source: 'project_settings', file_path: file, new_content: mcpJson('mine') });
    await startServers();
    expect(started('mine')).toBe(false);
  });
});

describe('what is wrong in the workspace MCP files', () => {
  it('shows with the other configuration problems (Hook Manager, editor), not only in the log', async () => {
    h = await startHost({ '.mcp.json': '{"mcpServers": {"broken": {"command": 42}' });
    const file = h.workspace.file('.mcp.json');
    const problems = h.root.engineHost.engine.problems.filter((p) => p.file === file);
    expect(problems.map((p) => p.code)).toEqual(expect.arrayContaining(['syntax']));
    expect(problems.every((p) => p.sourceKind === 'workspace')).toBe(true);
  });

  it('an MCP file that cannot be read is a problem that says the servers applied before stay', async () => {
    h = await startHost({ '.mcp.json': mcpJson('team') });
    const file = h.workspace.file('.mcp.json');
    rmSync(file);
    mkdirSync(file);
    mcpWatcher().changed.fire(Uri.file(file));
    const problem = await until(
      () => h!.root.engineHost.engine.problems.find((p) => p.file === file && p.code === 'unreadable'),
      'the problem',
    );
    expect(problem.message).toMatch(/^cannot read \.mcp\.json: .+; the configuration applied before stays in force$/);
    expect(held()).toEqual([]);
  });
});
