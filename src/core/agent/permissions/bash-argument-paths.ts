import { existsSync, opendirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOLE } from '../../permissions/wildcard';
import { isSymlink, OutsideWorkspaceError, physicalPathOf, resolveInWorkspace, type WorkspaceScope } from '../tools/workspace-paths';
import { argumentWords, GLOB, lineDirectories, pathCandidates, type ParsedBash } from './bash-words';
import { errorMessage } from '../../error-message';
import { followedFolders, linkBelowProblem } from './recursive-links';
import { sedFiles } from './sed-script';

/** Names that are no file of anyone's: the standard streams and the bit bucket. */
const HARMLESS = /^\/dev\/(null|stdin|stdout|stderr|tty|fd\/\d+)$/;
const URL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/**
 * Why a line that rules with patterns allow still needs a person because of its words, or
 * undefined: as Claude Code validates the paths of a Bash command, an argument (or an option's
 * value, an assignment value, a `for` list item, a here-string) that names a path outside the
 * workspace and its additional directories, after symlinks (`cat ~/.ssh/id_rsa`,
 * `cp x ../y`, `sort -o/etc/x`), or a path built from an expansion (`$HOME/x`), is not granted
 * by `Bash(cat *)`. A path-like word contains `/`, starts with `~` or is `..`; a word that is
 * only an expansion may be any path. A plain name is checked too when it is a symlink, a glob
 * by every name it may match. A URL is a path to the shell (`h://../x` is `h:/../x`) and is
 * checked as one; a `file:` URL also by the file it names. The files of a sed script (`w ../x`)
 * are checked as words, and a recursive read that follows links (`grep -R`) as reading each
 * link below its folders.
 */
export function argumentPathsProblem(analysis: ParsedBash, scope: WorkspaceScope): string | undefined {
  // Relative words are read from where a `cd` goes: after `cd sr?` that is not known yet.
  const dirs = lineDirectories(analysis, scope.cwd, true);
  if (!dirs) return 'it changes directory to a place that cannot be known before it runs';
  const sed = sedFiles(analysis);
  if (sed.problem) return sed.problem;
  const candidates = new Set([...argumentWords(analysis).flatMap(pathCandidates), ...sed.files]);
  // Each one costs file-system lookups: a line naming more is left to a person.
  if (candidates.size > MAX_CHECKED) return `it names more than ${MAX_CHECKED} distinct words to check as paths`;
  const line = { words: candidates, dirs, scope, listable: MAX_LISTED };
  for (const candidate of candidates) {
    const problem = candidateProblem(candidate, line);
    if (problem) return problem;
  }
  return linkBelowProblem(followedFolders(analysis, dirs), (link) => {
    const shown = path.relative(scope.workspaceRoot, link);
    const problem = pathProblem(link, shown, scope);
    return problem && `it reads recursively through links: ${problem}`;
  });
}

export const MAX_CHECKED = 1_000;
/** Directory entries the globs of one line may list; each match is then checked as a path. */
export const MAX_LISTED = 5_000;
/** Beyond these a word is no path a system opens, and resolving it would cost more than the gate can spend. */
const MAX_PATH_LENGTH = 4_096;
const MAX_PATH_DEPTH = 64;

interface Line {
  words: ReadonlySet<string>;
  dirs: readonly string[];
  scope: WorkspaceScope;
  /** What is left of MAX_LISTED. */
  listable: number;
}

