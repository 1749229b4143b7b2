import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermissionGate } from '../../src/core/agent/permissions/permission-gate';
import { permissionSettingsSchema } from '../../src/core/agent/permissions/permission-settings';
import { createBashTool } from '../../src/core/agent/tools/bash-tool';
import type { Tool } from '../../src/core/agent/tools/tool';

// Globs that spell a protected path as bash would expand them, in a workspace whose own name
// holds characters a glob library gives a meaning. Each asked case was allowed before.

let base: string;
let ws: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'protected-globs-')));
  ws = join(base, 'repo (copy) {1}');
  for (const dir of ['.git/hooks', '.vscode', 'hooks', 'src', 'pkg/dist']) mkdirSync(join(ws, dir), { recursive: true });
  writeFileSync(join(ws, '.git', 'config'), '[core]\n');
  writeFileSync(join(ws, '.vscode', 'hooks.json'), '{}');
  writeFileSync(join(ws, 'hooks', 'guard.py'), '');
  writeFileSync(join(ws, 'pkg', 'package.json'), '{}');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function run(command: string) {
  const gate = new PermissionGate(() => permissionSettingsSchema.parse({ mode: 'bypassPermissions' }));
  const protectedPaths = [join(ws, '.git') + sep, join(ws, '.vscode', 'hooks.json'), join(ws, 'hooks', 'guard.py')];
  return gate.evaluate(createBashTool() as unknown as Tool, { command }, undefined, { workspaceRoot: ws, cwd: ws, protectedPaths });
}

describe('a glob that spells a protected path asks, in every mode', () => {
  it.each([
    'cp x .g?t/config',
    'cp x .g?t/hooks/',
    'cp x .vscod?/hook?.json',
    'for d in .g?t/hooks; do cp x "$d/pre-commit"; done',
    'cp x .g[!x]t/hooks/pre-commit',
    'cp x hooks/guard.p[!x]',
    'cp ../payload .g{i..i}t/hooks/pre-commit',
    'cp x {.git,y}/config',
    'shopt -s extglob\ncp x .+(g|i|t)/config',
    'shopt -s extglob; cp x .@(g)it/config',
    'shopt -s nocaseglob; cp x .G?T/hooks/',
    'shopt -s dotglob; cp x */config',
    'ln -s . p && cp x p/.g?t/config',
  ])('%j', (command) => {
    expect(run(command), command).toMatchObject({ verdict: 'ask', system: true });
  });
});

describe('globs that cannot reach one are left alone', () => {
  it.each(['cat */package.json', 'rm -rf */dist', 'wc -l src/*.txt', 'ls */x', 'cp x "$d/y"', 'mkdir -p src/{a,b}', 'ln -s src s'])(
    '%j',
    (command) => {
      expect(run(command), command).toMatchObject({ verdict: 'allow' });
    },
  );
});
