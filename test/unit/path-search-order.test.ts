import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveInWorkspace } from '../../src/core/agent/tools/workspace-paths';
import { withAgentWritablePathLast, withoutAgentWritablePath } from '../../src/core/process/path-search-order';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace and a folder beside it (outside it), both real. */
function layout(): { ws: string; outside: string } {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'hookpilot-path-order-')));
  dirs.push(base);
  const ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  mkdirSync(path.join(ws, 'bin'), { recursive: true });
  mkdirSync(path.join(outside, 'bin'), { recursive: true });
  return { ws, outside };
}

const joined = (...folders: string[]) => folders.join(path.delimiter);

/** Whether PATH searches `dir` after a folder outside every root. */
function isAgentWritablePathFolder(dir: string, roots: string[]): boolean {
  return withAgentWritablePathLast({ PATH: joined(dir, '/usr/bin') }, roots).PATH === joined('/usr/bin', dir);
}

describe('withAgentWritablePathLast', () => {
  it('searches relative, empty and workspace folders after the others, each group in its own order', () => {
    const { ws, outside } = layout();
    const env = {
      PATH: joined(`${ws}/bin`, '/usr/bin', '.', `${outside}/bin`, '', `${ws}/node_modules/.bin`, 'tools', '/bin'),
      HOME: '/home/x',
    };
    const ordered = withAgentWritablePathLast(env, [ws]);
    expect(ordered.PATH).toBe(joined('/usr/bin', `${outside}/bin`, '/bin', `${ws}/bin`, '.', '', `${ws}/node_modules/.bin`, 'tools'));
    expect(ordered.HOME).toBe('/home/x');
    expect(env.PATH.startsWith(`${ws}/bin`)).toBe(true);
  });

  it('returns the same object when no folder moves, and leaves an env without PATH alone', () => {
    const { ws, outside } = layout();
    const env = { PATH: joined('/usr/bin', `${outside}/bin`, `${ws}/bin`) };
    expect(withAgentWritablePathLast(env, [ws])).toBe(env);
    const none = { HOME: '/h' };
    expect(withAgentWritablePathLast(none, [ws])).toBe(none);
  });

  it("leaves the writable folders out altogether for Hookpilot's own programs", () => {
    const { ws, outside } = layout();
    const env = { PATH: joined(`${ws}/bin`, '/usr/bin', '.', `${outside}/bin`) };
    expect(withoutAgentWritablePath(env, [ws]).PATH).toBe(joined('/usr/bin', `${outside}/bin`));
  });

  it('counts every root: an additional directory is as writable as the workspace', () => {
    const { ws, outside } = layout();
    const env = { PATH: joined(`${outside}/bin`, '/usr/bin') };
    expect(withAgentWritablePathLast(env, [ws]).PATH).toBe(env.PATH);
    expect(withAgentWritablePathLast(env, [ws, outside]).PATH).toBe(joined('/usr/bin', `${outside}/bin`));
  });
});

