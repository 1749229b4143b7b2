import { opendirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { commandName } from '../../permissions/bash-wrappers';
import { HOLE } from '../../permissions/wildcard';
import { toAbsolutePath } from '../tools/workspace-paths';
import type { ParsedBash } from './bash-words';
import { lineCommands } from './line-commands';

/*
 * A recursive read that follows links (`grep -R`, `ls -RL`, `find -L`, `cp -rL`, `du -L`,
 * `rsync -rL`, `rg -L`) reads through every symlink below the folders it is given: one in the
 * workspace that leads out (a linked package) is read as if the line named it. Plain `grep -r`
 * follows only the links its words name, which the word check sees.
 */

/** Short options that take a value (the rest of the group or the next word), per program. */
const VALUED: Record<string, string> = { grep: 'efmABCdD', rg: 'efgtTmABCjMEr', ls: 'ITw', cp: 'St', du: 'dBtX', rsync: 'efBTM' };

/** Whether `args` hold one of the short `letters` (in a group, before an option that takes a value) or long `names`. */
function hasOption(program: string, args: readonly string[], letters: string, names: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg.startsWith('--')) {
      if (names.includes(arg.split('=')[0])) return true;
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
};

/**
 * The folders the line's link-following recursive reads walk, from each of `dirs` (where its
 * relative words are read): each word that names a folder, or the directory itself when no
 * word names anything there (`grep -R x`, `ls -RL`, `find -L`).
 */
export function followedFolders(analysis: ParsedBash, dirs: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const words of lineCommands(analysis)) {
    const args = words.slice(1);
    if (!FOLLOWS[commandName(words[0] ?? '')]?.(args)) continue;
    const operands = args.filter((arg) => !arg.startsWith('-') && !arg.includes(HOLE));
    for (const dir of dirs) {
      const named = operands.map((operand) => toAbsolutePath(operand, dir));
      const kinds = named.map(entryKind);
      if (kinds.every((kind) => kind === undefined)) folders.add(dir);
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
 * reaches it), going on through every linked folder it lets pass, each folder once; a problem
 * too when the walk passes MAX_WALKED entries or MAX_WALK_MS. The clock is read every
 * CLOCK_EVERY entries: a small walk gives the same answer however busy the machine is.
 */
export function linkBelowProblem(folders: readonly string[], check: (link: string) => string | undefined): string | undefined {
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
