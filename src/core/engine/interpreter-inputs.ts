import path from 'node:path';

/**
 * What an interpreter or a launcher reads, besides the script it is given, to decide what
 * runs: module search paths and preloads from its environment, and files and folders of its
 * working folder. A model that writes one of these runs its code inside a hook or server.
 */

/** Variables whose value lists folders an interpreter loads modules from first. */
const SEARCH_PATH_VARIABLES = ['PYTHONPATH', 'NODE_PATH'];
/** Programs that take Node's flags on their command line (`grep -r` is not a preload). */
const NODE_PROGRAMS = /^(node|nodejs|bun|tsx|ts-node)$/;
/** Node flags whose value is a file it loads before the program, or reads variables from. */
const NODE_FILE_FLAGS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file']);
/** What each launcher reads from its working folder; a name ending in `/` is a whole folder. */
const WORKING_FOLDER_INPUTS: ReadonlyArray<{ programs: RegExp; names: readonly string[] }> = [
  { programs: /^(npm|npx|yarn|pnpm|bun|bunx)$/, names: ['node_modules/'] },
  { programs: /^(bun|bunx)$/, names: ['bunfig.toml', '.env', '.env.local', '.env.development', '.env.production'] },
  // uv runs in the project's environment; a plain `python3` reads none of these.
  { programs: /^(uv|uvx)$/, names: ['pyproject.toml', 'uv.toml', 'uv.lock', '.python-version', '.venv/'] },
];
/** A virtual environment named in a command (`.venv/bin/python`): its packages decide what runs. */
const VIRTUAL_ENV = /(^|[\\/])(\.?venv)[\\/]/;

/** The files a Node option list names with NODE_FILE_FLAGS (`-r ./x.js`, `--import=./y.mjs`). */
function nodeFlagFiles(words: readonly string[]): string[] {
  const files: string[] = [];
  for (const [i, word] of words.entries()) {
    const [flag, value] = word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, words[i + 1]];
    if (NODE_FILE_FLAGS.has(flag) && value !== undefined && !value.startsWith('-')) files.push(value);
  }
  return files;
}

/**
 * The places `words` (a command's words, its script's included) and `env` (the hook's or
 * server's own variables, already expanded) make its interpreter read, as absolute paths
 * resolved from `cwd`; a folder ends with the separator.
 */
export function interpreterInputs(words: readonly string[], cwd: string, env: Readonly<Record<string, string>> = {}): string[] {
  const at = (name: string) => (name.endsWith('/') ? path.resolve(cwd, name.slice(0, -1)) + path.sep : path.resolve(cwd, name));
  const places: string[] = [];
  for (const variable of SEARCH_PATH_VARIABLES) {
    for (const dir of (env[variable] ?? '').split(path.delimiter)) if (dir !== '') places.push(at(`${dir}/`));
  }
  const programs = new Set(words.map((word) => path.basename(word)));
  const nodeOptions = (env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean);
  const nodeWords = [...programs].some((program) => NODE_PROGRAMS.test(program)) ? words : [];
  places.push(...[...nodeFlagFiles(nodeOptions), ...nodeFlagFiles(nodeWords)].map(at));
  for (const word of words) {
    const venv = VIRTUAL_ENV.exec(word);
    if (venv) places.push(path.resolve(cwd, word.slice(0, venv.index + venv[0].length - 1)) + path.sep);
  }
  for (const { programs: pattern, names } of WORKING_FOLDER_INPUTS) {
    if ([...programs].some((program) => pattern.test(program))) places.push(...names.map(at));
  }
  return places;
}
