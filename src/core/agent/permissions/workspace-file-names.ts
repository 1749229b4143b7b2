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
 * Whether a word may name a VS Code workspace file (isWorkspaceFile): the last segment of the word
 * as written, or of a brace expansion of the whole word (`a.code-work{space,}`,
 * `{a.code-workspace,/dev/null}`), is one, or is a glob that matches one in its folder, read from
 * each of `dirs` (`sub/team.code-worksp?ce`). A glob matching no file stays as written, so it
 * makes such a file only when its text is such a name.
 */
export function mayNameWorkspaceFile(word: string, dirs: readonly string[], listed: FolderEntries): boolean {
  return pathCandidates(word).some((candidate) => {
    const expanding = hasExpandingSyntax(candidate);
    const globbing = GLOB_SYNTAX.test(candidate);
    if (!expanding && !globbing) return isWorkspaceFile(candidate.slice(candidate.lastIndexOf('/') + 1));
    if (candidate.length > MAX_PATTERN_CHARS) return true;
    // Expanded whole: a group may hold a `/`, so the word's last `/` need not end a folder.
    const paths =
      expanding && (globbing || mayHoldLetters(candidate, WORKSPACE_FILE_LETTERS))
        ? expandBraces(candidate, MAX_NAME_EXPANSIONS)
        : [candidate];
    if (paths === undefined) return true;
    return paths.some((each) => {
      const slash = each.lastIndexOf('/');
      const name = each.slice(slash + 1);
      if (isWorkspaceFile(name)) return true;
      // A brace group left unexpanded may make any text.
      if (!GLOB_SYNTAX.test(name) || !mayEndWith(withoutBraces(name), WORKSPACE_FILE_SUFFIX)) return false;
      return globMatchesWorkspaceFile(each.slice(0, slash + 1), name, dirs, listed);
    });
  });
}

const GLOB_SYNTAX = /[*?[]|[+@!]\(/;
const WORKSPACE_FILE_SUFFIX = '.code-workspace';

/**
 * The folders one line's globs were matched in, each read once (undefined: unreadable), with the
 * entries each pattern matched there: a word's patterns are compared with a folder's entries
 * once per line.
 */
export type FolderEntries = Map<string, ListedFolder | undefined>;
interface ListedFolder {
  entries: string[];
  matched: Map<string, string[]>;
}

/**
 * Whether `glob` matches an existing workspace file in `folder` (the folders it matches, when it
 * is a pattern). Another user's home, or a folder that cannot be read or past the
 * MAX_LISTED_FOLDERS or MAX_COMPARED of a line, counts as holding one. Case and a leading dot are
 * not minded: `nocaseglob` or `dotglob` may be on.
 */
function globMatchesWorkspaceFile(folder: string, glob: string, dirs: readonly string[], listed: FolderEntries): boolean {
  const pattern = shellPattern(glob) ?? '*';
  return dirs.some((dir) => {
    const folders = matchingFolders(folder, dir, listed);
    if (folders === undefined) return true;
    return folders.some((each) => matchingEntries(each, pattern, listed)?.some(isWorkspaceFile) ?? true);
  });
}

const GLOB_MATCH = { dot: true, nocase: true };
/** Folders one line's globs are matched in, or followed into; past it, any may hold a workspace file. */
const MAX_LISTED_FOLDERS = 256;
/** Folder entries one line's patterns are compared with in all; past it, any folder may hold a workspace file. */
const MAX_COMPARED = 1_000_000;
/** Entries compared so far, by the line's FolderEntries. */
const comparedInLine = new WeakMap<FolderEntries, number>();

/**
 * The existing folders that a folder, or a folder pattern (`s?b/`, `x/[ab]/`), names from `dir`:
 * undefined past MAX_LISTED_FOLDERS or MAX_COMPARED, or for another user's home (`~user/`).
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
      const entries = matchingEntries(each, pattern, listed);
      if (entries === undefined) return undefined;
      next.push(...entries.map((entry) => path.join(each, entry)));
      if (next.length > MAX_LISTED_FOLDERS) return undefined;
    }
    found = next;
  }
  return found;
}

/**
 * The entries of `folder` that `pattern` matches, each folder compared with a pattern once a
 * line: undefined when the folder cannot be read, or is one too many, or its entries would take
 * the line's comparisons past MAX_COMPARED.
 */
function matchingEntries(folder: string, pattern: string, listed: FolderEntries): string[] | undefined {
  const listing = listedFolder(folder, listed);
  if (listing === undefined) return undefined;
  const known = listing.matched.get(pattern);
  if (known !== undefined) return known;
  const compared = (comparedInLine.get(listed) ?? 0) + listing.entries.length;
  if (compared > MAX_COMPARED) return undefined;
  comparedInLine.set(listed, compared);
  const isMatch = picomatch(pattern, GLOB_MATCH);
  const matched = listing.entries.filter((entry) => isMatch(entry));
  listing.matched.set(pattern, matched);
  return matched;
}

/** A folder read once a line: no entries when it does not exist or is no folder, undefined when it cannot be read or is one too many. */
function listedFolder(folder: string, listed: FolderEntries): ListedFolder | undefined {
  if (listed.has(folder)) return listed.get(folder);
  if (listed.size >= MAX_LISTED_FOLDERS) return undefined;
  let listing: ListedFolder | undefined;
  try {
    listing = { entries: readdirSync(folder), matched: new Map() };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    listing = code === 'ENOENT' || code === 'ENOTDIR' ? { entries: [], matched: new Map() } : undefined;
  }
  listed.set(folder, listing);
  return listing;
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
