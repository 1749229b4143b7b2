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
    const hit = pattern ? globTarget(candidate.replaceAll(HOLE, '**'), cwd, targets) : protectedTargetOf(candidate, cwd, targets);
    if (hit) return hit;
  }
  return undefined;
}

function globTarget(glob: string, cwd: string, targets: readonly ProtectedTarget[]): ProtectedTarget | undefined {
  const absolute = toAbsolutePath(glob, cwd);
  const { base, glob: rest } = picomatch.scan(absolute);
  // The literal start of the glob may itself lead through a symlink.
  const physicalBase = physicalOrSelf(base || '/');
  const physicalGlob = path.join(physicalBase, rest);
  // `hooks/*.py` may create a file in a protected folder even when nothing there matches yet.
  const inFolder = (t: ProtectedTarget) => t.folder && (t.physical === physicalBase || isWithin(t.physical, physicalBase));
  return targets.find((t) => inFolder(t) || picomatch.isMatch(t.physical, physicalGlob, { dot: true }));
}

function physicalOrSelf(p: string): string {
  try {
    return physicalPath(p);
  } catch {
    // A symlink loop: nothing real is there to protect or reach.
    return p;
  }
}
