import { lstat, opendir } from 'node:fs/promises';
import path from 'node:path';

/**
 * What git reads or writes inside `.git` when it commits, and how deep each is walked: a link
 * there (`logs/HEAD` to `~/.bashrc`, `objects` to a folder elsewhere) would have git append a
 * reflog line or write objects outside the repository. The model can write `.git`, and a
 * downloaded archive can hold one. An absent entry is fine: git creates it in place.
 */
const GIT_DIR_ENTRIES: readonly { name: string; depth: number }[] = [
  { name: 'HEAD', depth: 0 },
  { name: 'index', depth: 0 },
  { name: 'config', depth: 0 },
  { name: 'packed-refs', depth: 0 },
  { name: 'logs', depth: Infinity },
  { name: 'refs', depth: Infinity },
  { name: 'info', depth: Infinity },
  // Its fan-out folders and pack/, not the objects in them (written to a new name, then renamed).
  { name: 'objects', depth: 1 },
  { name: 'objects/info', depth: 1 },
];
/** Past this many entries under `.git` to check, git is not run (a repository with that many loose refs commits by hand). */
export const MAX_GIT_DIR_ENTRIES = 20_000;

/**
 * Why git must not run here because of a link, or undefined: no entry git reads or writes in
 * `.git` is a link, and no reflog (appended in place) is a hard link to a file elsewhere.
 * Every entry below `.git` is checked without following links, so none leads outside it.
 */
export async function gitDirLinkProblem(gitDir: string): Promise<string | undefined> {
  let budget = MAX_GIT_DIR_ENTRIES;
  const visit = async (relative: string, depth: number): Promise<string | undefined> => {
    if (--budget < 0) return `.git holds more than ${MAX_GIT_DIR_ENTRIES} entries to check`;
    const file = path.join(gitDir, relative);
    const stat = await lstat(file).catch(() => undefined);
    if (stat === undefined) return undefined;
    if (stat.isSymbolicLink()) return `.git/${relative} is a link`;
    if (stat.isFile() && stat.nlink > 1 && relative.startsWith('logs/')) return `.git/${relative} is a hard link`;
    if (!stat.isDirectory() || depth === 0) return undefined;
    // Read lazily: a folder of a million names stops at the budget.
    for await (const entry of await opendir(file)) {
      const found = await visit(`${relative}/${entry.name}`, depth - 1);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  for (const { name, depth } of GIT_DIR_ENTRIES) {
    const found = await visit(name, depth);
    if (found !== undefined) return found;
  }
  return undefined;
}
