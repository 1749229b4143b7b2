/**
 * Options that make an ordinary program run code, read or write what its other words do not
 * show (`git -c alias.x='!sh'`, `find -exec`, `tar --to-command`). A rule with a wildcard does
 * not grant them: the rule must name the option itself (`Bash(git -c *)`, `Bash(find * -exec *)`).
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
  tar: ['--to-command', '--checkpoint-action', '--use-compress-program', '-I', '--info-script', '--new-volume-script', '-F'],
  rsync: ['-e', '--rsh', '--rsync-path'],
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

/** The options of `words` that a rule must name to grant it (empty: none). */
export function codeOptions(words: readonly string[]): string[] {
  const [name, ...args] = words;
  const options = PROGRAM_OPTIONS[name] ?? [];
  const found = options.filter((option) => args.some((arg) => spells(arg, option)));
  if (name === 'git') {
    const sub = args.find((arg, i) => !arg.startsWith('-') && !['-C', '-c', '--git-dir', '--work-tree'].includes(args[i - 1] ?? ''));
    const extra = sub === undefined ? undefined : GIT_SUBCOMMANDS.get(sub);
    if (sub !== undefined && extra !== undefined) {
      if (extra.length === 0) found.push(sub);
      found.push(...extra.filter((option) => args.some((arg) => arg === option || spells(arg, option))));
    }
    if (args.some((arg) => /(^|[=:])ext::/.test(arg))) found.push('ext::');
  }
  return found;
}

/** `-c x`, `-cx` (a one-letter option with its value attached), `--opt`, `--opt=x`. */
function spells(arg: string, option: string): boolean {
  if (arg === option) return true;
  if (option.startsWith('--')) return arg.startsWith(`${option}=`);
  return option.length === 2 && !arg.startsWith('--') && arg.startsWith(option);
}

/** Whether the literal text of `pattern` (its words outside `*`) names `option`. */
export function patternNames(pattern: string, option: string): boolean {
  const words = pattern
    .split(/(?<!\\)\*/)
    .join(' ')
    .split(' ');
  return words.some((word) => word === option || (option.startsWith('-') && word.startsWith(option)));
}
