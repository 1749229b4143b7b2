import { homedir } from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { HOLE } from '../../permissions/wildcard';
import { pathCandidates } from './bash-words';
import { isWithin, physicalPath, physicalPathOf } from '../tools/workspace-paths';

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

/** The protected target a path leads to, if any (after every symlink). */
export function protectedTargetOf(filePath: string, cwd: string, targets: readonly ProtectedTarget[]): ProtectedTarget | undefined {
  if (targets.length === 0) return undefined;
  let physical: string;
  try {
    physical = physicalPathOf(filePath, cwd);
  } catch {
    return undefined;
  }
  return targets.find((t) => t.physical === physical || (t.folder && isWithin(t.physical, physical)));
}

/** An extglob (`+(a|b)`) or a brace expansion (`{a,b}`, `{1..3}`): syntax bash expands in a word. */
export const EXPANDING_PATTERN = /[?*+@!]\(|\{[^{}]*(,|\.\.)[^{}]*\}/;

/** How the line's shell matches globs: `shopt -s dotglob` (or GLOBIGNORE) and `nocaseglob` change it. */
export interface GlobOptions {
  dotglob?: boolean;
  nocaseglob?: boolean;
}

/** The glob options a command line may turn on before its words are matched. */
export function lineGlobOptions(command: string): GlobOptions {
  return { dotglob: /\bdotglob\b|\bGLOBIGNORE\b/.test(command), nocaseglob: /\bnocaseglob\b/.test(command) };
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
  for (const candidate of pathCandidates(word)) {
    if (candidate === '' || (candidate.includes(HOLE) && /^[/.*\uE000]*$/.test(candidate))) continue;
    const pattern = candidate.includes(HOLE) || /[*?[]/.test(candidate) || EXPANDING_PATTERN.test(candidate);
    const hit = pattern ? globTarget(candidate, cwd, targets, options) : protectedTargetOf(candidate, cwd, targets);
    if (hit) return hit;
  }
  return undefined;
}

/** Picomatch's syntax, escaped: a folder's name such as `repo (copy)` is a name, not a group. */
const escapeGlob = (literal: string): string => literal.replace(/[\\()[\]{}*?!+@|]/g, '\\$&');

/**
 * A shell pattern as picomatch reads the same: `*`, `?`, `[...]` (`[!x]` as `[^x]`), extglobs
 * (`+(a|b)`) and brace expansions (`{a,b}`, `{1..3}`) kept; any other character picomatch
 * gives a meaning (a `(` in a quoted name) escaped.
 */
function shellPattern(word: string): string {
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    const group = /[?*+@!]/.test(c) && word[i + 1] === '(' ? closing(word, i + 1, '(', ')') : -1;
    const brace = c === '{' ? closing(word, i, '{', '}') : -1;
    const bracket = c === '[' ? word.indexOf(']', i + 2) : -1;
    if (group > 0) out += word.slice(i, (i = group) + 1);
    else if (brace > 0 && /,|\.\./.test(word.slice(i, brace))) out += word.slice(i, (i = brace) + 1);
    else if (bracket > 0) out += word.slice(i, (i = bracket) + 1).replace(/^\[!/, '[^');
    else out += c === '*' || c === '?' || c === '/' ? c : escapeGlob(c);
  }
  return out;
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
  const word = shellPattern(candidate);
  const absolute = path.isAbsolute(candidate) ? word : path.resolve(escapeGlob(cwd), word.replace(/^~(?=\/|$)/, escapeGlob(homedir())));
  const { base, rest } = splitPattern(absolute.replaceAll(HOLE, '**'));
  // The literal start of the glob may itself lead through a symlink.
  const physicalBase = physicalOrSelf(base || '/');
  const physicalGlob = path.join(escapeGlob(physicalBase), rest);
  // An expansion's value may start with a dot; a glob's `*` matches one only as the shell does.
  const match = { dot: candidate.includes(HOLE) || options.dotglob === true, nocase: options.nocaseglob === true };
  // `hooks/*.py` may create a file in a protected folder even when nothing there matches yet.
  const inFolder = (t: ProtectedTarget) => t.folder && (t.physical === physicalBase || isWithin(t.physical, physicalBase));
  // `.g?t/hooks/x` reaches into the folder `.git` through a glob in a folder's name.
  const prefixes = folderGlobs(escapeGlob(physicalBase), rest, absolute);
  const intoFolder = (t: ProtectedTarget) => t.folder && prefixes.some((prefix) => picomatch.isMatch(t.physical, prefix, match));
  return targets.find((t) => inFolder(t) || intoFolder(t) || picomatch.isMatch(t.physical, physicalGlob, match));
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
