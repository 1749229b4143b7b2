import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { protectedHookFiles } from '../../src/core/engine/protected-files';
import type { McpServerConfig } from '../../src/core/mcp/mcp-config';
import { mcpProtectedFiles } from '../../src/core/mcp/mcp-protected-files';
import { loadHooksDocument } from '../../src/core/hooks/config/config-loader';
import { hooksJson } from '../support/workspace';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'hookpilot-interpreter-')));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'server.py'), '');
  return dir;
}

const stdio = (command: string, args: string[], extra: Partial<McpServerConfig> = {}): McpServerConfig =>
  ({ name: 'x', transport: 'stdio', command, args, env: {}, source: { kind: 'workspace' }, ...extra }) as McpServerConfig;
const folder = (dir: string, ...names: string[]) => path.join(dir, ...names) + path.sep;

describe("what a server's or a hook's interpreter reads besides its script is protected", () => {
  it('module search paths and preloads in the env: PYTHONPATH and NODE_PATH folders, NODE_OPTIONS files', () => {
    const ws = workspace();
    const env = {
      PYTHONPATH: '${workspaceFolder}/src',
      NODE_PATH: 'lib',
      NODE_OPTIONS: '--max-old-space-size=64 --import ./otel.mjs -r ./pre.cjs',
    };
    const files = mcpProtectedFiles(ws, [stdio('python3', ['-m', 'myserver'], { env })], {});
    expect(files).toEqual(
      expect.arrayContaining([folder(ws, 'src'), folder(ws, 'lib'), path.join(ws, 'otel.mjs'), path.join(ws, 'pre.cjs')]),
    );
  });

  it("launchers' working-folder inputs: node_modules for package runners, pyproject and .venv for uv, bunfig and .env for bun", () => {
    const ws = workspace();
    expect(mcpProtectedFiles(ws, [stdio('npx', ['-y', '@modelcontextprotocol/server-filesystem'])], {})).toContain(
      folder(ws, 'node_modules'),
    );
    expect(mcpProtectedFiles(ws, [stdio('uv', ['run', 'server.py'])], {})).toEqual(
      expect.arrayContaining([path.join(ws, 'pyproject.toml'), path.join(ws, 'uv.lock'), folder(ws, '.venv')]),
    );
    expect(mcpProtectedFiles(ws, [stdio('bun', ['run', 'server.ts'])], {})).toEqual(
      expect.arrayContaining([path.join(ws, 'bunfig.toml'), path.join(ws, '.env'), folder(ws, 'node_modules')]),
    );
    expect(mcpProtectedFiles(ws, [stdio('node', ['--env-file=.env.server', 'server.js'])], {})).toContain(path.join(ws, '.env.server'));
    // The same flag spelled by another program is not a preload.
    expect(mcpProtectedFiles(ws, [stdio('grep', ['-r', 'pattern', '.'])], {})).not.toContain(path.join(ws, 'pattern'));
  });

  it('a launch that moves to another folder (cd, --prefix, --directory, -C) has its files looked for there', () => {
    const ws = workspace();
    mkdirSync(path.join(ws, 'srv'));
    for (const file of ['server.mjs', 'server.py', 'package.json']) writeFileSync(path.join(ws, 'srv', file), '{}');
    const protectedBy = (server: McpServerConfig) => mcpProtectedFiles(ws, [server], {});
    expect(protectedBy(stdio('sh', ['-c', 'cd srv && exec node server.mjs']))).toEqual(
      expect.arrayContaining([path.join(ws, 'srv', 'server.mjs'), folder(ws, 'srv')]),
    );
    expect(protectedBy(stdio('npm', ['--prefix', '${workspaceFolder}/srv', 'start']))).toContain(path.join(ws, 'srv', 'package.json'));
    expect(protectedBy(stdio('uv', ['--directory', 'srv', 'run', 'server.py']))).toEqual(
      expect.arrayContaining([path.join(ws, 'srv', 'server.py'), path.join(ws, 'srv', 'pyproject.toml'), folder(ws, 'srv', '.venv')]),
    );
    expect(protectedBy(stdio('make', ['-C', 'srv', 'run']))).toContain(path.join(ws, 'srv', 'Makefile'));
    for (const line of ['cd -- srv && node server.mjs', 'cd -P srv && node server.mjs', 'env --chdir=srv node server.mjs'])
      expect(protectedBy(stdio('sh', ['-c', line])), line).toContain(path.join(ws, 'srv', 'server.mjs'));
  });

  it('a formatter hook run in a package folder protects what it runs there, not the package its edits are for', () => {
    const ws = workspace();
    mkdirSync(path.join(ws, 'web', 'src'), { recursive: true });
    writeFileSync(path.join(ws, 'web', 'package.json'), '{"scripts": {"format": "prettier --write ."}}');
    writeFileSync(path.join(ws, 'web', 'Makefile'), 'fmt:\n\tprettier --write .\n');
    for (const command of ['cd web && npx prettier --write .', 'npm --prefix web run format', 'make -C web fmt']) {
      const document = hooksJson({ PostToolUse: [{ hooks: [{ type: 'command', command }] }] });
      const files = protectedHookFiles(
        ws,
        loadHooksDocument(document, { kind: 'hooksJson', file: path.join(ws, '.vscode/hooks.json') }).hooks,
      );
      expect(files, command).not.toContain(folder(ws, 'web'));
      expect(
        files.some((file) => file.startsWith(path.join(ws, 'web', 'src'))),
        command,
      ).toBe(false);
    }
  });

  it('the same for a command hook, in shell form, and nothing outside the workspace', () => {
    const ws = workspace();
    const env = { PYTHONPATH: '${CLAUDE_PROJECT_DIR}/hooks/lib:/opt/shared' };
    const document = hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: 'python3 -m guard', env }] }] });
    const files = protectedHookFiles(
      ws,
      loadHooksDocument(document, { kind: 'hooksJson', file: path.join(ws, '.vscode/hooks.json') }).hooks,
    );
    expect(files).toContain(folder(ws, 'hooks', 'lib'));
    expect(files.some((file) => file.startsWith('/opt/shared'))).toBe(false);
    // A plain python3 reads no project settings; a virtual environment it is run from decides what it imports.
    expect(files).not.toContain(folder(ws, '.venv'));
    const venvHook = hooksJson({
      PreToolUse: [{ hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.venv/bin/python guard.py' }] }],
    });
    const venvFiles = protectedHookFiles(
      ws,
      loadHooksDocument(venvHook, { kind: 'hooksJson', file: path.join(ws, '.vscode/hooks.json') }).hooks,
    );
    expect(venvFiles).toContain(folder(ws, '.venv'));
  });
});
