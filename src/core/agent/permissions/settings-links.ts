import { lstatSync } from 'node:fs';

/**
 * The first of `places` that is a symbolic link, if any. A person's "Always allow" is written
 * to the workspace's settings file; a repository that ships it (or `.vscode`) as a link would
 * lead the rule into a file the question did not name, such as the user's settings, which
 * apply in every workspace.
 */
export function linkAmong(places: readonly string[]): string | undefined {
  for (const place of places) {
    try {
      if (lstatSync(place).isSymbolicLink()) return place;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
  }
  return undefined;
}
