import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { commandForms, commandName } from '../../permissions/bash-wrappers';
import { HOLE } from '../../permissions/wildcard';
import { errorMessage } from '../../error-message';
import { expandBraces } from '../../brace-expansions';
import { isWorkspaceFile } from '../../engine/protected-names';
import { argumentWords, pathCandidates, scriptAnalyses, type ParsedBash } from './bash-words';
import { isWithin, physicalPath, physicalPathOf, toAbsolutePath } from '../tools/workspace-paths';

/**
 * The protected files (hook configs and scripts) as the file system sees them, for checks that
 * must not be fooled by a symlink (`vs -> .vscode`): each file's physical path, and for a file
 * inside the workspace, each directory between it and the workspace root (`.vscode`), since
 * moving or replacing that directory changes the file too.
 */
export interface ProtectedTarget {
  physical: string;
  /** A whole folder (given with a trailing separator): every path under it is protected too. */
  folder?: true;
  /** How messages name it: relative to the workspace when inside it. */
  shown: string;
}

export function protectedTargets(protectedPaths: readonly string[], workspaceRoot: string): ProtectedTarget[] {
  const root = physicalOrSelf(workspaceRoot);
  const targets = new Map<string, ProtectedTarget>();
  const add = (physical: string, folder = false) => {
    const shown = isWithin(root, physical) ? path.relative(root, physical) : physical;
    const known = targets.get(physical);
    targets.set(physical, folder || known?.folder ? { physical, shown: shown + path.sep, folder: true } : { physical, shown });
  };
  for (const file of protectedPaths) {
    const physical = physicalOrSelf(path.resolve(file));
    add(physical, file.endsWith(path.sep));
    if (!isWithin(root, physical)) continue;
    for (let dir = path.dirname(physical); dir !== root && isWithin(root, dir); dir = path.dirname(dir)) add(dir);
  }
  return [...targets.values()];
}

/**
 * The protected target a path leads to, if any (after every symlink). A path that cannot be
 * resolved (a link loop, too long) may lead to any of them: it counts as one.
 */
export function protectedTargetOf(filePath: string, cwd: string, targets: readonly ProtectedTarget[]): ProtectedTarget | undefined {
  if (targets.length === 0) return undefined;
  let physical: string;
  try {
    physical = physicalPathOf(filePath, cwd);
  } catch (error) {
    return { physical: filePath, shown: `a path that cannot be resolved (${errorMessage(error)})` };
  }
  return targets.find((t) => t.physical === physical || (t.folder && isWithin(t.physical, physical)));
}

/**
 * Whether `text` holds an extglob (`+(a|b)`) or a brace expansion (`{a,b}`, `{1..3}`): syntax
 * bash expands in a word. One pass: a regular expression for it backtracks on `{....`.
 */
export function hasExpandingSyntax(text: string): boolean {
  let inBrace = false;
  let listed = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ('?*+@!'.includes(c) && text[i + 1] === '(') return true;
    if (c === '{') [inBrace, listed] = [true, false];
    else if (c === '}') {
      if (inBrace && listed) return true;
      inBrace = false;
    } else if (inBrace && (c === ',' || (c === '.' && text[i + 1] === '.'))) listed = true;
  }
  return false;
}

/** How the line's shell matches globs: `shopt -s dotglob` (or GLOBIGNORE) and `nocaseglob` change it. */
export interface GlobOptions {
  dotglob?: boolean;
  nocaseglob?: boolean;
}

/**
 * The words that name the shell options or variables a command sets (`shopt -s NAME`,
 * `printf -v NAME`, `declare NAME=x`, `read NAME`, `bash -O NAME`), or the code it runs in
 * this shell (`eval CODE`); empty for any other command.
 */
function settingWords(name: string, args: readonly string[]): readonly string[] {
  switch (name) {
    case 'shopt':
    case 'read':
    case 'mapfile':
    case 'readarray':
    case 'let':
    case 'eval':
      return args;
    case 'printf':
      return args.flatMap((arg, i) => (arg === '-v' ? [args[i + 1] ?? ''] : arg.startsWith('-v') ? [arg.slice(2)] : []));
    case 'declare':
    case 'typeset':
    case 'local':
    case 'export':
    case 'readonly':
      return args.map((arg) => arg.split('=')[0]);
    case 'bash':
    case 'sh':
      return args.filter((_, i) => /^[-+][oO]$/.test(args[i - 1] ?? ''));
    default:
      return [];
  }
}

/**
 * The glob options a command line may turn on before its words are matched: both when it may
 * set one in a way the check cannot read (`shopt -s $o`, `printf -v "$n"`, `source x`).
 */
