import path from 'node:path';
import { lookup, noFindings, type Findings } from './conversion';
import type { FoundSource } from './import-types';

const REFERENCE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** Environment variables a command line refers to (`$NAME` or `${NAME}`). */
export function referencedVariables(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(REFERENCE)) names.add(m[1] ?? m[2]);
  return [...names];
}

export interface EnvResult extends Findings {
  env?: Record<string, string>;
}

/**
 * Variables the source agent sets for its hooks that Hookpilot can set the same way
 * through `env` (values may use `${CLAUDE_PROJECT_DIR}` and `${HOOKPILOT_SESSION_ID}`),
 * set when the command line uses them.
 */
export function aliasVariables(
  command: string,
  env: Record<string, string> | undefined,
  aliases: Readonly<Record<string, string>>,
): EnvResult {
  const used = referencedVariables(command).flatMap((name) => {
    const value = lookup(aliases, name);
    return value === undefined || (env && lookup(env, name) !== undefined) ? [] : [[name, value] as const];
  });
  if (used.length === 0) return { env, ...noFindings() };
  return {
    env: { ...env, ...Object.fromEntries(used) },
    changes: [],
    notes: [`${used.map(([name, value]) => `${name}=${value}`).join(', ')} set through "env", as the source agent sets it`],
  };
}

/** Variables the source agent sets that Hookpilot has no value for: a change when the command line uses them. */
export function missingVariables(command: string, missing: Readonly<Record<string, string>>): Findings {
  const findings = noFindings();
  for (const name of referencedVariables(command)) {
    const advice = lookup(missing, name);
    if (advice) findings.changes.push(`$${name} is not set by Hookpilot: ${advice}`);
  }
  return findings;
}

/** Hookpilot expands only `${NAME}` in `env` values; `$NAME` is written braced. */
export function braceReferences(env: Record<string, string>): EnvResult {
  const out: Record<string, string> = {};
  let changed = false;
  for (const [name, value] of Object.entries(env)) {
    const braced = value.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, '${$1}');
    changed ||= braced !== value;
    out[name] = braced;
  }
  return { env: out, changes: [], notes: changed ? ['"env" values written with ${NAME}, the form Hookpilot expands'] : [] };
}

/** Text inside double quotes for `sh`: only `"`, `\`, `` ` `` and `$` are special there. */
function doubleQuoted(text: string): string {
  return text.replace(/(["\\`$])/g, '\\$1');
}

/**
 * A shell word that runs the script at `file`: inside the project it is written
 * relative to `${CLAUDE_PROJECT_DIR}`, so the hook works wherever the workspace is.
 */
export function scriptWord(source: FoundSource, file: string): string {
  const relative = path.relative(source.projectDir, file);
  if (source.scope !== 'user' && relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)) {
    return `"\${CLAUDE_PROJECT_DIR}/${doubleQuoted(relative.split(path.sep).join('/'))}"`;
  }
  return `"${doubleQuoted(file)}"`;
}

/** Milliseconds as the seconds Hookpilot's `timeout` takes; fractions are allowed, so nothing is rounded. */
export function msToSeconds(ms: number): number {
  return ms / 1000;
}
