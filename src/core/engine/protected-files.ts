import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse } from 'shell-quote';
import { commandWords, findCommandScript } from '../hooks/config/command-script';
import { resolveHookCwd, substituteProjectDir } from '../hooks/handlers/command-env';
import type { HookDefinition, ServerDefinition } from '../hooks/types';

const CONFIG_FILES = ['.vscode/hooks.json', '.vscode/settings.json', '.claude/settings.json', '.claude/settings.local.json'];

/** Programs that run a `package.json` script: the manifest and that script's files are dependencies. */
const PACKAGE_RUNNERS = new Set(['npm', 'npx', 'yarn', 'pnpm', 'bun']);
/** Package manager settings beside package.json: `script-shell=./x.sh` would run a file of the model's. */
const PACKAGE_MANAGER_RC = ['.npmrc', '.yarnrc', '.yarnrc.yml'];
/** Programs that read a file of their working directory to know what to run. */
const TASK_FILES: Record<string, readonly string[]> = {
  make: ['GNUmakefile', 'makefile', 'Makefile'],
  just: ['justfile', '.justfile', 'Justfile'],
};
/** npm runs these without `run`. */
const NPM_SHORTCUTS = new Set(['test', 'start', 'stop', 'restart']);
/** The word after one of these is a file the command writes (a log), not one it runs. */
const OUTPUT_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '>&']);
/** A `-c` script is parsed again for the files it names; deeper nesting is not followed. */
const MAX_NESTING = 2;

function isWithin(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function toPath(word: string, cwd: string): string | undefined {
  if (word === '' || word.includes('${')) return undefined;
  if (word === '~' || word.startsWith('~/')) return homedir() + word.slice(1);
  return path.resolve(cwd, word);
}

/**
 * Every word of a command that may name a file it reads, quoted scripts (`bash -c '…'`)
 * split again. Operators, output redirection targets and `tee`'s files are outputs: a hook
 * that appends to its log must not count as changed by its own run.
 */
function allWords(command: string, expand: (name: string) => string, depth = 0): string[] {
  const words: string[] = [];
  let output = false;
  let tee = false;
  for (const entry of parse(command, expand)) {
    if (typeof entry !== 'string') {
      output = 'op' in entry && OUTPUT_REDIRECTS.has(entry.op);
      tee = false;
      continue;
    }
    if (output || tee) {
      output = false;
      continue;
    }
    tee = path.basename(entry) === 'tee';
    words.push(entry);
    // `--config=hooks/x.json`: the value may be a file.
    const eq = entry.indexOf('=');
    if (eq > 0 && entry.startsWith('-')) words.push(entry.slice(eq + 1));
    if (depth < MAX_NESTING && /\s/.test(entry)) words.push(...allWords(entry, expand, depth + 1));
  }
  return words;
}

interface Dependencies {
  projectDir: string;
  cwd: string;
  files: Set<string>;
  expand: (name: string) => string;
}

/**
 * The script `command` (the first simple command's words) runs, even while missing (one
 * created later must not run unseen), the workspace files any of `words` names, and what
 * a package runner among them runs.
 */
function addNamedFiles(deps: Dependencies, command: readonly string[], words: readonly string[], inPackageScript = false): void {
  const script = findCommandScript(command);
  const scriptPath = script && toPath(script.path, deps.cwd);
  if (scriptPath && isWithin(deps.projectDir, scriptPath)) deps.files.add(scriptPath);
  for (const word of words) {
    const file = toPath(word, deps.cwd);
    if (file && isWithin(deps.projectDir, file) && isFile(file)) deps.files.add(file);
  }
  const add = (file: string): void => {
    if (isWithin(deps.projectDir, file)) deps.files.add(file);
  };
  for (const [i, word] of words.entries()) {
    // Pinned even while missing, like the script: a file created later must not run unseen.
    for (const file of TASK_FILES[path.basename(word)] ?? []) add(path.join(deps.cwd, file));
    // `python3 -m hooks.guard` runs hooks/guard.py (or its package's __main__.py) from the working directory.
    if (word === '-m' && /^python/.test(path.basename(words[i - 1] ?? '')) && words[i + 1]) {
      const module = path.join(deps.cwd, ...words[i + 1].split('.'));
      add(`${module}.py`);
      add(path.join(module, '__main__.py'));
    }
  }
  const runner = words.findIndex((word) => PACKAGE_RUNNERS.has(path.basename(word)));
  if (runner >= 0 && !inPackageScript) addPackageScript(deps, words.slice(runner));
}

/** `npm run X`, `yarn X`, `npx tool`: package.json, the scripts X runs (with pre/post), the tool's bin. */
function addPackageScript(deps: Dependencies, words: readonly string[]): void {
  const manifest = path.join(deps.cwd, 'package.json');
  if (!isWithin(deps.projectDir, manifest)) return;
  // Pinned even while missing: one created later must not run unseen.
  for (const file of ['package.json', ...PACKAGE_MANAGER_RC]) deps.files.add(path.join(deps.cwd, file));
  const [program, ...rest] = words;
  const args = rest.filter((word) => !word.startsWith('-'));
  if (path.basename(program) === 'npx') {
    // A local tool wins over the registry's, so one the model installs later would run.
    const bin = args[0] && path.join(deps.cwd, 'node_modules', '.bin', args[0]);
    if (bin && isWithin(deps.projectDir, bin)) deps.files.add(bin);
    return;
  }
  const name = args[0] === 'run' || args[0] === 'run-script' ? args[1] : NPM_SHORTCUTS.has(args[0] ?? '') || path.basename(program) !== 'npm' ? args[0] : undefined;
  if (!name) return;
  let scripts: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: unknown };
    if (parsed.scripts && typeof parsed.scripts === 'object') scripts = parsed.scripts as Record<string, unknown>;
  } catch {
    return;
  }
  for (const key of [`pre${name}`, name, `post${name}`]) {
    const line = scripts[key];
    if (typeof line === 'string') addNamedFiles(deps, commandWords(line, undefined, deps.expand), allWords(line, deps.expand), true);
  }
}

