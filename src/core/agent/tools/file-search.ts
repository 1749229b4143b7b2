import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import fg, { type Entry } from 'fast-glob';
import { errnoCode } from './file-content';
import type { ToolContext } from './tool';
import { isWithin, physicalRoots, resolveInWorkspace, type WorkspaceScope } from './workspace-paths';

/** Never searched unless the search starts inside them: dependencies and git internals. */
const IGNORED_DIRECTORIES = ['**/node_modules/**', '**/.git/**'];

export interface FoundFile {
  /** As listed: under the search directory, symlinks in it kept (what the model sees). */
  path: string;
  /** Where it really is, every symlink followed: checked against the workspace, the one to open. */
  physical: string;
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
 * Regular files under `directory` matching `pattern`, kept only when they really lie in the
 * workspace or an additional directory. Symlinks are not traversed (as ripgrep does by
 * default), but a pattern can still name a symlinked directory as a static segment
 * (`{link,x}/*`, `link/*`), which fast-glob enters: so each file's physical path is checked,
 * not the pattern's. Matches are also kept only inside `directory`, so `..` cannot climb out.
 */
export async function findFiles(
  pattern: string,
  directory: string,
  scope: WorkspaceScope & Pick<ToolContext, 'hiddenFolders'>,
): Promise<FoundFile[]> {
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
  const physicalOf = physicalResolver();
  const roots = physicalRoots(scope);
  const hidden = (scope.hiddenFolders ?? []).filter((folder) => !isWithin(folder, directory));
  const found: FoundFile[] = [];
  for (const entry of entries) {
    if (!isWithin(directory, entry.path)) continue;
    const physical = physicalOf(entry);
    if (physical === undefined || !roots.some((root) => isWithin(root, physical))) continue;
    if (hidden.some((folder) => isWithin(folder, physical))) continue;
    found.push({ path: entry.path, physical, mtimeMs: entry.stats?.mtimeMs ?? 0, size: entry.stats?.size ?? 0 });
  }
  return found;
}

/**
 * The physical path of a listed entry, undefined when it cannot be resolved. Directories
 * repeat across entries, so each is resolved once; a file that is itself a link (or whose
 * kind is unknown) is resolved whole.
 */
function physicalResolver(): (entry: Entry) => string | undefined {
  const directories = new Map<string, string | undefined>();
  const real = (path: string) => {
    try {
      return realpathSync.native(path);
    } catch {
      return undefined;
    }
  };
  return (entry) => {
    if (entry.stats === undefined || entry.stats.isSymbolicLink()) return real(entry.path);
    const directory = dirname(entry.path);
    if (!directories.has(directory)) directories.set(directory, real(directory));
    const resolved = directories.get(directory);
    return resolved === undefined ? undefined : join(resolved, basename(entry.path));
  };
}

/** Newest first, as Claude Code lists Glob and Grep results; ties by path for a stable order. */
export function byNewest(a: FoundFile, b: FoundFile): number {
  return b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path);
}