function candidateProblem(candidate: string, line: Line): string | undefined {
  if (candidate === '' || HARMLESS.test(candidate)) return undefined;
  const { dirs } = line;
  const shown = candidate.replaceAll(HOLE, '$…');
  const scheme = URL.exec(candidate)?.[1];
  // curl and others take `file:/x` too, with a single slash.
  const fileUrl = /^file:/i.test(candidate);
  const pathLike = candidate.includes('/') || candidate.startsWith('~') || candidate === '..';
  if (candidate.includes(HOLE)) {
    const onlyExpansion = candidate.replaceAll(HOLE, '') === '';
    if (!pathLike && !onlyExpansion) return expansionProblem(candidate, shown, line);
    // `https://host/$X` leads somewhere only through a folder named `https:` (an expansion may hold `..`).
    if (scheme !== undefined && !fileUrl && !folderMayExist(`${scheme}:`, candidate, line)) return undefined;
    return `\`${shown}\` is a path built from an expansion, which could lead anywhere`;
  }
  if (/^~[^/]/.test(candidate)) return `\`${candidate}\` is outside the workspace (another user's home)`;
  const glob = GLOB.test(candidate);
  if (!pathLike && !glob && !dirs.some((dir) => isSymlink(path.resolve(dir, candidate)))) return undefined;
  if (candidate.length > MAX_PATH_LENGTH || candidate.split('/').length > MAX_PATH_DEPTH) {
    return `\`${shown.slice(0, 80)}…\` is too long to check as a path`;
  }
  if (fileUrl) {
    const problem = fileUrlProblem(candidate, line.scope);
    if (problem) return problem;
  }
  for (const cwd of dirs) {
    const scoped = { ...line.scope, cwd };
    // Bash passes a glob that matches nothing on as it is.
    const problem = pathProblem(candidate, candidate, scoped) ?? (glob ? globProblem(candidate, scoped, line) : undefined);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Why a name with an expansion in it (`x$Y`, `"fix: $msg"`) may lead elsewhere: the value may
 * hold `/` and `..`, so the word may be any name its literal start begins in a directory of the
 * line, and go on through it when that is a folder or a link (`ln$X` with X=`k/../..`).
 * One that starts with the expansion may be any path at all (`${X}d` with X=`/etc/passw`).
 */
function expansionProblem(candidate: string, shown: string, line: Line): string | undefined {
  const start = candidate.slice(0, candidate.indexOf(HOLE));
  if (start === '') return `\`${shown}\` starts with an expansion, which may hold any path`;
  // A `[` that does not close before the expansion is no bracket (`"[$a]"`), or one that matches no `/`.
  if (/[*?]|\[.*\]/.test(start)) return `\`${shown}\` may lead through whatever its glob matches, wherever its expansion says`;
  for (const cwd of line.dirs) {
    const problem = pathProblem(start, candidate, { ...line.scope, cwd });
    if (problem) return problem;
    const entries = listed('', cwd, line);
    if (!entries) return `its expansions would list more than ${MAX_LISTED} entries to check`;
    // In any case: on macOS and Windows `"Ou$X"` goes through `out`.
    const lower = start.toLowerCase();
    const through = entries.find((e) => e.name.toLowerCase().startsWith(lower) && (e.isDirectory() || e.isSymbolicLink()))?.name;
    const climbs = '..'.startsWith(start) ? start : undefined;
    const entry = climbs ?? through;
    if (entry !== undefined) return `\`${shown}\` may lead through \`${entry}\` wherever its expansion says`;
  }
  return undefined;
}

function globProblem(candidate: string, scope: WorkspaceScope, line: Line): string | undefined {
  const matches = globMatches(candidate, scope.cwd, line);
  if (!matches) return `its globs would list more than ${MAX_LISTED} entries to check`;
  for (const named of matches) {
    const problem = pathProblem(named, candidate, scope);
    if (problem) return problem;
  }
  return undefined;
}

function pathProblem(named: string, candidate: string, scope: WorkspaceScope): string | undefined {
  try {
    resolveInWorkspace(named, scope);
    return undefined;
  } catch (error) {
    const as = named === candidate ? '' : ` (as \`${named}\`)`;
    if (error instanceof OutsideWorkspaceError) return `\`${candidate}\`${as} names a path outside the workspace (${error.message})`;
    return `cannot tell where \`${candidate}\`${as} leads (${errorMessage(error)})`;
  }
}

/** Whether a folder `name` is there in a directory of the line, or a word of the line may create it. */
function folderMayExist(name: string, candidate: string, line: Line): boolean {
  const lower = name.toLowerCase();
  const named = [...line.words].some((word) => word !== candidate && word.toLowerCase().includes(lower));
  return named || line.dirs.map((dir) => path.resolve(dir, name)).some((folder) => existsSync(folder) || isSymlink(folder));
}

/** A `file:` URL reads the file it names (`curl file:///etc/passwd`); one that names none clearly is left to a person. */
function fileUrlProblem(candidate: string, scope: WorkspaceScope): string | undefined {
  let file: string;
  try {
    file = fileURLToPath(candidate);
  } catch (error) {
    return `cannot tell which file \`${candidate}\` names (${errorMessage(error)})`;
  }
  return pathProblem(file, candidate, scope);
}

/**
 * Every path the glob `word` may expand to from `cwd`, or undefined when listing them would
 * pass the line's MAX_LISTED. A pattern segment may match any entry with its literal start and
 * end, in any case and dot files included (`nocaseglob`, `dotglob`); `.` and `..` when it
 * starts with a dot (bash before 5.2); `**` any entry below, as `globstar` makes it. More
 * than bash would match is safe: each one is only checked.
 */
function globMatches(word: string, cwd: string, line: Line): string[] | undefined {
  const absolute = word.startsWith('/');
  let bases = [absolute ? '/' : ''];
  for (const segment of (absolute ? word.slice(1) : word).split('/')) {
    if (!GLOB.test(segment)) {
      bases = bases.map((base) => joined(base, segment));
      continue;
    }
    const next: string[] = [];
    for (const base of bases) {
      const found = segment === '**' ? entriesBelow(base, cwd, line) : matchingEntries(base, segment, cwd, line);
      if (!found) return undefined;
      next.push(...found);
    }
    bases = next;
  }
  return bases;
}

function matchingEntries(base: string, segment: string, cwd: string, line: Line): string[] | undefined {
  const names = listed(base, cwd, line)?.map((entry) => entry.name);
  if (!names) return undefined;
  if (segment.startsWith('.')) names.push('.', '..');
  const start = segment.slice(0, segment.search(GLOB)).toLowerCase();
  const end = segment.slice(Math.max(...[...'*?[]'].map((c) => segment.lastIndexOf(c))) + 1).toLowerCase();
  return names
    .filter((name) => {
      const lower = name.toLowerCase();
      return lower.length >= start.length + end.length && lower.startsWith(start) && lower.endsWith(end);
    })
    .map((name) => joined(base, name));
}

/** `base` and everything below it, without entering linked folders (as bash's `**`). */
function entriesBelow(base: string, cwd: string, line: Line): string[] | undefined {
  const found = [base === '' ? '.' : base];
  const folders = [base];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    const entries = listed(folder, cwd, line);
    if (!entries) return undefined;
    for (const entry of entries) {
      const below = joined(folder, entry.name);
      found.push(below);
      if (entry.isDirectory()) folders.push(below);
    }
  }
  return found;
}

/** The entries of the folder `dir` leads to from `cwd` (none when it is no folder), or undefined past the line's budget. */
function listed(dir: string, cwd: string, line: Line) {
  // A listing costs a look-up even when empty: `.*/.*/…` doubles its paths at each step.
  if (--line.listable < 0) return undefined;
  const entries = [];
  let handle;
  try {
    handle = opendirSync(physicalPathOf(dir === '' ? '.' : dir, cwd));
  } catch {
    return [];
  }
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
      if (--line.listable < 0) return undefined;
      entries.push(entry);
    }
  } catch {
    // Unreadable part way: what was read is what bash could see too.
  } finally {
    handle.closeSync();
  }
  return entries;
}

function joined(base: string, name: string): string {
  return base === '' ? name : base.endsWith('/') ? `${base}${name}` : `${base}/${name}`;
}
