import { stat } from 'node:fs/promises';
import fg from 'fast-glob';
import { errnoCode } from './file-content';
import type { ToolContext } from './tool';
import { isWithin, resolveInWorkspace } from './workspace-paths';

/** Never searched unless the search starts inside them: dependencies and git internals. */
const IGNORED_DIRECTORIES = ['**/node_modules/**', '**/.git/**'];

export interface FoundFile {
  path: string;
  mtimeMs: number;
  size: number;
}

export type SearchRoot = { kind: 'directory' | 'file'; path: string; mtimeMs: number; size: number };

/**
 * The `path` argument of Glob and Grep: the working directory by default, inside the
 * workspace, and existing. Throws with a message for the model otherwise.
 */
export async function resolveSearchRoot(path: string | undefined, ctx: ToolContext): Promise<SearchRoot> {
  const absolute = resolveInWorkspace(path ?? ctx.cwd, ctx);
  try {
    const info = await stat(absolute);
    return { kind: info.isDirectory() ? 'directory' : 'file', path: absolute, mtimeMs: info.mtimeMs, size: info.size };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') throw new Error(`Path does not exist: ${absolute}`);
    throw error;
  }
}

/**
 * Regular files under `directory` matching `pattern`. Symlinks are not followed (as ripgrep
 * does by default), so a link cannot lead a search out of the workspace, and matches are
 * kept only inside `directory`, which stops `..` in a pattern from climbing out.
 */
export async function findFiles(pattern: string, directory: string): Promise<FoundFile[]> {
  const entries = await fg(pattern, {
    cwd: directory,
    absolute: true,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: IGNORED_DIRECTORIES,
    stats: true,
    suppressErrors: true,
  });
  return entries
    .filter((entry) => isWithin(directory, entry.path))
    .map((entry) => ({ path: entry.path, mtimeMs: entry.stats?.mtimeMs ?? 0, size: entry.stats?.size ?? 0 }));
}

/** Newest first, as Claude Code lists Glob and Grep results; ties by path for a stable order. */
export function byNewest(a: FoundFile, b: FoundFile): number {
  return b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path);
}
