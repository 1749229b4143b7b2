import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withoutPrivateDirectories } from '../../src/core/agent/permissions/workspace-directories';

let base: string;
let home: string;
let root: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'ws-dirs-'));
  home = path.join(base, 'home');
  root = path.join(home, 'src', 'repo');
  mkdirSync(root, { recursive: true });
  mkdirSync(path.join(home, 'src', 'shared'));
  symlinkSync('/', path.join(root, 'escape'));
  symlinkSync(path.join(home, '.ssh'), path.join(root, 'keys'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("a workspace's additional directories", () => {
  it('keeps folders beside or inside the workspace, and refuses what holds the home folder, a folder above, or a dot-folder of home', () => {
    const listed = [
      '../shared',
      'sub',
      '.',
      '/',
      home,
      '..',
      '../..',
      `${home}/.ssh`,
      '../../.aws/creds',
      'escape',
      'keys',
      '/tmp/elsewhere',
    ];
    const { scope, refused } = withoutPrivateDirectories({ allow: ['Read'], additionalDirectories: listed }, { root, home });
    expect(scope.additionalDirectories).toEqual(['../shared', 'sub', '.', '/tmp/elsewhere']);
    expect(refused).toEqual(['/', home, '..', '../..', `${home}/.ssh`, '../../.aws/creds', 'escape', 'keys']);
    expect(scope.allow).toEqual(['Read']);
  });
});