function expander(projectDir: string, env: Record<string, string> | undefined): (name: string) => string {
  return (name) => {
    if (name === 'CLAUDE_PROJECT_DIR' || name === 'HOOKPILOT_PROJECT_DIR') return projectDir;
    if (name === 'HOME') return homedir();
    // Unknown at load: kept as a reference, which names no file.
    return env?.[name] ?? `\${${name}}`;
  };
}

function dependencyFiles(projectDir: string, exec: readonly string[] | undefined, shell: string | undefined, cwd: string | undefined, env: Record<string, string> | undefined): string[] {
  const expand = expander(projectDir, env);
  const deps: Dependencies = { projectDir, cwd: resolveHookCwd(cwd, undefined, projectDir), files: new Set(), expand };
  if (exec) addNamedFiles(deps, exec, [...exec, ...exec.filter((arg) => /\s/.test(arg)).flatMap((arg) => allWords(arg, expand))]);
  if (shell !== undefined) addNamedFiles(deps, commandWords(shell, undefined, expand), allWords(shell, expand));
  return [...deps.files];
}

/**
 * The workspace files a command hook runs or reads: its script (the program, or the file
 * an interpreter runs), every other word that names a workspace file (also inside
 * `bash -c '…'`), and for `npm run X` / `npx` / `yarn` / `pnpm` the package.json and the
 * files its scripts name.
 */
export function hookDependencyFiles(projectDir: string, hook: HookDefinition): string[] {
  if (hook.spec.type !== 'command') return [];
  const { spec } = hook;
  const exec = spec.args && [spec.command, ...spec.args].map((word) => substituteProjectDir(word, projectDir));
  return exec ? dependencyFiles(projectDir, exec, undefined, spec.cwd, spec.env) : dependencyFiles(projectDir, undefined, spec.command, spec.cwd, spec.env);
}

/** The workspace files an rpc server's command runs or names. */
export function serverDependencyFiles(projectDir: string, server: ServerDefinition): string[] {
  return dependencyFiles(projectDir, server.command.map((word) => substituteProjectDir(word, projectDir)), undefined, server.cwd, server.env);
}

/**
 * Files whose change would change the guards, which the agent may edit only with a
 * person's approval: the configuration files (those loaded, `--hooks` files included, and
 * the settings and `*.code-workspace` files of the workspace) and every file a command
 * hook or rpc server depends on (research §5.8).
 */
export function protectedHookFiles(projectDir: string, hooks: readonly HookDefinition[], servers: readonly ServerDefinition[] = [], configFiles: readonly string[] = []): string[] {
  const files = new Set([...CONFIG_FILES.map((f) => path.join(projectDir, f)), ...configFiles.map((f) => path.resolve(projectDir, f))]);
  try {
    for (const entry of readdirSync(projectDir)) if (entry.endsWith('.code-workspace')) files.add(path.join(projectDir, entry));
  } catch {
    // No readable workspace folder: nothing more to protect there.
  }
  for (const hook of hooks) for (const file of hookDependencyFiles(projectDir, hook)) files.add(file);
  for (const server of servers) for (const file of serverDependencyFiles(projectDir, server)) files.add(file);
  return [...files];
}
