/** A pattern for `text` in upper, lower or mixed case. */
function anyCase(text: string): string {
  return text.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
}

/**
 * Variables that decide what a command runs (`PATH=. git`, `GIT_EXTERNAL_DIFF=x git diff`,
 * `LD_PRELOAD=...`, build tools' compilers, wrappers and flags): a line that sets one is not
 * what its commands' words say.
 */
export const RISKY_VARIABLE = new RegExp(
  `^(${[
    'PATH',
    'IFS',
    'ENV',
    'BASH_ENV',
    'SHELL',
    'SHELLOPTS',
    'BASHOPTS',
    'PS4',
    'PROMPT_COMMAND',
    'CDPATH',
    'GLOBIGNORE',
    'HOME',
    'PAGER',
    'EDITOR',
    'VISUAL',
    'BROWSER',
    'NODE_PATH',
    'LD_\\w*',
    'DYLD_\\w*',
    'GIT_\\w*',
    'BASH_FUNC_\\w*',
    'PYTHON\\w*',
    'PERL\\w*',
    'RUBY\\w*',
    '\\w*_COMMAND',
    '\\w*_PAGER',
    '\\w*_EDITOR',
    '\\w*_OPTIONS',
    '\\w*_SHELL',
    '\\w*_OPTS',
    '\\w*FLAGS',
    '\\w*_ASKPASS',
    'NODE_OPTIONS',
    // npm and yarn read their settings from these in any case: npm_config_node_options runs code.
    `${anyCase('npm_config_')}\\w*`,
    `${anyCase('yarn_')}\\w*`,
    'RUST\\w*',
    'CARGO_\\w*',
    'GOENV',
    'GOROOT',
    'MAKE\\w*',
    'PYTEST_\\w*',
    'RSYNC_\\w*',
    // ripgrep reads its options from this file: `--pre=sh` among them.
    'RIPGREP_CONFIG_PATH',
    'LESS\\w*',
    'CC',
    'CXX',
    'CPP',
    'LD',
    'TMPDIR',
    'XDG_\\w*',
  ].join('|')})$`,
);

/**
 * Variables whose value bash runs as code or looks commands up in: what `BASH_ENV=<(echo rm x)
 * bash -c :`, `BASH_CMDS[ls]=/bin/rm; ls` or `PS4='$(rm x)'; set -x` runs, no word shows.
 */
export const SHELL_CODE_VARIABLE = /^(BASH_ENV|ENV|PS4|PROMPT_COMMAND|BASH_CMDS|BASH_ALIASES|BASH_FUNC_.*)$/s;

/**
 * Builtins that take variable names: bash evaluates a subscript in one (`printf -v 'a[x]'`) as
 * arithmetic, which expands `x` again, and a `$(...)` in its value runs. Some need an option first.
 */
export const NAME_TAKING: Record<string, string | undefined> = {
  read: '',
  unset: '',
  mapfile: '',
  readarray: '',
  getopts: '',
  printf: '-v',
  test: '-v',
  '[': '-v',
  wait: '-p',
};
