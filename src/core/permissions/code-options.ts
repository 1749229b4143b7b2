import { commandName } from './bash-wrappers';

/** npm takes any of its settings on the command line: these run code or choose what runs. */
const NPM_OPTIONS = [
  '--node-options',
  '--script-shell',
  '--userconfig',
  '--globalconfig',
  '--prefix',
  '-C',
  '--call',
  '-c',
  '--package',
  '--shell',
  '--node-gyp',
  '--onload-script',
  '--init-module',
  '--git',
  '--editor',
  '--browser',
  '--viewer',
];

/**
 * Options that make an ordinary program run code, read or write what its other words do not
 * show (`git -c alias.x='!sh'`, `find -exec`, `tar --to-command`, `npm test --node-options=…`,
 * `make --eval=…`). A rule with a wildcard does not grant them: the rule must name the option
 * itself (`Bash(git -c *)`, `Bash(find * -exec *)`).
 */
const PROGRAM_OPTIONS: Record<string, readonly string[]> = {
  git: [
    '-c',
    '--config-env',
    '--exec-path',
    '--upload-pack',
    '--receive-pack',
    '--config',
    '--open-files-in-pager',
    '--extcmd',
    '--exec',
    '--template',
    '--ext-diff',
    '--textconv',
  ],
  find: ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'],
  tar: [
    '--to-command',
    '--checkpoint-action',
    '--use-compress-program',
    '-I',
    '--info-script',
    '--new-volume-script',
    '-F',
    '--rsh-command',
    '--rmt-command',
  ],
  rsync: ['-e', '--rsh', '--rsync-path'],
  npm: NPM_OPTIONS,
  npx: NPM_OPTIONS,
  pnpm: [...NPM_OPTIONS, '--dir'],
  pnpx: NPM_OPTIONS,
  yarn: [...NPM_OPTIONS, '--cwd', '--use-yarnrc'],
  make: ['--eval', '-E', '-f', '--file', '--makefile', '-C', '--directory', '-e', '--environment-overrides'],
  rg: ['--pre', '--hostname-bin'],
  sort: ['--compress-program'],
};

/**
 * Git's options before the subcommand that choose the repository, whose config names programs
 * git runs (core.fsmonitor, core.pager): a folder the model wrote, outside any `.git`.
 */
const GIT_REPOSITORY_OPTIONS = ['-C', '--git-dir', '--work-tree', '--bare'];

/** Programs that read `-xyz` as `-x -y -z` (and a value after the last that takes one): `make -sE'…'`. */
const CLUSTERING = new Set(['make', 'tar', 'rsync', 'sort', 'rg', 'npm', 'npx', 'pnpm', 'pnpx']);

/**
 * Programs that take a long option by any unambiguous start (`make --ev=…`, `npm --node-opt=…`),
 * with their options that start another listed one, which are themselves and no abbreviation.
 */
const ABBREVIATING: Record<string, readonly string[]> = {
  git: ['--text', '--temp'],
  make: [],
  sort: [],
  tar: ['--checkpoint'],
  npm: ['--global'],
  npx: ['--global'],
  pnpm: ['--global'],
  pnpx: ['--global'],
};

/** Subcommands of git that run code or change what later git commands run. */
const GIT_SUBCOMMANDS = new Map<string, readonly string[]>([
  ['config', []],
  ['rebase', ['-x']],
  ['difftool', ['-x']],
  ['bisect', ['run']],
  ['submodule', ['foreach']],
  ['grep', ['-O']],
  ['archive', ['--remote']],
  ['clone', ['-u']],
]);

/** Git's options before the subcommand that take the next word as their value. */
const GIT_VALUE_OPTIONS = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--attr-source', '--config-env'];

/** The options of `words` that a rule must name to grant it (empty: none). */
export function codeOptions(words: readonly string[]): string[] {
  const [first, ...args] = words;
  // `/usr/bin/make` is make, and so is GNU make's other name.
  const name = commandName(first) === 'gmake' ? 'make' : commandName(first);
  const options = PROGRAM_OPTIONS[name] ?? [];
  const found = options.filter((option) => args.some((arg, i) => spells(name, arg, option, i)));
  if (name === 'git') {
    const at = args.findIndex((arg, i) => !arg.startsWith('-') && !GIT_VALUE_OPTIONS.includes(args[i - 1] ?? ''));
    const globals = at === -1 ? args : args.slice(0, at);
    found.push(...GIT_REPOSITORY_OPTIONS.filter((option) => globals.some((arg) => arg === option || arg.startsWith(`${option}=`))));
    const extra = at === -1 ? undefined : GIT_SUBCOMMANDS.get(args[at]);
    if (extra !== undefined) {
      if (extra.length === 0) found.push(args[at]);
      found.push(...extra.filter((option) => args.some((arg, i) => arg === option || spells(name, arg, option, i))));
    }
    if (args.some((arg) => /(^|[=:])ext::/.test(arg))) found.push('ext::');
  }
  // `make test CC=./x`: a variable given on the command line overrides the Makefile's, and recipes run it.
  if (name === 'make')
    found.push(...args.filter((arg) => !arg.startsWith('-') && arg.includes('=')).map((arg) => arg.slice(0, arg.indexOf('=') + 1)));
  return found;
}

/**
 * Whether `arg`, the `index`th argument of `program`, spells `option`: `-c x`, `-cx` (its value
 * attached), `-sE…` (in a cluster, or tar's first word `xIf`), `--opt`, `--opt=x`, `--op` (an
 * abbreviation, where the program takes one).
 */
function spells(program: string, arg: string, option: string, index: number): boolean {
  if (arg === option) return true;
  if (option.startsWith('--')) {
    if (arg.startsWith(`${option}=`)) return true;
    const own = ABBREVIATING[program];
    const given = arg.split('=')[0];
    return own !== undefined && given.length > 2 && option.startsWith(given) && !own.includes(given);
  }
  if (option.length !== 2 || arg.startsWith('--')) return false;
  if (arg.startsWith(option)) return true;
  const cluster = arg.startsWith('-') || (program === 'tar' && index === 0);
  return CLUSTERING.has(program) && cluster && arg.slice(arg.startsWith('-') ? 1 : 0).includes(option[1]);
}

/**
 * Whether the literal text of `pattern` (its words outside `*`) names `option` of `program`, as
 * a line would spell it: `Bash(make test CC=*)` names `CC=`.
 */
export function patternNames(pattern: string, option: string, program: string): boolean {
  const words = pattern
    .split(/(?<!\\)\*/)
    .join(' ')
    .split(' ');
  return words.some((word, i) => (option.endsWith('=') ? word.startsWith(option) : spells(program, word, option, i - 1)));
}
