import path from 'node:path';
import { physicalPath } from '../tools/workspace-paths';
import type { PermissionsScope } from './permissions-setting';

/**
 * A workspace's settings may add folders the agent works in (`../shared` beside a repository),
 * but a cloned repository lists `/` as easily: not a folder that holds what the person keeps
 * outside their projects. Refused: the filesystem root, the home folder and any folder above
 * it or above the workspace, and the home folder's dot-folders (`~/.ssh`, `~/.aws`, `~/.config`).
 * Links are followed, so `./escape -> /` is `/`.
 */
export function withoutPrivateDirectories(
  scope: PermissionsScope,
  { root, home }: { root: string; home: string },
): { scope: PermissionsScope; refused: string[] } {
  const dirs = scope.additionalDirectories;
  if (dirs === undefined) return { scope, refused: [] };
  const kept: string[] = [];
  const refused: string[] = [];
  for (const dir of dirs) (opensPrivate(path.resolve(root, dir), root, home) ? refused : kept).push(dir);
  return { scope: { ...scope, additionalDirectories: kept }, refused };
}

function opensPrivate(dir: string, root: string, home: string): boolean {
  const forms = new Set([dir, physical(dir)]);
  const homes = new Set([home, physical(home)]);
  const roots = new Set([root, physical(root)]);
  return [...forms].some(
    (form) =>
      [...homes].some((h) => contains(form, h) || isDotFolderOf(form, h)) || [...roots].some((r) => form !== r && contains(form, r)),
  );
}

/** Whether `outer` is `inner` or a folder above it. */
function contains(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (relative.split(path.sep)[0] !== '..' && !path.isAbsolute(relative));
}

function isDotFolderOf(dir: string, home: string): boolean {
  return dir !== home && contains(home, dir) && path.relative(home, dir).startsWith('.');
}

/** Links followed, dangling ones too (`./keys -> ~/.ssh` before `~/.ssh` exists). */
function physical(p: string): string {
  try {
    return physicalPath(p);
  } catch {
    // A loop of links: nothing there to open.
    return p;
  }
}
