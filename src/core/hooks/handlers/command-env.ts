import { mkdirSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { isWithin } from '../../agent/tools/workspace-paths';
import { withAgentWritablePathLast } from '../../process/path-search-order';
import type { HookEventName } from '../events';

const PROJECT_DIR_PLACEHOLDER = /\$\{(?:CLAUDE|HOOKPILOT)_PROJECT_DIR\}/g;
const BRACED_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${NAME}` references in `text` replaced by `lookup(NAME)`: the `env` values of hooks and servers. */
export function expandBracedReferences(text: string, lookup: (name: string) => string): string {
  return text.replace(BRACED_REFERENCE, (_match, ref: string) => lookup(ref));
}

/** Replaces `${CLAUDE_PROJECT_DIR}` and `${HOOKPILOT_PROJECT_DIR}` (exec form has no shell to do it). */
export function substituteProjectDir(text: string, projectDir: string): string {
  return text.replace(PROJECT_DIR_PLACEHOLDER, () => projectDir);
}

export interface HookEnvInput {
  base: NodeJS.ProcessEnv;
  /** The hook's `env`: values may reference `${NAME}` from the base env. */
  specEnv?: Record<string, string>;
  projectDir: string;
  sessionId: string;
  event: HookEventName;
  /** Tool events: the tool, for AtomCode's ATOMCODE_TOOL_NAME. */
  toolName?: string;
  /** Set by the dispatch (SessionStart's CLAUDE_ENV_FILE); a hook's own `env` cannot override it. */
  dispatchEnv?: Readonly<Record<string, string>>;
  /** Folders besides the project the agent may write: PATH searches them last too. */
  writableRoots?: readonly string[];
}

/**
 * The environment a command hook sees, as Claude Code gives it: the whole base env (tokens
 * and keys included: a hook is the user's own code, and a third-party hook that checks
 * GITHUB_TOKEN must decide as it would under Claude Code), the hook's own `env`, and the
 * variables Claude Code sets for its hooks. Only the model's Bash tool goes without secrets.
 * One change: PATH searches the folders the agent can write last (path-search-order.ts), so a
 * program the model planted there cannot stand in for the one the hook runs.
 */
export function buildHookEnv(input: HookEnvInput): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(input.base)) if (value !== undefined) env[name] = value;
  const fixed: Record<string, string> = {
    CLAUDE_PROJECT_DIR: input.projectDir,
    HOOKPILOT_PROJECT_DIR: input.projectDir,
    CLAUDECODE: '1',
    CLAUDE_CODE_SESSION_ID: input.sessionId,
    HOOKPILOT_SESSION_ID: input.sessionId,
    HOOKPILOT_HOOK_EVENT: input.event,
    // AtomCode's script-hook variables, so its scripts carry over unchanged.
    ATOMCODE_HOOK_EVENT: input.event,
    ATOMCODE_HOOK_TYPE: input.event,
    ATOMCODE_WORKSPACE: input.projectDir,
    ...(input.toolName === undefined ? {} : { ATOMCODE_TOOL_NAME: input.toolName }),
    ...input.dispatchEnv,
  };
  const lookup = (name: string): string => fixed[name] ?? input.base[name] ?? '';
  for (const [name, value] of Object.entries(input.specEnv ?? {})) {
    env[name] = expandBracedReferences(value, lookup);
  }
  return withAgentWritablePathLast({ ...env, ...fixed }, [input.projectDir, ...(input.writableRoots ?? [])]);
}

/** spec.cwd (relative to the project), else the session's current directory, else the project. */
export function resolveHookCwd(specCwd: string | undefined, payloadCwd: string | undefined, projectDir: string): string {
  if (specCwd !== undefined && specCwd !== '') {
    const dir = substituteProjectDir(specCwd, projectDir);
    return isAbsolute(dir) ? dir : resolve(projectDir, dir);
  }
  return payloadCwd || projectDir;
}

/** `$NAME` or `${NAME}` of a variable that holds the workspace folder's path. */
const WORKSPACE_VARIABLE = /\$\{?(?:CLAUDE_PROJECT_DIR|HOOKPILOT_PROJECT_DIR|ATOMCODE_WORKSPACE)(?![A-Za-z0-9_])/;
/** A character that continues a file name: a path followed by one names another file. */
const NAME_CHARACTER = /[A-Za-z0-9._~+-]/;

/** What a hook or server would run while the workspace is untrusted: its own `cwd`, and its command, arguments and `env` values. */
export interface UntrustedRun {
  cwd?: string;
  runs: readonly string[];
}

/** Whether `text` names the workspace folder: a variable holding its path, or the path itself. */
function namesWorkspace(text: string, projectDir: string): boolean {
  if (WORKSPACE_VARIABLE.test(text)) return true;
  for (let at = text.indexOf(projectDir); at !== -1; at = text.indexOf(projectDir, at + 1)) {
    if (!NAME_CHARACTER.test(text.charAt(at + projectDir.length))) return true;
  }
  return false;
}

/**
 * Where the person's own hook or server runs while the workspace is untrusted (Restricted
 * Mode): not the workspace folder, where `python3 -m guard` imports the repository's guard.py
 * and `npx` runs its node_modules/.bin and reads its .npmrc, but `emptyDir` (created on
 * demand, private). Its own absolute `cwd` outside the workspace stays; a `cwd` in the
 * workspace or relative to it (`${CLAUDE_PROJECT_DIR}/..` too) is the reason it does not run,
 * as is a command, argument or `env` value that names the workspace folder
 * (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`, `PYTHONPATH=${CLAUDE_PROJECT_DIR}/lib`):
 * it would run the repository's file.
 */
export function untrustedWorkingFolder(
  run: UntrustedRun,
  projectDir: string,
  emptyDir: string,
): { cwd: string; refused?: undefined } | { refused: string } {
  const named = run.runs.find((text) => namesWorkspace(text, projectDir));
  if (named !== undefined) {
    return {
      refused: `it names the workspace folder in what it runs (${JSON.stringify(named.slice(0, 200))}), whose files are not run while the workspace is untrusted (Restricted Mode); it runs once the workspace is trusted`,
    };
  }
  const specCwd = run.cwd;
  if (specCwd === undefined || specCwd === '') {
    mkdirSync(emptyDir, { recursive: true, mode: 0o700 });
    return { cwd: emptyDir };
  }
  if (specCwd.search(PROJECT_DIR_PLACEHOLDER) === -1 && isAbsolute(specCwd) && !isWithin(projectDir, resolve(specCwd))) {
    return { cwd: resolve(specCwd) };
  }
  return {
    refused: `its cwd "${specCwd}" is in or relative to the workspace folder, which is not used while the workspace is untrusted (Restricted Mode); it runs once the workspace is trusted`,
  };
}
