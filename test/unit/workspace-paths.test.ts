import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HardLinkError,
  OutsideWorkspaceError,
  isWithin,
  physicalPath,
  physicalPathOf,
  resolveInWorkspace,
  toAbsolutePath,
} from '../../src/core/agent/tools/workspace-paths';

let base: string;
let workspace: string;
let outside: string;

beforeEach(() => {
  // realpath: the temp dir may itself sit behind a symlink (macOS /var -> /private/var).
  base = realpathSync(mkdtempSync(join(tmpdir(), 'workspace-paths-')));
  workspace = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'secret');
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

const scope = (extra: { cwd?: string; additionalDirectories?: string[] } = {}) => ({
  workspaceRoot: workspace,
  cwd: extra.cwd ?? workspace,
  ...extra,
});

describe('toAbsolutePath', () => {
  it('expands ~ and resolves relative paths against cwd', () => {
    expect(toAbsolutePath('~', '/x')).toBe(homedir());
    expect(toAbsolutePath('~/notes.md', '/x')).toBe(join(homedir(), 'notes.md'));
    expect(toAbsolutePath('a/../b.txt', '/x/y')).toBe('/x/y/b.txt');
    expect(toAbsolutePath('/abs/file', '/x')).toBe('/abs/file');
  });
});

describe('isWithin', () => {
  it('treats the root itself and descendants as inside, siblings and parents as outside', () => {
    expect(isWithin('/w', '/w')).toBe(true);
    expect(isWithin('/w', '/w/a/b')).toBe(true);
    expect(isWithin('/w', '/w/..hidden')).toBe(true);
    expect(isWithin('/w', '/')).toBe(false);
    expect(isWithin('/w', '/wx/a')).toBe(false);
    expect(isWithin('/w', '/other')).toBe(false);
  });
});

describe('resolveInWorkspace', () => {
  it('resolves relative paths against cwd and returns absolute paths', () => {
    expect(resolveInWorkspace('a.txt', scope({ cwd: join(workspace, 'src') }))).toBe(join(workspace, 'src', 'a.txt'));
    expect(resolveInWorkspace(join(workspace, 'new', 'deep', 'file.ts'), scope())).toBe(join(workspace, 'new', 'deep', 'file.ts'));
    expect(resolveInWorkspace('.', scope())).toBe(workspace);
  });

  it('refuses .. escapes and absolute paths outside the workspace', () => {
    expect(() => resolveInWorkspace('../outside/secret.txt', scope())).toThrow(OutsideWorkspaceError);
    expect(() => resolveInWorkspace('src/../../outside/secret.txt', scope())).toThrow(
      /^path outside the workspace: src\/\.\.\/\.\.\/outside\/secret\.txt/,
    );
    expect(() => resolveInWorkspace(join(outside, 'secret.txt'), scope())).toThrow(/path outside the workspace/);
    expect(() => resolveInWorkspace('/etc/passwd', scope())).toThrow(/path outside the workspace/);
  });

  it('refuses a symlinked directory that points outside, even for files that do not exist yet', () => {
    symlinkSync(outside, join(workspace, 'escape'));
    expect(() => resolveInWorkspace('escape/secret.txt', scope())).toThrow(/symlink/);
    expect(() => resolveInWorkspace('escape/new/file.txt', scope())).toThrow(OutsideWorkspaceError);
  });

  it('refuses a symlinked file and a dangling symlink that point outside', () => {
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'link.txt'));
    symlinkSync(join(outside, 'not-yet.txt'), join(workspace, 'dangling.txt'));
    expect(() => resolveInWorkspace('link.txt', scope())).toThrow(OutsideWorkspaceError);
    expect(() => resolveInWorkspace('dangling.txt', scope())).toThrow(OutsideWorkspaceError);
  });

  it('allows symlinks that stay inside the workspace, and returns the physical path to act on', () => {
    writeFileSync(join(workspace, 'src', 'real.txt'), 'x');
    symlinkSync(join(workspace, 'src'), join(workspace, 'alias'));
    symlinkSync(join(workspace, 'src', 'real.txt'), join(workspace, 'file-alias.txt'));
    expect(resolveInWorkspace('alias/real.txt', scope())).toBe(join(workspace, 'src', 'real.txt'));
    expect(resolveInWorkspace('file-alias.txt', scope())).toBe(join(workspace, 'src', 'real.txt'));
    expect(resolveInWorkspace('alias/new/file.txt', scope())).toBe(join(workspace, 'src', 'new', 'file.txt'));
  });

  it('resolves .. after a symlink as the kernel does: from the link target', () => {
    mkdirSync(join(outside, 'sub'));
    symlinkSync(join(outside, 'sub'), join(workspace, 'link'));
    writeFileSync(join(workspace, 'secret.txt'), 'not this one');
    // path.resolve would say link/../secret.txt is the workspace's secret.txt; open(2) reaches outside/secret.txt.
    expect(() => resolveInWorkspace('link/../secret.txt', scope())).toThrow(OutsideWorkspaceError);
    expect(physicalPathOf('link/../new/file.txt', workspace)).toBe(join(outside, 'new', 'file.txt'));
  });

  it('refuses a regular file with several hard links: its other names may be outside', () => {
    linkSync(join(outside, 'secret.txt'), join(workspace, 'innocent.txt'));
    expect(() => resolveInWorkspace('innocent.txt', scope())).toThrow(HardLinkError);
    expect(() => resolveInWorkspace('innocent.txt', scope())).toThrow(/2 hard links.*outside the workspace/);
    // Directories always have several links; they are not refused for it.
    expect(resolveInWorkspace('src', scope())).toBe(join(workspace, 'src'));
  });

  it('allows additional directories', () => {
    const withExtra = scope({ additionalDirectories: [outside] });
    expect(resolveInWorkspace('../outside/secret.txt', withExtra)).toBe(join(outside, 'secret.txt'));
    symlinkSync(outside, join(workspace, 'escape'));
    expect(resolveInWorkspace('escape/secret.txt', withExtra)).toBe(join(outside, 'secret.txt'));
  });

  it('physicalPath: a missing name resolves through its parent, past links, a dangling link and a file on the way', () => {
    symlinkSync(join(workspace, 'src'), join(workspace, 'alias'));
    symlinkSync(join(workspace, 'alias', 'target.txt'), join(workspace, 'dangling.txt'));
    writeFileSync(join(workspace, 'file.txt'), 'x');
    expect(physicalPath(join(workspace, 'alias', 'missing', 'hooks.json'))).toBe(join(workspace, 'src', 'missing', 'hooks.json'));
    expect(physicalPath(join(workspace, 'dangling.txt'))).toBe(join(workspace, 'src', 'target.txt'));
    expect(physicalPath(join(workspace, 'file.txt', 'below'))).toBe(join(workspace, 'file.txt', 'below'));
    expect(physicalPath(join(workspace, 'alias'))).toBe(join(workspace, 'src'));
  });

  it('stops on symlink loops instead of recursing forever', () => {
    symlinkSync(join(workspace, 'loop-b'), join(workspace, 'loop-a'));
    symlinkSync(join(workspace, 'loop-a'), join(workspace, 'loop-b'));
    expect(() => physicalPath(join(workspace, 'loop-a', 'x'))).toThrow(/too many levels of symbolic links/);
  });

  it('resolves a path of thousands of names without a stack frame per name, and refuses one of too many names', () => {
    const deep = Array<string>(10_000).fill('x');
    expect(physicalPath(join(workspace, 'src', ...deep))).toBe(join(workspace, 'src', ...deep));
    expect(physicalPathOf(`${'./'.repeat(4_000)}src/missing`, workspace)).toBe(join(workspace, 'src', 'missing'));
    const tooDeep = `${'./'.repeat(300_000)}src`;
    expect(() => physicalPathOf(tooDeep, workspace)).toThrow(/path too long to resolve \(more than 4096 names\)/);
    expect(() => resolveInWorkspace(tooDeep, { workspaceRoot: workspace, cwd: workspace })).toThrow(/path too long to resolve/);
  });

  it('physicalPathOf: after a missing name or a dangling link the rest is read as written, .. included', () => {
    symlinkSync(join(outside, 'not-yet'), join(workspace, 'dangling'));
    expect(physicalPathOf('dangling/child/file', workspace)).toBe(join(outside, 'not-yet', 'child', 'file'));
    expect(physicalPathOf('dangling/../secret.txt', workspace)).toBe(join(outside, 'secret.txt'));
    expect(physicalPathOf('m1/m2/../m3/./x', workspace)).toBe(join(workspace, 'm1', 'm3', 'x'));
    expect(physicalPathOf('m1/../../x', workspace)).toBe(join(base, 'x'));
    const missingChain = Array<string>(4_000).fill('a').join('/');
    expect(physicalPathOf(`${missingChain}/.vscode/hooks.json`, workspace)).toBe(join(workspace, missingChain, '.vscode', 'hooks.json'));
  }, 5_000);

  it('a dangling link whose target climbs out of another link with .. leads where the kernel would write', () => {
    mkdirSync(join(workspace, 'm'), { recursive: true });
    mkdirSync(join(outside, 'o1', 'o2'), { recursive: true });
    symlinkSync(join(outside, 'o1', 'o2'), join(workspace, 'm', 'lo'));
    symlinkSync('m/lo/../nn', join(workspace, 'dl'));
    expect(physicalPathOf('dl', workspace)).toBe(join(outside, 'o1', 'nn'));
    expect(() => resolveInWorkspace('dl', { workspaceRoot: workspace, cwd: workspace })).toThrow(OutsideWorkspaceError);
    symlinkSync('x/../loop-2', join(workspace, 'loop-1'));
    symlinkSync('x/../loop-1', join(workspace, 'loop-2'));
    expect(() => physicalPathOf('loop-1', workspace)).toThrow(/too many levels of symbolic links/);
  });
});
