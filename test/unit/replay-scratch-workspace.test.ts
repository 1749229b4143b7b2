import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
    await expect(createScratchWorkspace(tree({ 'a.bin': 'x'.repeat(4096) }), { maxBytes: 1024, tmpDir: tmp })).rejects.toThrow(/larger than 1024 bytes: too large to copy for a replay/);
    await expect(createScratchWorkspace(tree({ a: '', b: '', c: '' }), { maxEntries: 2, tmpDir: tmp })).rejects.toThrow(/more than 2 files/);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
