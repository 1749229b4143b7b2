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
 * An MCP tool's arguments are opaque: a filesystem server's `write_file {path}` edits files
 * as Write does, and a call the rules allow must not rewrite the hook configuration or the
 * scripts that govern the agent. Any argument (or key) that names a protected file (relative
 * to the workspace or the agent's directory, as `--opt=path`, or as a file: URI) needs a person.
 */
export function mcpProtectedCheck(
  input: Record<string, unknown>,
  dirs: { workspaceRoot: string; cwd: string },
  targets: readonly ProtectedTarget[],
): PermissionSignal | undefined {
  if (targets.length === 0) return undefined;
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
        (dirs.cwd === dirs.workspaceRoot ? undefined : protectedTargetOf(candidate, dirs.cwd, targets));
      if (hit)
        return {
          verdict: 'ask',
          source: 'protected file',
          reason: `${hit.shown} configures hooks: a person must approve an MCP call that names it`,
        };
    }
  }
  return undefined;
}
