import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ToolContext } from './tool';

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

/**
 * Where `path` really lives once every symlink is followed, even when its tail does not exist
 * yet: the realpath of the nearest existing ancestor plus the missing names. A dangling
 * symlink is followed to its target, since writing through it would create that target.
 */
export function physicalPath(path: string, hops = 0): string {
  try {
    return realpathSync(path);
  } catch {
    // Some part is missing, dangling or looping: resolve what exists piece by piece.
  }
  if (hops > MAX_LINK_HOPS) throw new Error(`too many levels of symbolic links: ${path}`);
  if (isSymlink(path)) return physicalPath(resolve(dirname(path), readlinkSync(path)), hops + 1);
  const parent = dirname(path);
  if (parent === path) return path;
  return join(physicalPath(parent, hops), basename(path));
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The workspace root and the additional directories, as absolute paths. */
export function allowedRoots(scope: WorkspaceScope): string[] {
  return [scope.workspaceRoot, ...(scope.additionalDirectories ?? [])].map((root) => resolve(root));
}

/**
 * Resolves a path a file tool was given and makes sure it stays in the workspace (or an
 * additional directory), following symlinks. Returns the absolute (not symlink-resolved)
 * path; throws `OutsideWorkspaceError` otherwise.
 */
export function resolveInWorkspace(filePath: string, scope: WorkspaceScope): string {
  const absolute = toAbsolutePath(filePath, scope.cwd);
  const roots = allowedRoots(scope);
  const physical = physicalPath(absolute);
  if (roots.some((root) => isWithin(physicalPath(root), physical))) return absolute;
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

/** The workspace path of a file tool's input, or the message the model gets when it is outside. */
export function workspaceFile(filePath: string, scope: WorkspaceScope): { ok: true; path: string } | { ok: false; error: string } {
  try {
    return { ok: true, path: resolveInWorkspace(filePath, scope) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
