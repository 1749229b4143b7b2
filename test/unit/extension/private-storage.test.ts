import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { privateStoragePaths } from '../../../src/extension/private-storage';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('privateStoragePaths', () => {
  it("is this window's storage, other workspaces' Hookpilot folders, the global storage and the CLI's", () => {
    dir = mkdtempSync(path.join(tmpdir(), 'private-storage-'));
    const workspaces = path.join(dir, 'User', 'workspaceStorage');
    const own = path.join(workspaces, 'aaa', 'hookpilot.hookpilot');
    const other = path.join(workspaces, 'bbb', 'hookpilot.hookpilot');
    for (const folder of [own, other, path.join(workspaces, 'ccc', 'another.extension')]) mkdirSync(folder, { recursive: true });
    const global = path.join(dir, 'User', 'globalStorage', 'hookpilot.hookpilot');
    const cli = path.join(dir, 'cli-home');
    expect(privateStoragePaths(own, global, { HOOKPILOT_HOME: cli }).sort()).toEqual(
      [own, global, other, cli].map((folder) => folder + path.sep).sort(),
    );
  });

  it('is its own storage, the global one and the CLI default outside a workspaceStorage folder', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'private-storage-'));
    const own = path.join(dir, 'globalStorage', 'hookpilot.hookpilot', 'no-workspace');
    const paths = privateStoragePaths(own, path.dirname(own), { HOME: dir });
    expect(paths).toContain(own + path.sep);
    expect(paths).toContain(path.dirname(own) + path.sep);
    expect(paths.at(-1)).toMatch(/\.hookpilot\/$/);
  });
});
