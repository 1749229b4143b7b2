import { lstatSync, readlinkSync } from 'node:fs';
import { delimiter, isAbsolute, resolve, sep } from 'node:path';
import { isWithin, physicalPath } from '../agent/tools/workspace-paths';

/**
 * Which PATH folders the agent can fill, and a PATH that searches them last. A folder of PATH
 * inside the workspace (`$PWD/node_modules/.bin`, `~/project/bin`), or a relative or empty
 * one, which the lookup resolves from the command's directory, is one the model can write a
 * `jq`, `git` or `python3` into: a hook, an MCP server or a command a rule allows would then
 * run the model's program in place of the one it names.
 */

/** The variable's name: `PATH`, or on Windows however the environment spells it. */
export function pathVariableName(env: NodeJS.ProcessEnv): string {
  if (process.platform !== 'win32') return 'PATH';
  return Object.keys(env).find((name) => name.toUpperCase() === 'PATH') ?? 'PATH';
}

const MAX_LINK_HOPS = 40;
/** Windows takes either slash. */
const SEPARATORS = process.platform === 'win32' ? /[\\/]/ : '/';

/**
 * Whether looking `dir` up, as the kernel does (each link followed where it is met, `..` after
 * a link leaving the link's target), reads any place inside `roots`: a folder there, or a link
 * there that the agent could point elsewhere at any time. Places outside the roots are not
 * the agent's to change, so the answer holds for as long as the roots do.
 */
function lookupTouches(dir: string, roots: readonly string[]): boolean {
  const inRoot = (place: string) => roots.some((root) => isWithin(root, place));
  let hops = 0;
  const walk = (from: string, path: string): string | undefined => {
    let current = isAbsolute(path) ? resolve(path.slice(0, path.indexOf(sep) + 1) || sep) : from;
    for (const name of path.split(SEPARATORS)) {
      if (name === '' || name === '.') continue;
      if (name === '..') {
        current = resolve(current, '..');
        continue;
      }
      const place = resolve(current, name);
      if (inRoot(place)) return undefined;
      const entry = lstatSync(place, { throwIfNoEntry: false });
      if (entry?.isSymbolicLink()) {
        if (++hops > MAX_LINK_HOPS) return undefined;
        const target = walk(current, readlinkSync(place));
        if (target === undefined) return undefined;
        current = target;
      } else {
        current = place;
      }
    }
    return inRoot(current) ? undefined : current;
  };
  try {
    return walk(sep, dir) === undefined;
  } catch {
    // A place that cannot be read (no permission, not a folder on the way): not shown to be outside.
    return true;
  }
}

/**
 * Whether the agent can write into `dir`, a folder of PATH: relative or empty, or looked up
 * through any place inside `roots` (the folders the agent may write).
 */
export function isAgentWritablePathFolder(dir: string, roots: readonly string[]): boolean {
  if (!isAbsolute(dir)) return true;
  return lookupTouches(dir, physicalRoots(roots));
}

/** Each root as written and where it really is: a place may be reached either way. */
function physicalRoots(roots: readonly string[]): string[] {
  return [...new Set(roots.flatMap((root) => [resolve(root), physicalPath(resolve(root))]))];
}

/** PATH values as reordered, by PATH and roots: a process meets few of those. */
const reordered = new Map<string, string>();
const MAX_REORDERED = 32;

/**
 * `env` with its PATH searching the folders the agent can write after every other, each group
 * in its own order: a program outside them wins over one the model put there, and a tool only
 * the project has is still found. The same object when nothing moves.
 */
export function withAgentWritablePathLast(env: NodeJS.ProcessEnv, roots: readonly string[]): NodeJS.ProcessEnv {
  const name = pathVariableName(env);
  const value = env[name];
  if (value === undefined || value === '') return env;
  const key = [value, ...roots].join('\0');
  let ordered = reordered.get(key);
  if (ordered === undefined) {
    const places = physicalRoots(roots);
    const outside: string[] = [];
    const writable: string[] = [];
    for (const dir of value.split(delimiter)) (!isAbsolute(dir) || lookupTouches(dir, places) ? writable : outside).push(dir);
    ordered = [...outside, ...writable].join(delimiter);
    reordered.set(key, ordered);
    if (reordered.size > MAX_REORDERED) reordered.delete(reordered.keys().next().value as string);
  }
  return ordered === value ? env : { ...env, [name]: ordered };
}
