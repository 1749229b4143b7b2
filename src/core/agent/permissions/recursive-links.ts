import { opendirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { commandName } from '../../permissions/bash-wrappers';
import { HOLE } from '../../permissions/wildcard';
import { toAbsolutePath } from '../tools/workspace-paths';
import { GLOB, type ParsedBash } from './bash-words';
import { lineCommands } from './line-commands';

/*
 * A recursive read that follows links (`grep -R`, `ls -RL`, `find -L`, `cp -rL`, `du -L`,
 * `rsync -rL`, `rg -L`, `diff -r`, `tar -ch`, `zip -r`, `chmod -RL`, `tree -l`, `fd -L`) reads
 * (or changes) through every symlink below the folders it is given: one in the workspace that
 * leads out (a linked package) is read as if the line named it. Plain `grep -r` follows only
 * the links its words name, which the word check sees.
 */

/** Short options that take a value (the rest of the group or the next word), per program. */
const VALUED: Record<string, string> = {
  grep: 'efmABCdD',
  rg: 'efgtTmABCjMEr',
  ls: 'ITw',
  cp: 'St',
  du: 'dBtX',
  rsync: 'efBTM',
  diff: 'CDFILSUWXx',
  tar: 'bCfFgHIKLNTVX',
  zip: 'bintsxOPZ',
  fd: 'cdeEjoStxX',
};

/**
 * Whether `args` hold one of the short `letters` (in a group, before an option that takes a
 * value) or long `names`, a long one also abbreviated: GNU getopt takes any unambiguous
 * prefix (`--deref`), and one that is not errors, so any prefix of at least three characters counts.
 */
function hasOption(program: string, args: readonly string[], letters: string, names: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg.startsWith('--')) {
      const name = arg.split('=')[0];
      if (name.length >= 3 && names.some((listed) => listed.startsWith(name))) return true;
      continue;
    }
    if (!arg.startsWith('-')) continue;
    for (const letter of arg.slice(1)) {
      if (letters.includes(letter)) return true;
      if ((VALUED[program] ?? '').includes(letter)) break;
    }
  }
  return false;
}

const grep = (args: readonly string[]) => hasOption('grep', args, 'R', ['--dereference-recursive']);
/** chmod, chown and chgrp change what the links below lead to with -R and -L. */
const changesMode = (program: string) => (args: readonly string[]) =>
  hasOption(program, args, 'R', ['--recursive']) && hasOption(program, args, 'L', []);

/** tar reads its first word as a group of options without the dash (`tar chf x.tar dir`). */
function tarOption(args: readonly string[], letters: string, names: readonly string[]): boolean {
  const first = args[0] ?? '';
  const old = first !== '' && !first.startsWith('-') && [...first].some((letter) => letters.includes(letter));
  return old || hasOption('tar', args, letters, names);
}

/** Whether the program's first operand is its search pattern: grep and rg unless -e/-f give it, fd always. */
function takesPattern(program: string, args: readonly string[]): boolean {
  if (program === 'fd') return true;
  if (!['grep', 'egrep', 'fgrep', 'rg'].includes(program)) return false;
  return !hasOption(program, args, 'ef', ['--regexp', '--file']);
}

/** Whether a program's options (the words after its name) make it follow the links below its folders. */
const FOLLOWS: Record<string, (args: readonly string[]) => boolean> = {
  grep,
  egrep: grep,
  fgrep: grep,
  rg: (args) => hasOption('rg', args, 'L', ['--follow']),
  ls: (args) => hasOption('ls', args, 'R', ['--recursive']) && hasOption('ls', args, 'L', ['--dereference']),
  find: (args) => args.some((arg) => /^-[HLP]*L[HLP]*$/.test(arg) || arg === '-follow'),
  cp: (args) => hasOption('cp', args, 'rRa', ['--recursive', '--archive']) && hasOption('cp', args, 'L', ['--dereference']),
  du: (args) => hasOption('du', args, 'L', ['--dereference']),
  rsync: (args) =>
    hasOption('rsync', args, 'ra', ['--recursive', '--archive']) &&
    hasOption('rsync', args, 'Lk', ['--copy-links', '--copy-unsafe-links', '--copy-dirlinks']),
  // diff follows by default.
  diff: (args) => hasOption('diff', args, 'r', ['--recursive']),
  // Creating, appending or updating an archive reads; -h follows.
  tar: (args) => tarOption(args, 'cru', ['--create', '--append', '--update']) && tarOption(args, 'h', ['--dereference']),
  // zip follows by default; -y stores a link as one. -R walks from the current folder.
  zip: (args) =>
    hasOption('zip', args, 'rR', ['--recurse-paths', '--recurse-patterns']) &&
    !hasOption('zip', args, 'y', []) &&
    !args.includes('--symlinks'),
  chmod: changesMode('chmod'),
  chown: changesMode('chown'),
  chgrp: changesMode('chgrp'),
  tree: (args) => hasOption('tree', args, 'l', []),
  fd: (args) => hasOption('fd', args, 'L', ['--follow']),
};

