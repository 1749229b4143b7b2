import { delimiter, isAbsolute, resolve } from 'node:path';
import { lookupTouches, rootPlaces } from '../agent/tools/workspace-paths';

/**
 * Which PATH folders the agent can fill, and a PATH that searches them last. A folder of PATH
 * inside the workspace (`$PWD/node_modules/.bin`, `~/project/bin`), or a relative or empty
 * one, which the lookup resolves from the process's directory, is one the model can write a
 * `jq`, `node` or `git` into: a hook, a server or AutoCommit, which run with the user's whole
 * environment, would then run the model's program in place of the one they name.
 */

/** The variable's names: `PATH`, or on Windows every spelling the environment has (`Path`, `PATH`). */
function pathVariableNames(env: NodeJS.ProcessEnv): string[] {
  if (process.platform !== 'win32') return ['PATH'];
  return Object.keys(env).filter((name) => name.toUpperCase() === 'PATH');
}

/** The first PATH the environment has: the one to search for a program by hand. */
export function pathOf(env: NodeJS.ProcessEnv): string {
  const name = pathVariableNames(env).find((n) => env[n] !== undefined);
  return name === undefined ? '' : (env[name] ?? '');
}

/**
 * Every place the agent could write through a root: each root as written and where it leads
 * now, kept or not by rootPlaces (a nested root the agent swapped counts where it points, too).
 */
function placesOf(roots: readonly string[]): string[] {
  const places = roots.flatMap((root) => [root, ...rootPlaces([root]).map((place) => place.physical)]);
  return [...new Set(places.map((place) => resolve(place)))];
}

/** PATH's folders split by whether the agent can write them, by PATH and roots: a process meets few of those. */
const splits = new Map<string, PathSplit>();
const MAX_SPLITS = 32;

interface PathSplit {
  outside: string[];
  writable: string[];
}

/**
 * An answer depends only on places outside the roots (lookupTouches, rootPlaces), which the
 * agent cannot change: it holds for as long as the process runs.
 */
function splitPath(value: string, roots: readonly string[]): PathSplit {
  const key = [value, ...roots].join('\0');
  const known = splits.get(key);
  if (known) return known;
  const places = placesOf(roots);
  const split: PathSplit = { outside: [], writable: [] };
  for (const dir of value.split(delimiter)) (!isAbsolute(dir) || lookupTouches(dir, places) ? split.writable : split.outside).push(dir);
  splits.set(key, split);
  if (splits.size > MAX_SPLITS) splits.delete(splits.keys().next().value as string);
  return split;
}

function withPath(env: NodeJS.ProcessEnv, roots: readonly string[], folders: (split: PathSplit) => string[]): NodeJS.ProcessEnv {
  let next = env;
  for (const name of pathVariableNames(env)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const kept = folders(splitPath(value, roots));
    if (kept.join(delimiter) === value) continue;
    next = { ...next };
    // No folder left: no PATH at all, since an empty one would search the working directory.
    if (kept.length === 0) delete next[name];
    else next[name] = kept.join(delimiter);
  }
  return next;
}

/**
 * `env` with its PATH searching the folders the agent can write after every other, each group
 * in its own order: a program outside them wins over one the model put there, and a tool only
 * the project has is still found. The same object when nothing moves. For the user's own
 * processes (hooks, servers).
 */
export function withAgentWritablePathLast(env: NodeJS.ProcessEnv, roots: readonly string[]): NodeJS.ProcessEnv {
  return withPath(env, roots, (split) => [...split.outside, ...split.writable]);
}

/** `env` with no PATH folder the agent can write: for Hookpilot's own programs (AutoCommit's git and what git starts). */
export function withoutAgentWritablePath(env: NodeJS.ProcessEnv, roots: readonly string[]): NodeJS.ProcessEnv {
  return withPath(env, roots, (split) => split.outside);
}
