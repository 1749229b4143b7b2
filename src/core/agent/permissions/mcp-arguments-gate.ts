import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PermissionSignal } from '../../permissions/precedence';
import { protectedTargetOf, type ProtectedTarget } from './protected-targets';

/** Strings (values and keys) read per call; past it the call asks rather than being read whole. */
const MAX_STRINGS = 10_000;
/** A one-line string this long cannot be checked cheaply: the call asks. */
const MAX_PATH_CHARS = 1024 * 1024;

/** The strings of a tool input, values and object keys, at any depth; undefined past the cap. */
function stringsOf(input: unknown): string[] | undefined {
  const out: string[] = [];
  const pending: unknown[] = [input];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) for (const item of value) pending.push(item);
    else if (value !== null && typeof value === 'object')
      for (const [key, item] of Object.entries(value)) {
        out.push(key);
        pending.push(item);
      }
    if (out.length > MAX_STRINGS || pending.length > MAX_STRINGS) return undefined;
  }
  return out;
}

/** The paths a string may name: itself (a `file:` URI as its path), and the value of `--out=path`. */
function pathsIn(value: string): string[] {
  const paths = [value];
  const eq = value.indexOf('=');
  if (eq > 0) paths.push(value.slice(eq + 1));
  return paths.flatMap((candidate) => {
    if (!/^file:/i.test(candidate)) return [candidate];
    try {
      return [fileURLToPath(new URL(candidate))];
    } catch {
      return [];
    }
  });
}

/**
 * The target a relative path may name from a base the server picks itself (its own cwd, the
 * first of its allowed folders, `~`), which the gate cannot know: any target whose path ends
 * with the path's segments after its leading `..` and `~`, or a folder target ending with a
 * start of them (the path leads into it). Each target costs at most as many comparisons as its
 * own path has segments.
 */
function targetFromAnyBase(relative: string, targets: readonly ProtectedTarget[]): ProtectedTarget | undefined {
  const segments = path.normalize(relative).split(path.sep);
  const first = segments.findIndex((segment) => segment !== '..' && segment !== '~');
  const named = first < 0 ? [] : segments.slice(first).filter((segment) => segment !== '.' && segment !== '');
  if (named.length === 0) return undefined;
  const endsWith = (physical: string, count: number) => physical.endsWith(path.sep + named.slice(0, count).join(path.sep));
  return targets.find((target) => {
    const depth = target.physical.split(path.sep).length;
    if (named.length <= depth && endsWith(target.physical, named.length)) return true;
    if (!target.folder) return false;
    for (let count = 1; count < Math.min(named.length, depth + 1); count++) if (endsWith(target.physical, count)) return true;
    return false;
  });
}

/** Who a path among an MCP call's arguments must be shown to, and why. */
export interface McpTargetCheck {
  targets: readonly ProtectedTarget[];
  reason: (hit: ProtectedTarget) => string;
  /** Why a path is protected by its name alone, wherever it leads (a `.git` folder), or undefined. */
  protectedName?: (candidate: string) => string | undefined;
}

/**
 * An MCP tool's arguments are opaque: a filesystem server's `write_file {path}` edits files
 * as Write does, and a call the rules allow must not rewrite the hook configuration or the
 * scripts that govern the agent, nor read Hookpilot's private records. Any argument (or key)
 * that names one of `check.targets` (relative to the workspace or the agent's directory, or to
 * any base the server may resolve a relative path from, as `--opt=path`, or as a file: URI)
 * needs a person.
 */
export function mcpProtectedCheck(
  input: Record<string, unknown>,
  dirs: { workspaceRoot: string; cwd: string },
  check: McpTargetCheck,
): PermissionSignal | undefined {
  const { targets } = check;
  if (targets.length === 0 && check.protectedName === undefined) return undefined;
  const strings = stringsOf(input);
  if (strings === undefined)
    return {
      verdict: 'ask',
      source: 'protected file',
      reason: `the call has more than ${MAX_STRINGS} arguments to check for protected files`,
    };
  for (const value of strings) {
    if (value === '' || value.includes('\n')) continue;
    if (value.length > MAX_PATH_CHARS)
      return { verdict: 'ask', source: 'protected file', reason: 'an argument is too long to check for protected files' };
    for (const candidate of pathsIn(value)) {
      const hit =
        protectedTargetOf(candidate, dirs.workspaceRoot, targets) ??
        (dirs.cwd === dirs.workspaceRoot ? undefined : protectedTargetOf(candidate, dirs.cwd, targets)) ??
        (path.isAbsolute(candidate) ? undefined : targetFromAnyBase(candidate, targets));
      if (hit) return { verdict: 'ask', source: 'protected file', reason: check.reason(hit) };
      const named = check.protectedName?.(candidate);
      if (named) return { verdict: 'ask', source: 'protected file', reason: named };
    }
  }
  return undefined;
}