describe('isAgentWritablePathFolder', () => {
  it('follows links: a folder outside that leads into the workspace is writable, and so is one reached through the workspace', () => {
    const { ws, outside } = layout();
    symlinkSync(path.join(ws, 'bin'), path.join(outside, 'into-ws'));
    expect(isAgentWritablePathFolder(path.join(outside, 'into-ws'), [ws])).toBe(true);
    // The workspace's link points outside today; the model may point it elsewhere tomorrow.
    symlinkSync(path.join(outside, 'bin'), path.join(ws, 'out-link'));
    symlinkSync(path.join(ws, 'out-link'), path.join(outside, 'via-ws'));
    expect(isAgentWritablePathFolder(path.join(outside, 'via-ws'), [ws])).toBe(true);
    expect(isAgentWritablePathFolder(path.join(outside, 'bin'), [ws])).toBe(false);
  });

  it('resolves `..` after a link as the kernel does, not as path.resolve would', () => {
    const { ws, outside } = layout();
    mkdirSync(path.join(ws, 'sub'));
    symlinkSync(path.join(ws, 'sub'), path.join(outside, 'link'));
    // path.resolve says <outside>/bin; the kernel goes to <ws>/bin.
    expect(isAgentWritablePathFolder(`${outside}/link/../bin`, [ws])).toBe(true);
    expect(isAgentWritablePathFolder(`${outside}/bin/../bin`, [ws])).toBe(false);
  });

  it('finds a workspace reached through a link to it, and a folder that does not exist yet inside it', () => {
    const { ws, outside } = layout();
    symlinkSync(ws, path.join(outside, 'ws-link'));
    expect(isAgentWritablePathFolder(path.join(ws, 'bin'), [path.join(outside, 'ws-link')])).toBe(true);
    expect(isAgentWritablePathFolder(path.join(ws, 'not-yet', 'bin'), [ws])).toBe(true);
    expect(isAgentWritablePathFolder(path.join(outside, 'not-yet', 'bin'), [ws])).toBe(false);
  });

  it('takes a folder behind a link loop as writable: it cannot be shown to be outside', () => {
    const { ws, outside } = layout();
    symlinkSync(path.join(outside, 'loop-b'), path.join(outside, 'loop-a'));
    symlinkSync(path.join(outside, 'loop-a'), path.join(outside, 'loop-b'));
    expect(isAgentWritablePathFolder(path.join(outside, 'loop-a'), [ws])).toBe(true);
  });

  it('does not let the agent move a root that lies in another: the outer root decides, now and later', () => {
    const { ws, outside } = layout();
    const extra = path.join(ws, 'extra');
    mkdirSync(extra);
    const env = { PATH: joined(`${ws}/bin`, `${outside}/bin`) };
    expect(withAgentWritablePathLast(env, [ws, extra]).PATH).toBe(joined(`${outside}/bin`, `${ws}/bin`));
    // The model swaps the nested root for a link to a folder outside.
    rmSync(extra, { recursive: true });
    symlinkSync(outside, extra);
    expect(withAgentWritablePathLast({ ...env, HOME: 'fresh' }, [ws, extra]).PATH).toBe(joined(`${outside}/bin`, `${ws}/bin`));
    const scope = { workspaceRoot: ws, cwd: ws, additionalDirectories: [extra] };
    expect(() => resolveInWorkspace(path.join(extra, 'bin', 'jq'), scope)).toThrow(/outside/);
    // A link loop in its place resolves to nothing, and throws nowhere.
    rmSync(extra);
    symlinkSync(extra, extra);
    expect(withAgentWritablePathLast({ PATH: joined(`${outside}/bin`, `${ws}/bin`) }, [ws, extra]).PATH).toBe(
      joined(`${outside}/bin`, `${ws}/bin`),
    );
    expect(() => resolveInWorkspace(path.join(ws, 'file.txt'), scope)).not.toThrow();
  });

  it('leaves out an additional directory reached through a link inside the workspace', () => {
    const { ws, outside } = layout();
    mkdirSync(path.join(ws, 'shared'));
    // The user's own link outside, to a folder of the workspace the model may later swap.
    symlinkSync(path.join(ws, 'shared'), path.join(outside, 'shared-link'));
    rmSync(path.join(ws, 'shared'), { recursive: true });
    symlinkSync(path.join(outside, 'bin'), path.join(ws, 'shared'));
    writeFileSync(path.join(outside, 'bin', 'jq'), '');
    const scope = { workspaceRoot: ws, cwd: ws, additionalDirectories: [path.join(outside, 'shared-link')] };
    expect(() => resolveInWorkspace(path.join(outside, 'bin', 'jq'), scope)).toThrow(/outside/);
  });

  it('counts two names of one folder once: a workspace reached through a link and its real folder both stay roots', () => {
    const { ws, outside } = layout();
    const link = path.join(outside, 'ws-link');
    symlinkSync(ws, link);
    writeFileSync(path.join(ws, 'notes.txt'), '');
    for (const [workspaceRoot, additional] of [
      [link, ws],
      [ws, link],
    ]) {
      const scope = { workspaceRoot, cwd: workspaceRoot, additionalDirectories: [additional] };
      expect(resolveInWorkspace(path.join(workspaceRoot, 'notes.txt'), scope)).toBe(path.join(ws, 'notes.txt'));
      expect(isAgentWritablePathFolder(path.join(ws, 'bin'), [workspaceRoot, additional])).toBe(true);
      expect(withoutAgentWritablePath({ PATH: joined(`${ws}/bin`, '/usr/bin') }, [workspaceRoot, additional]).PATH).toBe('/usr/bin');
    }
  });
});

describe('withoutAgentWritablePath', () => {
  it('leaves no PATH at all when every folder is writable: an empty PATH would search the working directory', () => {
    const { ws } = layout();
    const env = withoutAgentWritablePath({ PATH: joined(`${ws}/bin`, '.'), HOME: '/h' }, [ws]);
    expect(env).toEqual({ HOME: '/h' });
    expect('PATH' in env).toBe(false);
  });
});
