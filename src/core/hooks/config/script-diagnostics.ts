import { statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { HookDefinition } from '../types';
import { commandWords, findCommandScript } from './command-script';
import type { ConfigProblem, ProblemCode } from './config-problems';

/** Variables a hook command may use that are known before it runs. */
function expander(projectDir: string, env: Record<string, string> | undefined) {
  return (name: string): string | undefined => {
    if (name === 'CLAUDE_PROJECT_DIR' || name === 'HOOKPILOT_PROJECT_DIR') return projectDir;
    if (name === 'HOME') return homedir();
    return env?.[name] ?? process.env[name];
  };
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function problemFor(hook: HookDefinition, code: ProblemCode, message: string): ConfigProblem {
  const { source } = hook;
  const problem: ConfigProblem = { severity: 'warning', code, message, path: source.path ?? '', sourceKind: source.kind, hookId: hook.id };
  if (source.file !== undefined) problem.file = source.file;
  if (source.line !== undefined) problem.line = source.line;
  if (source.column !== undefined) problem.column = source.column;
  return problem;
}

/**
 * Checks the scripts command hooks run, what a schema cannot see: a missing file, or a
 * file run directly that is not executable. Scripts behind unknown variables are skipped.
 */
export function checkHookScripts(hooks: readonly HookDefinition[], projectDir: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const hook of hooks) {
    if (hook.spec.type !== 'command') continue;
    const { spec } = hook;
    const script = findCommandScript(commandWords(spec.command, spec.args, expander(projectDir, spec.env)));
    // An unexpanded `${NAME}` is a variable only known at run time (e.g. CLAUDE_PLUGIN_ROOT).
    if (!script || script.path.includes('${')) continue;
    const cwd = spec.cwd ? resolve(projectDir, spec.cwd) : projectDir;
    const expanded = script.path === '~' || script.path.startsWith('~/') ? homedir() + script.path.slice(1) : script.path;
    const file = isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
    const stats = statOrUndefined(file);
    if (!stats) {
      problems.push(problemFor(hook, 'script-missing', `Hook script not found: ${script.path} (looked for ${file}).`));
    } else if (stats.isDirectory()) {
      problems.push(problemFor(hook, 'script-missing', `Hook script is a directory: ${script.path} (${file}).`));
    } else if (!script.viaInterpreter && process.platform !== 'win32' && (stats.mode & 0o111) === 0) {
      problems.push(
        problemFor(
          hook,
          'script-not-executable',
          `Hook script is not executable: ${script.path}. Run chmod +x on it, or run it through an interpreter (e.g. "bash ${script.path}").`,
        ),
      );
    }
  }
  return problems;
}
