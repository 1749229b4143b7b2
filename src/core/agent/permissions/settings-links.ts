import { lstatSync } from 'node:fs';

/**
 * The first of `places` that is a symbolic link, if any. A person's "Always allow" rule and
 * imported hooks are written to workspace files; a repository that ships one (or `.vscode`)
 * as a link would lead the write into a file the person was not shown, such as the user's
 * settings, which apply in every workspace.
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
