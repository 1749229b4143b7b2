import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { besideWorkspaceOnly } from '../../src/core/agent/permissions/workspace-directories';

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
  it('keeps folders beside the workspace, and refuses the rest: above it, the home folder and what it holds, system folders', () => {
    const listed = [
      '../shared',
      '../shared/lib',
      'sub',
      '.',
      '/',
      home,
      '..',
      '../..',
      '../../bin',
      `${home}/.ssh`,
      '../../.aws/creds',
      'escape',
      'keys',
      '/tmp/elsewhere',
      '/proc',
      '/proc/self/cwd/..',
      '/etc',
    ];
    const { scope, refused } = besideWorkspaceOnly({ allow: ['Read'], additionalDirectories: listed }, { root, home });
    expect(scope.additionalDirectories).toEqual(['../shared', '../shared/lib', 'sub']);
    expect(refused).toEqual(listed.slice(3));
    expect(scope.allow).toEqual(['Read']);
  });

  it("keeps no folder beside a workspace that lies directly in the home folder: its neighbours are the home folder's", () => {
    const inHome = path.join(home, 'repo');
    mkdirSync(inHome);
    const { scope, refused } = besideWorkspaceOnly({ additionalDirectories: ['../bin', '../Library', 'sub'] }, { root: inHome, home });
    expect(scope.additionalDirectories).toEqual(['sub']);
    expect(refused).toEqual(['../bin', '../Library']);
  });
});
