import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createScratchWorkspace } from '../../src/core/replay/scratch-workspace';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const parent = mkdtempSync(path.join(tmpdir(), 'hookpilot-scratch-src-'));
  dirs.push(parent);
  const ws = path.join(parent, 'project');
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    writeFileSync(path.join(ws, rel), content);
  }
  return ws;
}

describe('createScratchWorkspace', () => {
  it('copies the workspace without .git, keeps links as links, and links the siblings its hook configuration names', async () => {
    const ws = tree({
      'src/a.js': 'a',
      '.git/objects/ab/cdef': 'object',
      'node_modules/pkg/index.js': 'small',
      '.vscode/hooks.json': JSON.stringify({ servers: { p: { command: ['node', '../policy/server.js'] } } }),
      '../policy/server.js': 'server',
      '../secrets/key': 'not named',
    });
    symlinkSync('src/a.js', path.join(ws, 'link'));
    const scratch = await createScratchWorkspace(ws);
    try {
      expect(path.basename(scratch.dir)).toBe('project');
      expect(readFileSync(path.join(scratch.dir, 'src/a.js'), 'utf8')).toBe('a');
      expect(readFileSync(path.join(scratch.dir, 'node_modules/pkg/index.js'), 'utf8')).toBe('small');
      expect(existsSync(path.join(scratch.dir, '.git'))).toBe(false);
      expect(scratch.skipped).toEqual(['.git/']);
      expect(readlinkSync(path.join(scratch.dir, 'link'))).toBe('src/a.js');
      const sibling = path.join(path.dirname(scratch.dir), 'policy');
      expect(lstatSync(sibling).isSymbolicLink()).toBe(true);
      expect(readFileSync(path.join(sibling, 'server.js'), 'utf8')).toBe('server');
      expect(existsSync(path.join(path.dirname(scratch.dir), 'secrets'))).toBe(false);
    } finally {
      await scratch.dispose();
    }
    expect(existsSync(scratch.dir)).toBe(false);
  });

  it('points a relative link out of the workspace at its target, and keeps one inside as written', async () => {
    const ws = tree({ 'src/a.js': 'a', '../shared/hooks.json': 'shared' });
    mkdirSync(path.join(ws, '.vscode'));
    symlinkSync('../../shared/hooks.json', path.join(ws, '.vscode/hooks.json'));
    symlinkSync('../src/a.js', path.join(ws, '.vscode/inside'));
    const scratch = await createScratchWorkspace(ws);
    try {
      const shared = path.join(realpathSync(path.dirname(ws)), 'shared/hooks.json');
      expect(readlinkSync(path.join(scratch.dir, '.vscode/hooks.json'))).toBe(shared);
      expect(readFileSync(path.join(scratch.dir, '.vscode/hooks.json'), 'utf8')).toBe('shared');
      expect(readlinkSync(path.join(scratch.dir, '.vscode/inside'))).toBe('../src/a.js');
    } finally {
      await scratch.dispose();
    }
  });

  it('leaves out a large node_modules and refuses a workspace over its budget, leaving nothing behind', async () => {
    const ws = tree({ 'node_modules/big.bin': 'x'.repeat(2048), 'src/a.js': 'a' });
    const scratch = await createScratchWorkspace(ws, { maxNodeModulesBytes: 1024 });
    try {
      expect(scratch.skipped).toEqual(['node_modules/ (over 1024 bytes)']);
      expect(existsSync(path.join(scratch.dir, 'node_modules'))).toBe(false);
    } finally {
      await scratch.dispose();
    }
    const tmp = mkdtempSync(path.join(tmpdir(), 'hookpilot-scratch-tmp-'));
    dirs.push(tmp);
    await expect(createScratchWorkspace(tree({ 'a.bin': 'x'.repeat(4096) }), { maxBytes: 1024, tmpDir: tmp })).rejects.toThrow(
      /larger than 1024 bytes: too large to copy for a replay/,
    );
    await expect(createScratchWorkspace(tree({ a: '', b: '', c: '' }), { maxEntries: 2, tmpDir: tmp })).rejects.toThrow(
      /more than 2 files/,
    );
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a cancelled replay stops copying and leaves nothing behind', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'hookpilot-scratch-tmp-'));
    dirs.push(tmp);
    const controller = new AbortController();
    controller.abort();
    await expect(createScratchWorkspace(tree({ 'a.js': 'a', 'b.js': 'b' }), { tmpDir: tmp, signal: controller.signal })).rejects.toThrow(
      /the replay was cancelled while .* was being copied/,
    );
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('leaves out a .git file (a worktree) and a .git link at any depth: git in the copy cannot reach the real repository', async () => {
    const parent = realpathSync(mkdtempSync(path.join(tmpdir(), 'hookpilot-scratch-git-')));
    dirs.push(parent);
    const git = (cwd: string, ...args: string[]) => {
      const env: NodeJS.ProcessEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t' };
      Object.assign(env, { GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' });
      for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_CEILING_DIRECTORIES']) delete env[name];
      return spawnSync('git', args, { cwd, env, encoding: 'utf8' });
    };
    const repo = path.join(parent, 'repo');
    mkdirSync(repo);
    expect(git(repo, 'init', '-q').status).toBe(0);
    expect(git(repo, 'commit', '-q', '--allow-empty', '-m', 'first').status).toBe(0);
    const wt = path.join(parent, 'wt');
    expect(git(repo, 'worktree', 'add', '-q', wt).status).toBe(0);
    expect(lstatSync(path.join(wt, '.git')).isFile()).toBe(true);
    // A nested folder whose .git is a link to the real repository's.
    mkdirSync(path.join(wt, 'sub'));
    writeFileSync(path.join(wt, 'sub/a.txt'), 'a');
    symlinkSync(path.join(repo, '.git'), path.join(wt, 'sub/.git'));

    const scratch = await createScratchWorkspace(wt);
    try {
      expect(existsSync(path.join(scratch.dir, 'sub/a.txt'))).toBe(true);
      expect(scratch.skipped.sort()).toEqual(['.git', 'sub/.git']);
      for (const dir of [scratch.dir, path.join(scratch.dir, 'sub')]) {
        expect(() => lstatSync(path.join(dir, '.git'))).toThrow();
        const found = git(dir, 'rev-parse', '--absolute-git-dir');
        // No repository, or (were one made by the replay) one inside the copy.
        if (found.status === 0) expect(found.stdout.trim().startsWith(path.dirname(scratch.dir))).toBe(true);
        else expect(found.stderr).toMatch(/not a git repository/);
      }
    } finally {
      await scratch.dispose();
    }
  });
});
