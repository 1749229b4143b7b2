import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse } from 'shell-quote';
import { commandWords, findCommandScript } from '../hooks/config/command-script';
import { expandBracedReferences, resolveHookCwd, substituteProjectDir } from '../hooks/handlers/command-env';
import type { HookDefinition, ServerDefinition } from '../hooks/types';
import { DEMO_RECORDING } from '../replay/demo-recording';
import { interpreterInputs } from './interpreter-inputs';
import { readConfigText } from '../read-regular-file';
import { GIT_FOLDER, isWorkspaceFile } from './protected-names';

const CONFIG_FILES = ['.vscode/hooks.json', '.vscode/settings.json', '.claude/settings.json', '.claude/settings.local.json'];
/**
 * VS Code runs a task of `"runOptions": { "runOn": "folderOpen" }` as soon as a person opens
 * the trusted folder again, with no prompt and outside every hook.
 */
const RUN_ON_OPEN_FILES = ['.vscode/tasks.json'];

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
/** Ways a launch runs its program in another folder: `cd srv &&`, `npm --prefix srv`, `uv --directory srv`, `make -C srv`. */
const DIRECTORY_COMMANDS = new Set(['cd', 'pushd']);
const DIRECTORY_OPTIONS = new Set(['--prefix', '--directory', '--cwd', '--dir', '--chdir', '-C']);
/** A `-c` script is parsed again for the files it names; deeper nesting is not followed. */
const MAX_NESTING = 2;
/** Files whose module type and packages Node looks up in every folder up to the root. */
const NODE_LOOKUP = ['package.json', `node_modules${path.sep}`];
const JS_FILE = /\.[cm]?[jt]sx?$/;
const DATA_FILE = /^\.(json|jsonc|ya?ml|toml|ini|txt|md|lock)$/;
/**
 * A protected path ending in the separator stands for its whole folder: any file created or
 * changed under it is a change to the hooks (see protected-targets.ts).
 */
const folderPath = (dir: string): string => dir + path.sep;

/**
 * A folder a hook's interpreter may load files from without the command naming them:
 * Python puts the script's folder first on `sys.path`, Node reads `package.json` and
 * `node_modules` there, and a script sources or requires its siblings.
 */