export function lineGlobOptions(command: string, analysis: ParsedBash): GlobOptions {
  // The parsed words undo quoting (`dot""glob`, `GLOB$'\x49'GNORE`); the text holds what is no
  // word: plain assignments and `for` loops (a backslash-newline inside a name is dropped by bash).
  const texts = [
    command.replaceAll('\\\n', ''),
    ...analysis.commands.flatMap((c) => [c.words[0] ?? '', ...c.assigned]),
    ...argumentWords(analysis),
  ];
  const named = (name: RegExp) => texts.some((text) => name.test(text));
  if (named(/\bBASHOPTS\b/) || maySetUnreadably(analysis)) return { dotglob: true, nocaseglob: true };
  return { dotglob: named(/\bdotglob\b|\bGLOBIGNORE\b/), nocaseglob: named(/\bnocaseglob\b/) };
}

/**
 * Whether a command of the line, or of a script it runs (`eval`, `bash -c`), may set a glob
 * option or variable under a name no word spells.
 */
function maySetUnreadably(analysis: ParsedBash): boolean {
  const scripts = scriptAnalyses(analysis);
  if (scripts.includes(undefined)) return true;
  return [analysis, ...(scripts as ParsedBash[])].some((each) =>
    each.commands.some((command) => {
      if (command.dynamicName) return true;
      return commandForms(command, true).some(({ words }) => {
        const name = commandName(words[0] ?? '');
        // `source` runs a file's code in this shell.
        if (name === 'source' || name === '.') return true;
        return settingWords(name, words.slice(1)).some((word) => word.includes(HOLE) || /[*?[]/.test(word));
      });
    }),
  );
}

/**
 * The protected target a shell word could name: the word as a path, the value of `--opt=value`
 * or `-ovalue`, or, for a pattern (a glob, an extglob, a brace expansion, or a word with an
 * expansion in it, read as `**`), any target it matches.
 */
export function protectedTargetInWord(
  word: string,
  cwd: string,
  targets: readonly ProtectedTarget[],
  options: GlobOptions = {},
): ProtectedTarget | undefined {
  for (const written of pathCandidates(word)) {
    const candidate = withTildePlace(written);
    // Only expansions, dots and stars (`$d`, `./$f`, `$d.$e`, `$d/*`): read as any path it would
    // ask at every such word; what the line assigns is put in its place instead (bash-gate.ts).
    if (candidate === '' || (candidate.includes(HOLE) && /^[/.*\uE000]*$/.test(candidate))) continue;
    const pattern = candidate.includes(HOLE) || /[*?[]/.test(candidate) || hasExpandingSyntax(candidate);
    const hit = pattern ? globTarget(candidate, cwd, targets, options) : protectedTargetOf(candidate, cwd, targets);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * `~+/x` is `./x`; `~-` (the previous directory) and `~name` (a home folder) are places the
 * check cannot know, read as an absolute expansion. `~` and `~/` are read as the home folder later.
 */
function withTildePlace(candidate: string): string {
  const prefix = /^~[^/]+/.exec(candidate)?.[0];
  if (prefix === undefined) return candidate;
  return (prefix === '~+' ? '.' : `/${HOLE}`) + candidate.slice(prefix.length);
}

/** Picomatch's syntax, escaped: a folder's name such as `repo (copy)` is a name, not a group. */
const escapeGlob = (literal: string): string => literal.replace(/[\\()[\]{}*?!+@|]/g, '\\$&');

/** Picomatch refuses a longer pattern. */
const MAX_PATTERN_CHARS = 65_536;
/** Past this many brackets, braces and extglobs a word's pattern is not built: each may scan the rest of the word. */
const MAX_OPENERS = 64;
/** Brace expansions one pattern may hold: picomatch's alternatives backtrack exponentially in their number. */
const MAX_BRACES = 8;

/**
 * A shell pattern as picomatch reads the same, or undefined when it holds too many brace
 * expansions to match in reasonable time: `*`, `?`, `[...]` (`[!x]` as `[^x]`) and brace
 * expansions (`{a,b}`, `{1..3}`) kept; an extglob (`+(a|b)`) as `*`, which matches all it can
 * within a name without alternatives to backtrack over; a bracket holding a class
 * (`[[:alpha:]]`, `[[=k=]]`, `[[.k.]]`) as `?`, any one character; any other character
 * picomatch gives a meaning (a `(` in a quoted name) escaped.
 */
function shellPattern(word: string): string | undefined {
  let braces = 0;
  const translate = (text: string): string => {
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      const group = '?*+@!'.includes(c) && text[i + 1] === '(' ? closing(text, i + 1, '(', ')') : -1;
      const brace = c === '{' ? closing(text, i, '{', '}') : -1;
      const bracket = c === '[' ? bracketEnd(text, i) : -1;
      if (group > 0) {
        out += '*';
        i = group;
      } else if (brace > 0 && /,|\.\./.test(text.slice(i, brace))) {
        braces++;
        out += `{${translate(text.slice(i + 1, brace))}}`;
        i = brace;
      } else if (bracket > 0) {
        const expression = text.slice(i, (i = bracket) + 1);
        out += /\[[:=.]/.test(expression.slice(1)) ? '?' : expression.replace(/^\[!/, '[^');
      } else out += c === '*' || c === '?' || c === '/' ? c : escapeGlob(c);
    }
    return out;
  };
  const pattern = translate(word);
  return braces > MAX_BRACES ? undefined : pattern;
}

/** Where the bracket expression opened at `from` closes (a leading `]` and `[:alpha:]` are inside it), or -1. */
function bracketEnd(word: string, from: number): number {
  let i = from + 1;
  if (word[i] === '!' || word[i] === '^') i++;
  if (word[i] === ']') i++;
  for (; i < word.length; i++) {
    if (word[i] === ']') return i;
    const kind = word[i] === '[' ? word[i + 1] : undefined;
    const end = kind === ':' || kind === '=' || kind === '.' ? word.indexOf(`${kind}]`, i + 2) : -1;
    if (end > 0) i = end + 1;
  }
  return -1;
}

/** The literal folders a pattern starts with (unescaped), and the rest from its first pattern. */
function splitPattern(pattern: string): { base: string; rest: string } {
  const parts = pattern.split('/');
  const first = parts.findIndex((part) => /(^|[^\\])(\\\\)*[*?[{(]/.test(part));
  const literal = first < 0 ? parts : parts.slice(0, first);
  const base = literal.join('/').replace(/\\(.)/g, '$1') || '/';
  return { base, rest: first < 0 ? '' : parts.slice(first).join('/') };
}

/** Where the bracket opened at `from` closes, or -1. */
function closing(text: string, from: number, open: string, close: string): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text[i] === open) depth++;
    else if (text[i] === close && --depth === 0) return i;
  }
  return -1;
}

function globTarget(
  candidate: string,
  cwd: string,
  targets: readonly ProtectedTarget[],
  options: GlobOptions,
): ProtectedTarget | undefined {
  if (candidate.length > MAX_PATTERN_CHARS)
    return { physical: candidate, shown: `a pattern too long to check (${candidate.length} characters)` };
  const climb = climbProblem(candidate, cwd);
  if (climb) return climb;
  const openers = candidate.match(/[[{]|[?*+@!]\(/g)?.length ?? 0;
  const word = openers > MAX_OPENERS ? undefined : shellPattern(candidate);
  if (word === undefined) return targetUnderLiteralStart(candidate, cwd, targets);
  const absolute = path.isAbsolute(candidate) ? word : path.resolve(escapeGlob(cwd), word.replace(/^~(?=\/|$)/, escapeGlob(homedir())));
  const { base, rest } = splitPattern(absolute.replaceAll(HOLE, '**'));
  // The literal start of the glob may itself lead through a symlink.
  const physicalBase = physicalOrSelf(base || '/');
  const physicalGlob = path.join(escapeGlob(physicalBase), rest);
  // An expansion's value may start with a dot; a glob's `*` matches one only as the shell does,
  // and an extglob (read as `*`) may spell the dot inside it.
  const dot = candidate.includes(HOLE) || hasExtglob(candidate) || options.dotglob === true;
  const match = { dot, nocase: options.nocaseglob === true };
  // `hooks/*.py` may create a file in a protected folder even when nothing there matches yet.
  const inFolder = (t: ProtectedTarget) => t.folder && (t.physical === physicalBase || isWithin(t.physical, physicalBase));
  // `.g?t/hooks/x` reaches into the folder `.git` through a glob in a folder's name.
  const prefixes = folderGlobs(escapeGlob(physicalBase), rest, absolute);
  const intoFolder = (t: ProtectedTarget) => t.folder && prefixes.some((prefix) => picomatch.isMatch(t.physical, prefix, match));
  return targets.find((t) => inFolder(t) || intoFolder(t) || picomatch.isMatch(t.physical, physicalGlob, match));
}

const hasExtglob = (word: string): boolean => /[?*+@!]\(/.test(word);

/** A glob word's parts and the index of the first that holds a pattern or an expansion (-1: none). */
function patternParts(candidate: string): { parts: string[]; first: number } {
  const parts = candidate.split('/');
  return { parts, first: parts.findIndex((part) => /[*?[{(\uE000]/.test(part)) };
}

/**
 * For a pattern too complex to match: any target below its literal start (the folders before
 * its first pattern or expansion), or in a protected folder holding that start; and any at all
 * when the rest holds a dot or an expansion, which may climb out of that start (`..`, `{..,x}`).
 */
function targetUnderLiteralStart(candidate: string, cwd: string, targets: readonly ProtectedTarget[]): ProtectedTarget | undefined {
  const { parts, first } = patternParts(candidate);
  if (first >= 0 && /[.\uE000]/.test(parts.slice(first).join('/')))
    return { physical: candidate, shown: `a pattern too complex to check, which may climb out of its literal start` };
  const literal = (first < 0 ? parts : parts.slice(0, first)).join('/') || (candidate.startsWith('/') ? '/' : '.');
  const base = physicalOrSelf(toAbsolutePath(literal, cwd));
  return targets.find((t) => isWithin(base, t.physical) || (t.folder && isWithin(t.physical, base)));
}

/**
 * Why a glob word's `..` cannot be placed by reading the word: a `..` after a pattern (`*` may
 * match a link, whose `..` climbs out of its target), or a `..` in its literal start that a
 * link turns elsewhere (`l/../../.g?t/config` with `l -> a/b` is the workspace's `.git/config`,
 * not one beside it). The pattern is matched from the word as written (path.resolve).
 */
function climbProblem(candidate: string, cwd: string): ProtectedTarget | undefined {
  const { parts, first } = patternParts(candidate);
  if (first < 0 || !parts.includes('..')) return undefined;
  if (parts.slice(first).includes('..'))
    return { physical: candidate, shown: `\`${candidate}\` (a .. after a pattern, which a link may turn anywhere)` };
  const literal = parts.slice(0, first).join('/');
  const written = toAbsolutePath(literal, cwd);
  let physical: string;
  try {
    physical = physicalPathOf(literal, cwd);
  } catch (error) {
    return { physical: candidate, shown: `a path that cannot be resolved (${errorMessage(error)})` };
  }
  return physical === physicalOrSelf(written) ? undefined : { physical: candidate, shown: `\`${candidate}\` (a .. after a link)` };
}

/** The text with each brace group, innermost first, as `*`. */
function withoutBraces(text: string): string {
  let out = text;
  for (let before = ''; before !== out;) [before, out] = [out, out.replace(/\{[^{}]*\}/g, '*')];
  return out;
}

/**
 * Whether a word may name a path through a `.git` folder anywhere: a repository in a subfolder
 * or an additional directory runs its hooks and `core.fsmonitor` too, and only the workspace's
 * own is a target. A segment is `.git`, or a pattern bash may expand to it (a glob, a brace
 * expansion, an extglob; the pieces of a brace expansion that spans a `/` each on its own).
 * Case is ignored, as inGitFolder does; an expansion stays text that names nothing (values the
 * line assigns are filled in before). `dotglob`: a leading `*` or `?` matches a leading dot
 * too (a `find -name` pattern, or after `shopt -s dotglob`).
 */
export function mayLeadIntoGitFolder(word: string, options: GlobOptions = {}): boolean {
  const matchesGit = (segment: string): boolean => {
    if (segment.toLowerCase() === '.git') return true;
    if (!/[*?[{]|[+@!]\(/.test(segment) || segment.length > MAX_PATTERN_CHARS) return false;
    // Too many brace groups to match: each read as any text, which one of its alternatives is.
    const pattern = shellPattern(segment) ?? shellPattern(withoutBraces(segment)) ?? '*';
    // Only a leading `*`, `?` or brace alternative passes over a leading dot, as in bash, or an alternative that spells it.
    const dot = options.dotglob === true || !/^[*?{]/.test(segment) || /[{,]\./.test(segment);
    return picomatch.isMatch('.git', pattern, { dot, nocase: true });
  };
  return pathCandidates(word).some((candidate) =>
    candidate.split('/').some((segment) => matchesGit(segment) || (/[{}]/.test(segment) && segment.split(/[{},]/).some(matchesGit))),
  );
}

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

/**
 * The globs of the folders a glob passes through below its literal base: for `a?/b?/c`,
 * `base/a?` and `base/a?/b?`. A folder named only by an expansion (`$d/x`) is not one of
 * them: what it holds is unknown, and reading every such word as `.git` would ask at every `$d/x`.
 */
function folderGlobs(base: string, rest: string, written: string): string[] {
  const parts = rest.split('/');
  const writtenParts = written.split('/').slice(-parts.length);
  const globs: string[] = [];
  for (let i = 0; i < parts.length - 1; i++)
    if (parts[i] !== '' && writtenParts[i] !== HOLE) globs.push(`${base}/${parts.slice(0, i + 1).join('/')}`);
  return globs;
}

export function physicalOrSelf(p: string): string {
  try {
    return physicalPath(p);
  } catch {
    // A symlink loop: nothing real is there to protect or reach.
    return p;
  }
}
