import { homedir } from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { commandForms, commandName } from '../../permissions/bash-wrappers';
import { HOLE } from '../../permissions/wildcard';
import { errorMessage } from '../../error-message';
import { argumentWords, pathCandidates, scriptAnalyses, type ParsedBash } from './bash-words';
import { FILE_NAMES_FOLD_CASE, fileSystemKey, isWithin, physicalPath, physicalPathOf, toAbsolutePath } from '../tools/workspace-paths';
import { escapeGlob, hasExpandingSyntax, MAX_OPENERS, MAX_PATTERN_CHARS, shellPattern, withoutBraces } from './shell-patterns';

/**
 * The protected files (hook configs and scripts) as the file system sees them, for checks that
 * must not be fooled by a symlink (`vs -> .vscode`): each file's physical path, and each folder
 * between it and the place it lies in (`.vscode` in the workspace, `~/.config/Code/User` in the
 * home folder), since moving, replacing or copying a folder onto that folder changes the file too.
 */
export interface ProtectedTarget {
  physical: string;
  /** A whole folder (given with a trailing separator): every path under it is protected too. */
  folder?: true;
  /** How messages name it: relative to the workspace when inside it. */
  shown: string;
}

/**
 * `additionalDirectories` are places of their own, as the workspace root and the home folder
 * are: the folders above a protected file stop at one of them, or at a folder holding one,
 * since naming those (`cd ../shared`, `ls ~`, `ls ..`) is ordinary work.
 */
export function protectedTargets(
  protectedPaths: readonly string[],
  workspaceRoot: string,
  additionalDirectories: readonly string[] = [],
): ProtectedTarget[] {
  const root = physicalOrSelf(workspaceRoot);
  const places = [root, physicalOrSelf(homedir()), ...additionalDirectories.map((dir) => physicalOrSelf(path.resolve(dir)))];
  const targets = new Map<string, ProtectedTarget>();
  const add = (physical: string, folder = false) => {
    const shown = isWithin(root, physical) ? path.relative(root, physical) : physical;
    const known = targets.get(physical);
    targets.set(physical, folder || known?.folder ? { physical, shown: shown + path.sep, folder: true } : { physical, shown });
  };
  for (const file of protectedPaths) {
    const physical = physicalOrSelf(path.resolve(file));
    add(physical, file.endsWith(path.sep));
    const stops = isWithin(root, physical) ? [root] : places;
    for (let dir = path.dirname(physical); !stops.some((place) => isWithin(dir, place)); dir = path.dirname(dir)) add(dir);
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
  const key = fileSystemKey(physical);
  return targets.find((t) => {
    const target = fileSystemKey(t.physical);
    return target === key || (t.folder && isWithin(target, key));
  });
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

/** The literal folders a pattern starts with (unescaped), and the rest from its first pattern. */
function splitPattern(pattern: string): { base: string; rest: string } {
  const parts = pattern.split('/');
  const first = parts.findIndex((part) => /(^|[^\\])(\\\\)*[*?[{(]/.test(part));
  const literal = first < 0 ? parts : parts.slice(0, first);
  const base = literal.join('/').replace(/\\(.)/g, '$1') || '/';
  return { base, rest: first < 0 ? '' : parts.slice(first).join('/') };
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
  const match = { dot, nocase: options.nocaseglob === true || FILE_NAMES_FOLD_CASE };
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
  const key = fileSystemKey(base);
  return targets.find((t) => isWithin(key, fileSystemKey(t.physical)) || (t.folder && isWithin(fileSystemKey(t.physical), key)));
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
    candidate
      .split('/')
      .some(
        (segment) => matchesGit(segment) || (/[{}]/.test(segment) && segment.split(/[{},]/).some(matchesGit)) || completedToGit(segment),
      ),
  );
}

/**
 * Whether an expansion joined with text in one segment may complete `.git`: a value is any text,
 * the empty one too (`sub/${UNSET}.git`, `sub/.gi$(printf t)`). Expansions with no letter of it
 * between them (`$d/x`, `"$MAJOR.$MINOR"`) stay ones that name nothing, or every such word would ask.
 */
function completedToGit(segment: string): boolean {
  if (!segment.includes(HOLE) || !/[git]/i.test(segment.replaceAll(HOLE, '')) || segment.length > MAX_PATTERN_CHARS) return false;
  const pattern = escapeGlob(segment).replaceAll(HOLE, '*');
  return picomatch.isMatch('.git', pattern, { dot: true, nocase: true });
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