export interface ScriptFolder {
  dir: string;
  /**
   * Set for the workspace root, which is pinned only through its direct entries with the
   * script's extension: pinning every file of the project would stop the guard at each edit.
   */
  extension?: string;
}

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
  for (const entry of shellEntries(command, expand)) {
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

/** shell-quote throws on some expansions (`${}`): a command it cannot read still names its words. */
function shellEntries(command: string, expand: (name: string) => string): ReturnType<typeof parse> {
  try {
    return parse(command, expand);
  } catch {
    return command.split(/\s+/).filter((word) => word !== '');
  }
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
      const names = words[i + 1].split('.');
      const module = path.join(deps.cwd, ...names);
      add(`${module}.py`);
      add(path.join(module, '__main__.py'));
      // Python puts the working directory, not the module's folder, first on `sys.path`: a
      // `hooks.py` there (or a `json.py`) is imported before the package. Named here, it makes
      // that folder a script folder (scriptFolders), whose modules and packages are pinned.
      add(path.join(deps.cwd, `${names[0]}.py`));
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
  const name =
    args[0] === 'run' || args[0] === 'run-script'
      ? args[1]
      : NPM_SHORTCUTS.has(args[0] ?? '') || path.basename(program) !== 'npm'
        ? args[0]
        : undefined;
  if (!name) return;
  let scripts: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(readConfigText(manifest)) as { scripts?: unknown };
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

/** How a hook or server starts: exec form (words) or shell form (a command line), where, with which `env`. */
export interface Launch {
  exec?: readonly string[];
  shell?: string;
  cwd?: string;
  env?: Record<string, string>;
}

function hookLaunch(projectDir: string, hook: HookDefinition): Launch | undefined {
  if (hook.spec.type !== 'command') return undefined;
  const { command, args, cwd, env } = hook.spec;
  const exec = args && [command, ...args].map((word) => substituteProjectDir(word, projectDir));
  return exec ? { exec, cwd, env } : { shell: command, cwd, env };
}

function serverLaunch(projectDir: string, server: Pick<ServerDefinition, 'command' | 'cwd' | 'env'>): Launch {
  return { exec: server.command.map((word) => substituteProjectDir(word, projectDir)), cwd: server.cwd, env: server.env };
}

/**
 * The launch's working folder and each workspace folder its words move to: the files the
 * program runs are named relative to where it runs, so they are looked for in each.
 */
function workingFolders(projectDir: string, words: readonly string[], cwd: string): string[] {
  const folders = new Set([cwd]);
  for (const [i, word] of words.entries()) {
    const eq = word.indexOf('=');
    // `cd -P -- hooks`: the folder is the first word after cd's options.
    const afterCd = DIRECTORY_COMMANDS.has(path.basename(word)) ? words.slice(i + 1).find((w) => !w.startsWith('-')) : undefined;
    const named =
      afterCd ??
      (DIRECTORY_OPTIONS.has(word) ? words[i + 1] : eq > 0 && DIRECTORY_OPTIONS.has(word.slice(0, eq)) ? word.slice(eq + 1) : undefined);
    const folder = named === undefined ? undefined : toPath(named, cwd);
    if (folder && isWithin(projectDir, folder)) folders.add(folder);
  }
  return [...folders];
}

/** Every word of a launch that may name a file, `-c` scripts split again. */
function launchWords({ exec, shell }: Launch, expand: (name: string) => string): string[] {
  if (exec) return [...exec, ...exec.filter((arg) => /\s/.test(arg)).flatMap((arg) => allWords(arg, expand))];
  return shell === undefined ? [] : allWords(shell, expand);
}

function dependencyFiles(projectDir: string, launch: Launch): string[] {
  const expand = expander(projectDir, launch.env);
  const words = launchWords(launch, expand);
  const command = launch.exec ?? (launch.shell === undefined ? [] : commandWords(launch.shell, undefined, expand));
  const files = new Set<string>();
  for (const cwd of workingFolders(projectDir, words, resolveHookCwd(launch.cwd, undefined, projectDir)))
    addNamedFiles({ projectDir, cwd, files, expand }, command, words);
  return [...files];
}

/**
 * The workspace files a command hook runs or reads: its script (the program, or the file
 * an interpreter runs), every other word that names a workspace file (also inside
 * `bash -c '…'`), and for `npm run X` / `npx` / `yarn` / `pnpm` the package.json and the
 * files its scripts name.
 */
export function hookDependencyFiles(projectDir: string, hook: HookDefinition): string[] {
  const launch = hookLaunch(projectDir, hook);
  return launch ? dependencyFiles(projectDir, launch) : [];
}

/** The workspace files a server's command (an rpc hook server's, an MCP server's) runs or names. */
export function serverDependencyFiles(projectDir: string, server: Pick<ServerDefinition, 'command' | 'cwd' | 'env'>): string[] {
  return dependencyFiles(projectDir, serverLaunch(projectDir, server));
}

/**
 * The workspace places a command's interpreter or launcher reads beyond its script (module
 * search paths and preloads in its `env`, `node_modules/`, `pyproject.toml`, `.venv/`...):
 * protected, not pinned, since they are folders of any size or files that come and go.
 */
export function interpreterPlaces(projectDir: string, launch: Launch): string[] {
  const expand = expander(projectDir, launch.env);
  const all = launchWords(launch, expand);
  const words = launch.exec ?? all;
  const env = Object.fromEntries(Object.entries(launch.env ?? {}).map(([name, value]) => [name, expandBracedReferences(value, expand)]));
  const folders = workingFolders(projectDir, all, resolveHookCwd(launch.cwd, undefined, projectDir));
  const places = folders.flatMap((cwd) => interpreterInputs(words, cwd, env));
  return [...new Set(places)].filter((place) => isWithin(projectDir, place.endsWith(path.sep) ? place.slice(0, -1) : place));
}

/** Files a launcher reads to know what to run: pinned themselves, they load no sibling. */
const LAUNCHER_FILES = new Set([...Object.values(TASK_FILES).flat(), ...PACKAGE_MANAGER_RC]);

/**
 * The folders of dependency files inside the workspace (once each); the root only by extension.
 * A manifest or task file (`web/package.json` for `npm --prefix web run format`) makes no
 * folder a script folder: that would protect a whole package from the edits a formatter hook is for.
 */
export function scriptFolders(projectDir: string, files: readonly string[]): ScriptFolder[] {
  const folders = new Map<string, ScriptFolder>();
  for (const file of files) {
    if (!isWithin(projectDir, file) || DATA_FILE.test(path.extname(file)) || LAUNCHER_FILES.has(path.basename(file))) continue;
    const dir = path.dirname(file);
    const extension = dir === projectDir ? path.extname(file) : undefined;
    // A root file without an extension (a launcher's script) loads no sibling either.
    if (extension === '') continue;
    folders.set(`${dir}\0${extension ?? ''}`, { dir, extension });
  }
  return [...folders.values()];
}

/**
 * `package.json` (its `type`) of every folder from above a JavaScript script's folder up to the
 * workspace root: Node reads the nearest one to know how to load the script, so it is pinned
 * even while missing.
 */
export function nodeManifests(projectDir: string, folders: readonly ScriptFolder[]): string[] {
  const manifests = new Set<string>();
  for (const folder of folders) {
    if (folder.extension !== undefined) {
      if (JS_FILE.test(folder.extension)) manifests.add(path.join(projectDir, 'package.json'));
      continue;
    }
    if (!holdsJavaScript(folder)) continue;
    for (let up = path.dirname(folder.dir); isWithin(projectDir, up) || up === projectDir; up = path.dirname(up)) {
      manifests.add(path.join(up, 'package.json'));
      if (up === projectDir) break;
    }
  }
  return [...manifests];
}

function holdsJavaScript(folder: ScriptFolder): boolean {
  try {
    return readdirSync(folder.dir).some((name) => JS_FILE.test(name));
  } catch {
    return false;
  }
}

/**
 * What a Write or Edit must not change unasked around a script folder: the folder itself (any
 * file under it), and for the workspace root Node's and Python's lookups there. For a folder
 * holding JavaScript, `package.json` and `node_modules` of each folder above it up to the root.
 */
export function protectedAround(projectDir: string, folders: readonly ScriptFolder[]): string[] {
  const paths: string[] = [];
  for (const folder of folders) {
    if (folder.extension === undefined) paths.push(folderPath(folder.dir));
    else paths.push(...[...NODE_LOOKUP, `__pycache__${path.sep}`].map((name) => path.join(projectDir, name)));
  }
  for (const manifest of nodeManifests(projectDir, folders))
    paths.push(manifest, folderPath(path.join(path.dirname(manifest), 'node_modules')));
  return paths;
}

/**
 * Files whose change would change the guards, which the agent may edit only with a
 * person's approval: the configuration files (those loaded, `--hooks` files included, and
 * the settings and `*.code-workspace` files of the workspace, its `.git/` folder and
 * `.vscode/tasks.json`, the recording the extension offers to replay), every file a command hook or
 * rpc server depends on, and the folders its interpreter loads more files from. A path ending
 * in the separator is a whole folder.
 */
/**
 * The files of a folder that configure hooks or run commands once the folder is opened:
 * its hook and settings files, and a task run on folder open.
 */
export function governingFilesOf(dir: string): string[] {
  return [...CONFIG_FILES, ...RUN_ON_OPEN_FILES].map((f) => path.join(dir, f));
}

export function protectedHookFiles(
  projectDir: string,
  hooks: readonly HookDefinition[],
  servers: readonly ServerDefinition[] = [],
  configFiles: readonly string[] = [],
): string[] {
  const files = new Set([
    ...governingFilesOf(projectDir),
    path.join(projectDir, DEMO_RECORDING),
    ...configFiles.map((f) => path.resolve(projectDir, f)),
  ]);
  files.add(folderPath(path.join(projectDir, GIT_FOLDER)));
  try {
    for (const entry of readdirSync(projectDir)) if (isWorkspaceFile(entry)) files.add(path.join(projectDir, entry));
  } catch {
    // No readable workspace folder: nothing more to protect there.
  }
  const launches = [
    ...hooks.flatMap((hook) => hookLaunch(projectDir, hook) ?? []),
    ...servers.map((server) => serverLaunch(projectDir, server)),
  ];
  const dependencies = launches.flatMap((launch) => dependencyFiles(projectDir, launch));
  for (const file of dependencies) files.add(file);
  for (const place of launches.flatMap((launch) => interpreterPlaces(projectDir, launch))) files.add(place);
  for (const file of protectedAround(projectDir, scriptFolders(projectDir, dependencies))) files.add(file);
  return [...files];
}
