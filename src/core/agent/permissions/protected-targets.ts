import path from 'node:path';
import picomatch from 'picomatch';
import { HOLE } from '../../permissions/wildcard';
import { pathCandidates } from './bash-words';
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

/**
 * The protected target a shell word could name: the word as a path, the value of `--opt=value`
 * or `-ovalue`, or, for a glob (or a word with an expansion in it, read as `**`), any target it matches.
 */
export function protectedTargetInWord(word: string, cwd: string, targets: readonly ProtectedTarget[]): ProtectedTarget | undefined {
  for (const candidate of pathCandidates(word)) {
    if (candidate === '' || (candidate.includes(HOLE) && /^[/.*\uE000]*$/.test(candidate))) continue;
    const pattern = candidate.includes(HOLE) || /[*?[]/.test(candidate);
    const hit = pattern ? globTarget(candidate, cwd, targets) : protectedTargetOf(candidate, cwd, targets);
    if (hit) return hit;
  }
  return undefined;
}

function globTarget(candidate: string, cwd: string, targets: readonly ProtectedTarget[]): ProtectedTarget | undefined {
  const absolute = toAbsolutePath(candidate.replaceAll(HOLE, '**'), cwd);
  const { base, glob: rest } = picomatch.scan(absolute);
  // The literal start of the glob may itself lead through a symlink.
  const physicalBase = physicalOrSelf(base || '/');
  const physicalGlob = path.join(physicalBase, rest);
  // `hooks/*.py` may create a file in a protected folder even when nothing there matches yet.
  const inFolder = (t: ProtectedTarget) => t.folder && (t.physical === physicalBase || isWithin(t.physical, physicalBase));
  // `.g?t/hooks/x` reaches into the folder `.git` through a glob in a folder's name.
  const prefixes = folderGlobs(physicalBase, rest, toAbsolutePath(candidate, cwd));
  const intoFolder = (t: ProtectedTarget) => t.folder && prefixes.some((prefix) => picomatch.isMatch(t.physical, prefix, { dot: true }));
  return targets.find((t) => inFolder(t) || intoFolder(t) || picomatch.isMatch(t.physical, physicalGlob, { dot: true }));
}

/**
 * The globs of the folders a glob passes through below its literal base: for `a?/b?/c`,
 * `base/a?` and `base/a?/b?`. A folder named by an expansion (`$d/x`) is not one of them:
 * what it holds is unknown, and reading every such word as `.git` would ask at every `$d/x`.
 */
function folderGlobs(base: string, rest: string, written: string): string[] {
  const parts = rest.split('/');
  const writtenParts = written.split(path.sep).slice(-parts.length);
  const globs: string[] = [];
  for (let i = 0; i < parts.length - 1; i++)
    if (parts[i] !== '' && !writtenParts[i]?.includes(HOLE)) globs.push(path.join(base, ...parts.slice(0, i + 1)));
  return globs;
}

function physicalOrSelf(p: string): string {
  try {
    return physicalPath(p);
  } catch {
    // A symlink loop: nothing real is there to protect or reach.
    return p;
  }
}
