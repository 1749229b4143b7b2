import { lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import type { ToolContext } from './tool';
import { errorMessage } from '../../error-message';

export type WorkspaceScope = Pick<ToolContext, 'workspaceRoot' | 'cwd' | 'additionalDirectories'>;

export class OutsideWorkspaceError extends Error {
  constructor(
    readonly requestedPath: string,
    readonly resolvedPath: string,
    detail: string,
  ) {
    super(`path outside the workspace: ${requestedPath} (${detail})`);
    this.name = 'OutsideWorkspaceError';
  }
}

/**
 * A regular file with more than one hard link: its other names may lie outside the workspace
 * (a link to ~/.ssh/id_rsa, say), and nothing short of scanning the disk can tell where.
 */
export class HardLinkError extends OutsideWorkspaceError {
  constructor(requestedPath: string, resolvedPath: string, links: number) {
    super(requestedPath, resolvedPath, `hard link`);
    this.message =
      `refusing ${requestedPath}: it is a file with ${links} hard links, and its other names may lie outside the workspace, ` +
      'so reading or writing it could reach a file there. Copy it (cp) to get a file of its own.';
    this.name = 'HardLinkError';
  }
}

/** `~` expanded, then resolved against `cwd`; no file-system access. */
export function toAbsolutePath(filePath: string, cwd: string): string {
  if (filePath === '~') return homedir();
  if (filePath.startsWith('~/')) return resolve(homedir(), filePath.slice(2));
  return resolve(cwd, filePath);
}

export function isWithin(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

const MAX_LINK_HOPS = 40;

/** The longest path any supported system opens (Windows'; Linux takes 4,096): a longer one names nothing. */
const MAX_PATH_CHARS = 32_767;
/**
 * The most names a path is resolved through, one by one: `./` repeated by the hundred thousand
 * would take a walk per name. Resolving a longer one throws, and a check that cannot resolve a
 * path must not read it as harmless.
 */
const MAX_PATH_NAMES = 4_096;

function tooLong(path: string, detail: string): Error {
  return new Error(`path too long to resolve (${detail}): ${path.slice(0, 100)}…`);
}

/**
 * Where `path` really lives once every symlink is followed, even when its tail does not exist
 * yet: the realpath of the nearest existing ancestor plus the missing names. A dangling
 * symlink is followed to its target, since writing through it would create that target.
 */
export function physicalPath(path: string): string {
  if (path.length > MAX_PATH_CHARS) throw tooLong(path, `more than ${MAX_PATH_CHARS} characters`);
  // The names below `current` that do not exist (yet), the innermost first.
  const missing: string[] = [];
  let current = path;
  for (let hops = 0; ;) {
    // A missing name (an optional config file) is resolved through its parent without a throw:
    // the gate resolves every protected path on each Bash call, and a thrown error costs more.
    if (entryOf(current) !== undefined) {
      try {
        return join(realpathSync.native(current), ...missing.reverse());
      } catch {
        // A dangling or looping link on the way: resolve what exists piece by piece.
      }
    }
    if (isSymlink(current)) {
      if (hops++ > MAX_LINK_HOPS) throw new Error(`too many levels of symbolic links: ${path}`);
      current = linkTarget(current, path);
      continue;
    }
    const parent = dirname(current);
    if (parent === current) return join(current, ...missing.reverse());
    missing.push(basename(current));
    current = parent;
  }
}

/** Links followed inside the resolution of another link's target (a dangling chain). */
let nestedLinks = 0;

/**
 * Where a dangling link points: a `..` in its target climbs out of whatever link comes before
 * it there (`m/lo/../nn` with `m/lo -> /out/o1/o2` is `/out/o1/nn`), as the kernel reads it.
 */
function linkTarget(link: string, path: string): string {
  const target = readlinkSync(link);
  if (!target.split('/').includes('..')) return resolve(dirname(link), target);
  if (nestedLinks > MAX_LINK_HOPS) throw new Error(`too many levels of symbolic links: ${path}`);
  nestedLinks++;
  try {
    return physicalPathOf(target, dirname(link));
  } finally {
    nestedLinks--;
  }
}

/** The link count of a regular file; 1 for anything else, or when there is nothing there yet. */
export function hardLinkCount(path: string): number {
  try {
    const info = statSync(path);
    return info.isFile() ? info.nlink : 1;
  } catch {
    return 1;
  }
}

/**
 * Where `filePath` (relative to `cwd`, `~` expanded) leads as the kernel resolves it: a `..`
 * after a symlink climbs out of the link's target, not back to where the link sits, so
 * `link/../x` is not `x` (path.resolve would say it is).
 */
export function physicalPathOf(filePath: string, cwd: string): string {
  const home = filePath === '~' || filePath.startsWith('~/');
  const raw = home ? `${homedir()}/${filePath.slice(2)}` : isAbsolute(filePath) ? filePath : `${cwd}/${filePath}`;
  if (raw.split('/', MAX_PATH_NAMES + 2).length > MAX_PATH_NAMES + 1) throw tooLong(filePath, `more than ${MAX_PATH_NAMES} names`);
  // Missing, dangling or looping names: resolve the longest prefix that resolves, then each name after it.
  const names: string[] = [];
  let prefix = raw;
  let physical: string | undefined;
  while (physical === undefined) {
    if (prefix.length <= MAX_PATH_CHARS && entryOf(prefix) !== undefined) {
      try {
        physical = realpathSync.native(prefix);
        break;
      } catch {
        // A dangling or looping link.
      }
    }
    const cut = prefix.lastIndexOf('/');
    if (cut < 0) physical = physicalPath(resolve(prefix));
    else {
      names.push(prefix.slice(cut + 1));
      if (cut === 0) physical = '/';
      else prefix = prefix.slice(0, cut);
    }
  }
  // Below a name that is not there (a dangling link's target included), nothing is: the names
  // after it are kept as written, not looked up one by one (each look-up would climb back
  // through every missing name before it).
  const missing: string[] = [];
  let absent = false;
  for (const name of names.reverse()) {
    if (name === '' || name === '.') continue;
    if (absent && name === '..' && missing.length > 0) missing.pop();
    else if (absent && name !== '..') missing.push(name);
    else if (name === '..') {
      physical = dirname(physical);
      absent &&= entryOf(physical) === undefined;
    } else {
      physical = physicalPath(join(physical, name));
      absent = entryOf(physical) === undefined;
    }
  }
  return missing.length === 0 ? physical : join(physical, ...missing);
}

export function isSymlink(path: string): boolean {
  return entryOf(path)?.isSymbolicLink() ?? false;
}

/** The entry itself (a link is not followed), or undefined when nothing can be seen there. */
function entryOf(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    // Not a directory on the way, no permission, a name too long.
    return undefined;
  }
}

/** The workspace root and the additional directories, as absolute paths. */
export function allowedRoots(scope: WorkspaceScope): string[] {
  return [scope.workspaceRoot, ...(scope.additionalDirectories ?? [])].map((root) => resolve(root));
}

/** A root the agent cannot move: as written, and where it really is. */
export interface RootPlace {
  written: string;
  physical: string;
}

/**
 * The roots as places the agent cannot move. A root inside another one (as written, or looked
 * up through a place in another one) is left out: the agent could swap it for a link to
 * anywhere, and what really lies in it lies in the other root anyway. Two names of one place
 * count once.
 */
export function rootPlaces(roots: readonly string[]): RootPlace[] {
  const key = roots.join('\0');
  let places = rootPlacesNow?.get(key);
  if (places === undefined) {
    // The gate checks many paths against the same roots in one go: the walks are done once for it.
    if (rootPlacesNow === undefined) {
      rootPlacesNow = new Map();
      queueMicrotask(() => (rootPlacesNow = undefined));
    }
    places = computeRootPlaces(roots);
    rootPlacesNow.set(key, places);
  }
  return places;
}

/** rootPlaces' answers until the current job ends; nothing on disk changes within it that the agent caused. */
let rootPlacesNow: Map<string, RootPlace[]> | undefined;

function computeRootPlaces(roots: readonly string[]): RootPlace[] {
  const byName = new Map(roots.map((root) => resolve(root)).map((root) => [foldCase(root), root]));
  const written = [...byName.values()];
  const outer = written.filter((root) => !written.some((other) => other !== root && isWithinPlace(other, root)));
  const byPlace = new Map(
    outer.map((root) => ({ written: root, physical: physicalOrWritten(root) })).map((p) => [foldCase(p.physical), p]),
  );
  const places = [...byPlace.values()];
  if (places.length === 1) return places;
  return places.filter(
    (place) => !places.some((other) => other !== place && lookupTouches(place.written, [other.written, other.physical])),
  );
}

/** The kept roots' real places, for checking a physical path. */
export function physicalRoots(scope: WorkspaceScope): string[] {
  return rootPlaces(allowedRoots(scope)).map((place) => place.physical);
}

function physicalOrWritten(root: string): string {
  try {
    return physicalPath(root);
  } catch {
    // A link loop: nothing can be reached through it.
    return root;
  }
}

/** Windows and macOS file systems ignore case by default: there, places compare that way (finding more inside, never less). */
const FOLD_CASE = process.platform === 'win32' || process.platform === 'darwin';
const WINDOWS = process.platform === 'win32';
/** Windows takes either slash. */
const SEPARATORS = WINDOWS ? /[\\/]/ : '/';

function foldCase(place: string): string {
  return FOLD_CASE ? place.toLowerCase() : place;
}

/** Whether names that differ only in case are one file here (Windows, macOS by default). */
export const FILE_NAMES_FOLD_CASE = FOLD_CASE;

/**
 * What tells files apart here: the path itself on Linux; regardless of case on Windows and
 * macOS; and on Windows without what it drops from a name (trailing dots and spaces) or reads
 * as a stream of the file (`hooks.json::$DATA`). A name not created yet is kept as written by
 * the resolution, so `.VSCode/HOOKS.json` is `.vscode/hooks.json` only by this key.
 */
export function fileSystemKey(filePath: string): string {
  if (!FOLD_CASE) return filePath;
  const folded = filePath.toLowerCase();
  if (!WINDOWS) return folded;
  const names = folded.split(/[\\/]/);
  // The first name is the drive (`c:`); a name of dots alone is not one Windows trims.
  const trimmed = names.map((name, index) => (index === 0 ? name : name.replace(/:.*$/, '').replace(/(?<=[^. ])[. ]+$/, '')));
  return trimmed.join(sep);
}

function isWithinPlace(root: string, place: string): boolean {
  return isWithin(foldCase(root), foldCase(place));
}

/** A folder's identity: another name for it (a bind mount, a firmlink) has the same. */
function identityOf(entry: Stats | undefined): string | undefined {
  return entry?.isDirectory() ? `${entry.dev}:${entry.ino}` : undefined;
}

/**
 * Whether looking `path` up as the kernel does (each link followed where it is met, `..` after
 * a link leaving the link's target) reads any place inside `places`, under any of its names,
 * or ends inside one. A lookup that cannot be completed (a link loop, no permission) counts
 * as touching them. The answer depends only on places outside `places`.
 */
export function lookupTouches(path: string, places: readonly string[]): boolean {
  const ids = new Set(places.map((place) => identityOf(entryOf(place))).filter((id) => id !== undefined));
  const touches = (place: string) => places.some((root) => isWithinPlace(root, place));
  let hops = 0;
  const walk = (from: string, target: string): string | undefined => {
    const start = isAbsolute(target) ? parse(target).root : '';
    let current = start === '' ? from : resolve(start);
    for (const name of target.slice(start.length).split(SEPARATORS)) {
      if (name === '' || name === '.') continue;
      if (name === '..') {
        current = resolve(current, '..');
        continue;
      }
      const place = resolve(current, name);
      if (touches(place)) return undefined;
      const entry = entryOf(place);
      if (entry?.isSymbolicLink()) {
        if (++hops > MAX_LINK_HOPS) return undefined;
        const reached = walk(current, readlinkSync(place));
        if (reached === undefined) return undefined;
        current = reached;
      } else {
        const id = identityOf(entry);
        if (id !== undefined && ids.has(id)) return undefined;
        current = place;
      }
    }
    return touches(current) ? undefined : current;
  };
  try {
    const end = walk(sep, path);
    // What the system says the place is (its case, a short name, another alias) counts too.
    return end === undefined || touches(physicalPath(end));
  } catch {
    return true;
  }
}

/**
 * Resolves a path a file tool was given and makes sure it stays in the workspace (or an
 * additional directory), following every symlink (the target and each parent). Returns the
 * physical path, the one that was checked and the one to use; throws `OutsideWorkspaceError`
 * when it leads outside, `HardLinkError` for a regular file with several hard links.
 */
export function resolveInWorkspace(filePath: string, scope: WorkspaceScope): string {
  const absolute = toAbsolutePath(filePath, scope.cwd);
  const roots = allowedRoots(scope);
  const physical = physicalPathOf(filePath, scope.cwd);
  if (physicalRoots(scope).some((root) => isWithin(root, physical))) {
    const links = hardLinkCount(physical);
    if (links > 1) throw new HardLinkError(filePath, absolute, links);
    return physical;
  }
  const lexicallyInside = roots.some((root) => isWithin(root, absolute));
  const detail = lexicallyInside
    ? `it leads through a symlink to ${physical}, outside ${describeRoots(roots)}`
    : `resolves to ${absolute}, outside ${describeRoots(roots)}`;
  throw new OutsideWorkspaceError(filePath, absolute, detail);
}

function describeRoots(roots: string[]): string {
  const [workspace, ...others] = roots;
  return others.length === 0 ? `the workspace ${workspace}` : `the workspace ${workspace} and ${others.join(', ')}`;
}

/**
 * `target` and `normalizeInput` of the tools that take a `file_path` (Read, Write, Edit):
 * hooks see the absolute path, as in Claude Code.
 */
export function filePathAccessors<I extends { file_path: string }>() {
  return {
    target: (input: I) => input.file_path,
    normalizeInput: (input: I, ctx: { cwd: string }): I => ({ ...input, file_path: toAbsolutePath(input.file_path, ctx.cwd) }),
  };
}

type WorkspaceFile = { ok: true; path: string; physical: string } | { ok: false; error: string };

/**
 * The file a file tool's input names: `path` as the model gave it (made absolute, for
 * messages) and `physical`, the checked path to act on; or the message the model gets.
 */
export function workspaceFile(filePath: string, scope: WorkspaceScope & Pick<ToolContext, 'checkedTarget'>): WorkspaceFile {
  try {
    const physical = resolveInWorkspace(filePath, scope);
    assertCheckedTarget(filePath, physical, scope.checkedTarget);
    return { ok: true, path: toAbsolutePath(filePath, scope.cwd), physical };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

/**
 * The file a tool is about to touch must be the one the permission check judged: a folder of the
 * path swapped for a link since then (by a process the model left running) leads elsewhere.
 */
export function assertCheckedTarget(filePath: string, physical: string, checked: string | undefined): void {
  if (checked !== undefined && physical !== checked)
    throw new Error(`${filePath} now leads to ${physical}, not to ${checked}, the file the permission check judged: not done`);
}
