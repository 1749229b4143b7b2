import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import fg, { type Entry, type Options } from 'fast-glob';
import { braceExpansionCount } from '../../brace-expansions';
import { errnoCode } from './file-content';
import type { ToolContext } from './tool';
import { assertCheckedTarget, isWithin, physicalRoots, resolveInWorkspace, type WorkspaceScope } from './workspace-paths';

/** Never searched unless the search starts inside them: dependencies and git internals. */
const IGNORED_DIRECTORIES = ['**/node_modules/**', '**/.git/**'];
/**
 * fast-glob matches each listed path with a backtracking regular expression, on the host's
 * only thread: stars over a long name, or `**` over a deep tree, cost time that grows as the
 * path's length to the power of their number. These bounds keep that power low.
 */
const MAX_STARS_PER_SEGMENT = 2;
const MAX_STARS_PER_PATTERN = 3;
/** Each brace alternative becomes a pattern of its own, matched against every path. */
export const MAX_BRACE_EXPANSIONS = 100;

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
  if (path !== undefined) assertCheckedTarget(path, absolute, ctx.checkedTarget);
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
 * A hidden folder is searched only when it holds `gatedRoot`, the `path` the permission gate
 * saw (and asked a person about): a pattern whose literal base lies in it lifts nothing.
 * The walk stops when `scope.signal` aborts: the promise then rejects.
 */
export async function findFiles(
  pattern: string,
  directory: string,
  gatedRoot: string,
  scope: WorkspaceScope & Pick<ToolContext, 'hiddenFolders' | 'signal'>,
): Promise<FoundFile[]> {
  const unbounded = unboundedGlobProblem(pattern);
  if (unbounded !== undefined) throw new Error(`Glob pattern ${JSON.stringify(pattern)} ${unbounded}`);
  const options = {
    cwd: directory,
    absolute: true,
    dot: true,
    // Extglobs such as `+(a|aa)` nest quantifiers; ripgrep's globs, which Claude Code uses, have none.
    extglob: false,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: IGNORED_DIRECTORIES,
    stats: true as const,
    suppressErrors: true,
  };
  for (const base of walkBases(pattern, options)) resolveInWorkspace(base, scope);
  const entries = await walk(pattern, options, scope.signal);
  const physicalOf = physicalResolver();
  const roots = physicalRoots(scope);
  const hidden = (scope.hiddenFolders ?? []).filter((folder) => !isWithin(folder, gatedRoot));
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
 * The folders fast-glob starts from, as it plans the walk: one per brace alternative
 * (`{/usr,x}/**` walks /usr and x). Matches outside the workspace are dropped afterwards,
 * but the walk itself would cross whatever folder a base names, `/` included.
 */
function walkBases(pattern: string, options: Options & { cwd: string }): string[] {
  return fg.generateTasks(pattern, options).map((task) => resolve(options.cwd, task.base));
}

/** fast-glob's listing, stopped (and rejected) when `signal` aborts: it takes no signal itself. */
function walk(pattern: string, options: Options & { stats: true }, signal: AbortSignal): Promise<Entry[]> {
  return new Promise((resolvePromise, reject) => {
    if (signal.aborted) {
      reject(new Error('Search aborted before it finished'));
      return;
    }
    const entries: Entry[] = [];
    // Typed as the older ReadableStream interface; it is a stream.Readable (merge2's PassThrough).
    const stream = fg.stream(pattern, options) as Readable;
    const abort = () => {
      // Closing the stream destroys fast-glob's directory readers: no further folder is read.
      stream.destroy();
      reject(new Error('Search aborted before it finished'));
    };
    signal.addEventListener('abort', abort, { once: true });
    const settle = () => signal.removeEventListener('abort', abort);
    stream.on('data', (entry: Entry) => entries.push(entry));
    stream.once('error', (error) => {
      settle();
      reject(error);
    });
    stream.once('end', () => {
      settle();
      resolvePromise(entries);
    });
  });
}

/** Why matching `pattern` could take unbounded time, or undefined when it cannot. */
function unboundedGlobProblem(pattern: string): string | undefined {
  let total = 0;
  for (const segment of pattern.split('/')) {
    // A `**` segment crosses folders: one wildcard, whatever it spans.
    const stars = segment === '**' ? 1 : (segment.replace(/\\./g, '').match(/\*/g)?.length ?? 0);
    if (stars > MAX_STARS_PER_SEGMENT) {
      return `has more than ${MAX_STARS_PER_SEGMENT} * wildcards in one path segment; use a simpler pattern.`;
    }
    total += stars;
  }
  if (total > MAX_STARS_PER_PATTERN) return `has more than ${MAX_STARS_PER_PATTERN} * or ** wildcards; use a simpler pattern.`;
  if (braceExpansionCount(pattern) > MAX_BRACE_EXPANSIONS)
    return `expands to more than ${MAX_BRACE_EXPANSIONS} patterns; use fewer braces.`;
  return undefined;
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
