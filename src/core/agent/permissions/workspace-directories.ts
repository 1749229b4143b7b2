import path from 'node:path';
import { physicalPath } from '../tools/workspace-paths';
import type { PermissionsScope } from './permissions-setting';

/**
 * A workspace's settings may add folders beside the workspace (`../shared` next to a
 * repository), which a team shares; anything else a cloned repository could list as easily:
 * `/`, `/proc`, `/etc`, `~/bin` or `~/Library` beside a repository kept in the home folder.
 * So a workspace's additional directory counts only when it lies inside the workspace's parent
 * folder, does not hold the workspace, and that parent is neither the filesystem root nor the
 * home folder nor a folder above it. Links are followed: every reading must pass. A person's
 * own settings may list any folder.
 */
export function withoutPrivateDirectories(
  scope: PermissionsScope,
  { root, home }: { root: string; home: string },
): { scope: PermissionsScope; refused: string[] } {
  const dirs = scope.additionalDirectories;
  if (dirs === undefined) return { scope, refused: [] };
  const kept: string[] = [];
  const refused: string[] = [];
  for (const dir of dirs) (besideWorkspace(path.resolve(root, dir), root, home) ? kept : refused).push(dir);
  return { scope: { ...scope, additionalDirectories: kept }, refused };
}

function besideWorkspace(dir: string, root: string, home: string): boolean {
  const roots = new Set([root, physical(root)]);
  const homes = new Set([home, physical(home)]);
  const parents = [...roots].map((r) => path.dirname(r)).filter((parent) => ![...homes].some((h) => contains(parent, h)));
  // Inside the workspace adds nothing, and takes nothing away either.
  const inside = (form: string) => [...roots].some((r) => form !== r && contains(r, form));
  const beside = (form: string) =>
    ![...roots].some((r) => contains(form, r)) && parents.some((parent) => form !== parent && contains(parent, form));
  return [dir, physical(dir)].every((form) => inside(form) || beside(form));
}

/** Whether `outer` is `inner` or a folder above it. */
function contains(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (relative.split(path.sep)[0] !== '..' && !path.isAbsolute(relative));
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
