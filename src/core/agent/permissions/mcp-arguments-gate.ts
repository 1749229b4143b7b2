import { fileURLToPath } from 'node:url';
import type { PermissionSignal } from '../../permissions/precedence';
import { protectedTargetOf, type ProtectedTarget } from './protected-targets';

/** Strings read per call; past it the call asks rather than being read whole. */
const MAX_STRINGS = 10_000;
/** Longer strings, or strings of several lines, are contents, not paths. */
const MAX_PATH_CHARS = 4096;

/** The string values of a tool input, at any depth; undefined past the cap. */
function stringsOf(input: unknown): string[] | undefined {
  const out: string[] = [];
  const pending: unknown[] = [input];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (out.push(value) > MAX_STRINGS) return undefined;
    } else if (Array.isArray(value)) pending.push(...value);
    else if (value !== null && typeof value === 'object') pending.push(...Object.values(value));
  }
  return out;
}

function asPath(value: string): string | undefined {
  if (value === '' || value.length > MAX_PATH_CHARS || value.includes('\n')) return undefined;
  if (!value.startsWith('file://')) return value;
  try {
    return fileURLToPath(value);
  } catch {
    return undefined;
  }
}

/**
 * An MCP tool's arguments are opaque: a filesystem server's `write_file {path}` edits files
 * as Write does, and a call the rules allow must not rewrite the hook configuration or the
 * scripts that govern the agent. Any argument that names a protected file (relative to the
 * workspace or the agent's directory, or as a file: URI) needs a person.
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
    const candidate = asPath(value);
    if (candidate === undefined) continue;
    const hit = protectedTargetOf(candidate, dirs.workspaceRoot, targets) ?? protectedTargetOf(candidate, dirs.cwd, targets);
    if (hit)
      return {
        verdict: 'ask',
        source: 'protected file',
        reason: `${hit.shown} configures hooks: a person must approve an MCP call that names it`,
      };
  }
  return undefined;
}
