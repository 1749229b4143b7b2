import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mcpProtectedCheck } from '../../src/core/agent/permissions/mcp-arguments-gate';
import { protectedTargets } from '../../src/core/agent/permissions/protected-targets';

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(tmpdir(), 'hookpilot-mcp-args-')));
  mkdirSync(path.join(ws, '.vscode'));
  writeFileSync(path.join(ws, '.vscode', 'hooks.json'), '{}');
  symlinkSync('loop', path.join(ws, 'loop'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const check = (input: Record<string, unknown>, protectedPaths = [path.join(ws, '.vscode', 'hooks.json')]) =>
  mcpProtectedCheck(
    input,
    { workspaceRoot: ws, cwd: ws },
    { targets: protectedTargets(protectedPaths, ws), reason: (hit) => `${hit.shown} is protected` },
  )?.verdict;

describe('an MCP call naming a protected file asks a person', () => {
  it.each([
    ['a value', () => ({ path: '.vscode/hooks.json' })],
    ['a padded path', () => ({ path: `${'./'.repeat(3000)}.vscode/hooks.json` })],
    ['an object key', () => ({ files: { '.vscode/hooks.json': '{}' } })],
    ['an option value', () => ({ args: ['--out=.vscode/hooks.json'] })],
    ['an upper-case file: URI', () => ({ uri: `FILE://${ws}/.vscode/hooks.json` })],
    ['the folder holding it', () => ({ path: '.vscode' })],
    ['a path too deep to resolve', () => ({ path: `${'./'.repeat(300_000)}.vscode/hooks.json` })],
    ['a path through a symlink loop', () => ({ path: 'loop/hooks.json' })],
  ])('%s', (_, input) => {
    expect(check(input())).toBe('ask');
  });

  it('a huge array asks past the cap instead of ending the turn; other files and contents do not ask', () => {
    expect(check({ paths: Array.from({ length: 200_000 }, () => 'notes.txt') })).toBe('ask');
    expect(check({ path: 'notes.txt', content: `${'x'.repeat(100_000)}\n.vscode/hooks.json` })).toBeUndefined();
  });

  it.each([
    ['up from a server base below the root', '../.vscode/hooks.json'],
    ['into a protected folder from such a base', '../../hooks/new.py'],
    ['with . and .. inside it', './sub/../../hooks/x/../new.py'],
    ['from a home folder the server expands', '~/.vscode/hooks.json'],
    ['from a server base inside the folder holding it', 'guard.js'],
  ])('a relative path read from any base the server may pick: %s', (_, relative) => {
    const protectedPaths = [path.join(ws, '.vscode', 'hooks.json'), path.join(ws, 'hooks') + path.sep, path.join(ws, 'src', 'guard.js')];
    expect(check({ path: relative }, protectedPaths)).toBe('ask');
    expect(check({ path: '../notes/guard.md' }, protectedPaths)).toBeUndefined();
  });
});
