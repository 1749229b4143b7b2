import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchedNames } from '../../src/core/agent/file-changed-hooks';
import { MAX_WATCHED_FILES, WatchedFiles } from '../../src/core/agent/watched-files';
import { parseHookOutput } from '../../src/core/hooks/protocol/output';

const disposables: Array<{ dispose(): void }> = [];
const dirs: string[] = [];
afterEach(() => {
  for (const item of disposables.splice(0)) item.dispose();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the files a FileChanged matcher watches', () => {
  it('are its names split on |, each a file of the folder; `*` is a file named *, a path or . / .. is none', () => {
    expect(watchedNames('.envrc|.env')).toEqual(['.envrc', '.env']);
    expect(watchedNames(' package.json | tsconfig.json ')).toEqual(['package.json', 'tsconfig.json']);
    expect(watchedNames('*')).toEqual(['*']);
    expect(watchedNames('config/app.json|..|.|a\0b|ok')).toEqual(['ok']);
    expect(watchedNames(undefined)).toEqual([]);
    expect(watchedNames('')).toEqual([]);
  });
});

describe('watchPaths in hook output', () => {
  const watchPaths = (event: 'SessionStart' | 'FileChanged' | 'PreToolUse') =>
    parseHookOutput(event, { hookSpecificOutput: { hookEventName: event, watchPaths: ['/a', 'b'] } });

  it('are read from SessionStart and FileChanged answers only', () => {
    expect(watchPaths('SessionStart')).toEqual({ ok: true, effects: { watchPaths: ['/a', 'b'] } });
    expect(watchPaths('FileChanged')).toEqual({ ok: true, effects: { watchPaths: ['/a', 'b'] } });
    expect(watchPaths('PreToolUse')).toEqual({ ok: true, effects: {} });
  });

  it('must be a list of paths: another shape is an invalid answer', () => {
    const invalid = parseHookOutput('FileChanged', { hookSpecificOutput: { hookEventName: 'FileChanged', watchPaths: '/a' } });
    expect(invalid.ok).toBe(false);
    const tooMany = Array.from({ length: 10_001 }, (_, i) => `/f${i}`);
    expect(parseHookOutput('FileChanged', { hookSpecificOutput: { hookEventName: 'FileChanged', watchPaths: tooMany } }).ok).toBe(false);
  });
});

describe('WatchedFiles', () => {
  it(`watches at most ${MAX_WATCHED_FILES} files, and says so`, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-watch-'));
    dirs.push(dir);
    const warnings: string[] = [];
    const files = new WatchedFiles({ onChange: async () => undefined, warn: (message) => warnings.push(message) });
    disposables.push(files);
    files.watch(Array.from({ length: MAX_WATCHED_FILES + 10 }, (_, i) => path.join(dir, `f${i}`)));
    expect(files.files).toHaveLength(MAX_WATCHED_FILES);
    expect(warnings).toEqual([
      `FileChanged watches the first ${MAX_WATCHED_FILES} of ${MAX_WATCHED_FILES + 10} files; the others are not watched`,
    ]);
  });

  it('watches nothing once disposed', () => {
    const files = new WatchedFiles({ onChange: async () => undefined, warn: () => undefined });
    files.watch(['/nonexistent-hookpilot-folder/x']);
    files.dispose();
    files.watch(['/tmp/x']);
    expect(files.files).toEqual([]);
  });

  /** A folder `config` holding the watched `app.json`, and what the watch hears of it. */
  function watchedConfig(): { root: string; file: string; heard: string[] } {
    const root = mkdtempSync(path.join(tmpdir(), 'hookpilot-watch-'));
    dirs.push(root);
    mkdirSync(path.join(root, 'config'));
    const file = path.join(root, 'config', 'app.json');
    writeFileSync(file, '1');
    const heard: string[] = [];
    const files = new WatchedFiles({ onChange: async (f, kind) => void heard.push(`${path.basename(f)}:${kind}`), warn: () => undefined });
    disposables.push(files);
    files.watch([file]);
    return { root, file, heard };
  }

  it('hears a file of a folder that was removed and made again', async () => {
    const { root, file, heard } = watchedConfig();
    rmSync(path.join(root, 'config'), { recursive: true });
    await vi.waitFor(() => expect(heard).toEqual(['app.json:unlink']), { timeout: 10_000 });
    mkdirSync(path.join(root, 'config'));
    writeFileSync(file, '2');
    await vi.waitFor(() => expect(heard).toEqual(['app.json:unlink', 'app.json:add']), { timeout: 10_000 });
  }, 30_000);

  it('hears the file of a folder renamed away and replaced by a link as the file the link leads to', async () => {
    const { root, file, heard } = watchedConfig();
    renameSync(path.join(root, 'config'), path.join(root, 'config.old'));
    mkdirSync(path.join(root, 'elsewhere'));
    symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'config'));
    await vi.waitFor(() => expect(heard).toEqual(['app.json:unlink']), { timeout: 10_000 });
    writeFileSync(file, '2');
    await vi.waitFor(() => expect(heard).toEqual(['app.json:unlink', 'app.json:add']), { timeout: 10_000 });
  }, 30_000);
});
