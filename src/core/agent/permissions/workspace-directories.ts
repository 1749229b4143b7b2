import path from 'node:path';
import { governingFilesOf } from '../../engine/protected-files';
import { WORKSPACE_MCP_FILES } from '../../mcp/mcp-protected-files';
import { isWithin } from '../tools/workspace-paths';
import { physicalOrSelf } from './protected-targets';
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
export function besideWorkspaceOnly(
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
  const roots = new Set([root, physicalOrSelf(root)]);
  const homes = new Set([home, physicalOrSelf(home)]);
  const parents = [...roots].map((r) => path.dirname(r)).filter((parent) => ![...homes].some((h) => isWithin(parent, h)));
  // Inside the workspace adds nothing, and takes nothing away either.
  const inside = (form: string) => [...roots].some((r) => form !== r && isWithin(r, form));
  const beside = (form: string) =>
    ![...roots].some((r) => isWithin(form, r)) && parents.some((parent) => form !== parent && isWithin(parent, form));
  return [dir, physicalOrSelf(dir)].every((form) => inside(form) || beside(form));
}

/**
 * The files of the additional directories that would govern a session opened there (hook,
 * settings and MCP files, a task run on folder open). This session does not load them, but
 * the model may not prepare them for the next one without a person.
 */
export function additionalDirectoryFiles(dirs: readonly string[]): string[] {
  return dirs.flatMap((dir) => [...governingFilesOf(dir), ...WORKSPACE_MCP_FILES.map((f) => path.join(dir, f))]);
}
