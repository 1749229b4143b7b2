import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { HOLE } from '../../permissions/wildcard';
import { expandBraces } from '../../brace-expansions';
import { isWorkspaceFile } from '../../engine/protected-names';
import { pathCandidates } from './bash-words';
import { bracketEnd, closing, hasExpandingSyntax, MAX_PATTERN_CHARS, shellPattern, withoutBraces } from './shell-patterns';

/** Brace expansions of one name checked for a workspace file name; past it the name counts as one. */
const MAX_NAME_EXPANSIONS = 1_000;
const WORKSPACE_FILE_LETTERS = [...new Set('.code-workspace')];

/**
 * Whether a brace expansion of `text` may hold each of `letters`: each is in the text (case
 * ignored), or a range (`{a..z}`) may make it. An expansion only joins pieces of its text.
 */
function mayHoldLetters(text: string, letters: readonly string[]): boolean {
  const lower = text.toLowerCase();
  return lower.includes('..') || letters.every((letter) => lower.includes(letter));
}

/**
 * Whether a word may name a VS Code workspace file (isWorkspaceFile): its last segment does, as
 * written or as a brace expansion makes it (`a.code-work{space,}`), or is a glob that matches one
 * in its folder, read from each of `dirs` (`sub/team.code-worksp?ce`). A glob matching no file
 * stays as written, so it makes such a file only when its text is such a name.
 */
export function mayNameWorkspaceFile(word: string, dirs: readonly string[], listed: FolderEntries): boolean {
  return pathCandidates(word).some((candidate) => {
    const slash = candidate.lastIndexOf('/');
    const name = candidate.slice(slash + 1);
    if (isWorkspaceFile(name)) return true;
    const expanding = hasExpandingSyntax(name);
    if (!expanding && !GLOB_SYNTAX.test(name)) return false;
    if (name.length > MAX_PATTERN_CHARS) return true;
    const names = expanding && mayHoldLetters(name, WORKSPACE_FILE_LETTERS) ? expandBraces(name, MAX_NAME_EXPANSIONS) : [name];
    if (names === undefined || names.some(isWorkspaceFile)) return true;
    // A brace group left unexpanded may make any text.
    const globs = names.filter((each) => GLOB_SYNTAX.test(each) && mayEndWith(withoutBraces(each), WORKSPACE_FILE_SUFFIX));
    return globs.length > 0 && globMatchesWorkspaceFile(candidate.slice(0, slash + 1), globs, dirs, listed);
  });
}

const GLOB_SYNTAX = /[*?[]|[+@!]\(/;
const WORKSPACE_FILE_SUFFIX = '.code-workspace';

/** The entries of the folders one line's globs were matched in, each folder read once (undefined: unreadable). */
export type FolderEntries = Map<string, string[] | undefined>;

/**
 * Whether one of `globs` matches an existing workspace file in `folder` (the folders it matches,
 * when it is a pattern). Another user's home, or a folder that cannot be read or past the
 * MAX_LISTED_FOLDERS of a line, counts as holding one. Case and a leading dot are not minded:
 * `nocaseglob` or `dotglob` may be on.
 */
function globMatchesWorkspaceFile(folder: string, globs: readonly string[], dirs: readonly string[], listed: FolderEntries): boolean {
  const patterns = globs.map((glob) => shellPattern(glob) ?? '*');
  return dirs.some((dir) => {
    const folders = matchingFolders(folder, dir, listed);
    if (folders === undefined) return true;
    return folders.some((each) => {
      const files = entriesOf(each, listed)?.filter(isWorkspaceFile);
      return files === undefined || files.some((file) => patterns.some((pattern) => picomatch.isMatch(file, pattern, GLOB_MATCH)));
    });
  });
}

const GLOB_MATCH = { dot: true, nocase: true };
/** Folders one line's globs are matched in, or followed into; past it, any may hold a workspace file. */
const MAX_LISTED_FOLDERS = 256;

/**
 * The existing folders that a folder, or a folder pattern (`s?b/`, `x/[ab]/`), names from `dir`:
 * undefined past MAX_LISTED_FOLDERS or for another user's home (`~user/`).
 */
function matchingFolders(folder: string, dir: string, listed: FolderEntries): string[] | undefined {
  const written = folder.replace(/^~(?=\/|$)/, homedir());
  // An expansion stays text that names nothing, as in mayLeadIntoGitFolder: values the line assigns are filled in before.
  if (written.includes(HOLE)) return [];
  if (written.startsWith('~')) return undefined;
  let found = [written.startsWith('/') ? '/' : dir];
  for (const segment of written.split('/').filter((each) => each !== '')) {
    if (!GLOB_SYNTAX.test(segment) && !hasExpandingSyntax(segment)) {
      found = found.map((each) => path.join(each, segment));
      continue;
    }
    const pattern = shellPattern(segment) ?? '*';
    const next: string[] = [];
    for (const each of found) {
      const entries = entriesOf(each, listed);
      if (entries === undefined) return undefined;
      next.push(...entries.filter((entry) => picomatch.isMatch(entry, pattern, GLOB_MATCH)).map((entry) => path.join(each, entry)));
      if (next.length > MAX_LISTED_FOLDERS) return undefined;
    }
    found = next;
  }
  return found;
}

/** A folder's entries: none when it does not exist or is no folder, undefined when it cannot be read or is one too many. */
function entriesOf(folder: string, listed: FolderEntries): string[] | undefined {
  if (listed.has(folder)) return listed.get(folder);
  if (listed.size >= MAX_LISTED_FOLDERS) return undefined;
  let entries: string[] | undefined;
  try {
    entries = readdirSync(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    entries = code === 'ENOENT' || code === 'ENOTDIR' ? [] : undefined;
  }
  listed.set(folder, entries);
  return entries;
}

/**
 * Whether some name a glob matches may end in `suffix` (lower case): matched from the end, each
 * bracket expression as any one character, a `*`, an extglob or an expansion as any run, which
 * may take all the rest. Case is ignored.
 */
function mayEndWith(glob: string, suffix: string): boolean {
  // What each piece of the glob matches: `any` one character, a `run` of any, or a character.
  const pieces: string[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    const group = '?*+@!'.includes(c) && glob[i + 1] === '(' ? closing(glob, i + 1, '(', ')') : -1;
    const bracket = c === '[' ? bracketEnd(glob, i) : -1;
    if (group > 0 || c === '*' || c === HOLE) pieces.push('run');
    else if (bracket > 0 || c === '?') pieces.push('any');
    else pieces.push((c === '\\' && i + 1 < glob.length ? glob[++i] : c).toLowerCase());
    i = Math.max(i, group, bracket);
  }
  let at = suffix.length;
  for (let i = pieces.length - 1; i >= 0 && at > 0; i--, at--) {
    if (pieces[i] === 'run') return true;
    if (pieces[i] !== 'any' && pieces[i] !== suffix[at - 1]) return false;
  }
  return at === 0;
}