/**
 * The folders the line's link-following recursive reads walk, from each of `dirs` (where its
 * relative words are read): each word that names a folder, or the directory itself when no
 * word names anything there (`grep -R x`, `ls -RL`, `find -L`) or a word may name something
 * other than it shows (a glob, an expansion, an operand after `--`).
 */
export function followedFolders(analysis: ParsedBash, dirs: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const words of lineCommands(analysis)) {
    const args = words.slice(1);
    if (!FOLLOWS[commandName(words[0] ?? '')]?.(args)) continue;
    const end = args.indexOf('--');
    const before = end === -1 ? args : args.slice(0, end);
    const all = [...before.filter((arg) => !arg.startsWith('-')), ...(end === -1 ? [] : args.slice(end + 1))];
    // The search pattern is no folder: `grep -R src` searches the current one.
    const operands = takesPattern(commandName(words[0] ?? ''), args) ? all.slice(1) : all;
    const unknown = end !== -1 || operands.some((operand) => operand.includes(HOLE) || GLOB.test(operand));
    for (const dir of dirs) {
      const named = operands.filter((operand) => !operand.includes(HOLE)).map((operand) => toAbsolutePath(operand, dir));
      const kinds = named.map(entryKind);
      if (unknown || kinds.every((kind) => kind === undefined)) folders.add(dir);
      for (const [k, file] of named.entries()) if (kinds[k] === 'folder') folders.add(file);
    }
  }
  return [...folders];
}

/** What a path leads to, links followed: undefined when nothing. */
function entryKind(file: string): 'folder' | 'other' | undefined {
  try {
    return statSync(file).isDirectory() ? 'folder' : 'other';
  } catch {
    return undefined;
  }
}

/** Directory entries, and milliseconds, one line's walk may spend; past either it asks. */
export const MAX_WALKED = 10_000;
export const MAX_WALK_MS = 50;

/**
 * The first problem `check` finds with a symlink below `folders` (given its path as the walk
 * reaches it), going on through every linked folder it lets pass, each folder once. A walk
 * past MAX_WALKED entries or MAX_WALK_MS is a problem too, unless `bestEffort` (a check that
 * must not make every `grep -R x .` in a big workspace ask): then it ends with no problem. The
 * clock is read every CLOCK_EVERY entries: a small walk gives the same answer however busy the
 * machine is.
 */
export function linkBelowProblem(
  folders: readonly string[],
  check: (link: string) => string | undefined,
  { bestEffort = false } = {},
): string | undefined {
  const started = performance.now();
  const seen = new Set<string>();
  const pending = folders.flatMap((folder) => physicalFolder(folder));
  let walked = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [folder, physical] = next;
    if (seen.has(physical)) continue;
    seen.add(physical);
    let handle;
    try {
      handle = opendirSync(folder, { bufferSize: 128 });
    } catch {
      continue;
    }
    try {
      for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
        walked++;
        if (walked > MAX_WALKED || (walked % CLOCK_EVERY === 0 && performance.now() - started > MAX_WALK_MS)) {
          if (bestEffort) return undefined;
          const shown = folders.map((f) => `\`${f}\``).join(', ');
          return `it reads recursively through the links below ${shown}: more than ${MAX_WALKED} entries or ${MAX_WALK_MS} ms to check`;
        }
        const below = path.join(folder, entry.name);
        // Only a link leads to a folder seen before: a plain one is known by its parent's physical path.
        if (entry.isDirectory()) pending.push([below, path.join(physical, entry.name)]);
        if (!entry.isSymbolicLink()) continue;
        const problem = check(below);
        if (problem) return problem;
        if (entryKind(below) === 'folder') pending.push(...physicalFolder(below));
      }
    } catch {
      // Unreadable part way: the program cannot read on there either.
    } finally {
      handle.closeSync();
    }
  }
  return undefined;
}

const CLOCK_EVERY = 128;

function physicalFolder(folder: string): [string, string][] {
  try {
    return [[folder, realpathSync.native(folder)]];
  } catch {
    return [];
  }
}
