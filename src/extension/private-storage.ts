import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { storageRoot } from '../core/storage-root';

/**
 * Hookpilot's records, which no model call may read or change: this window's storage, other
 * workspaces' (VS Code keeps each one's beside it, `workspaceStorage/<id>/<extension>`), the
 * extension's global storage and the CLI's (HOOKPILOT_HOME or ~/.hookpilot). Other workspaces'
 * are listed once, at start: a folder made later belongs to a window started later.
 */
export function privateStoragePaths(storageDir: string, globalStorageDir: string, env: NodeJS.ProcessEnv): string[] {
  const extension = path.basename(storageDir);
  const workspaces = path.dirname(path.dirname(storageDir));
  let others: string[] = [];
  if (path.basename(workspaces) === 'workspaceStorage') {
    try {
      others = readdirSync(workspaces)
        .map((id) => path.join(workspaces, id, extension))
        .filter((dir) => existsSync(dir));
    } catch {
      // No listing: this window's own storage is still protected.
    }
  }
  return [...new Set([storageDir, globalStorageDir, ...others, storageRoot(env)])].map((dir) => dir + path.sep);
}
