import path from 'node:path';
import type { SimpleCommand } from './bash-command';
import { spellLiteral } from './shell-spelling';
import { HOLE } from './wildcard';

/** How many levels of scripts run by scripts (`bash -c "eval '…'"`) are read. */
export const MAX_NESTING = 3;

/**
 * Commands that run another command. Rules match the command inside them (as Claude Code
 * strips `timeout`, `nice`, `env`, ...): `timeout 5 git status` is `git status` to `Bash(git *)`.
 *
 * Transparent wrappers run exactly the command they are given. The others (`xargs` adds
 * arguments from its input, `sudo` changes the user, `env` with options) hide what runs, and
 * so do the commands that run a string as code (`eval`, `sh -c`, `source`, `trap`): a rule
 * allows those only when it names them literally (`Bash(xargs *)`), never through a wildcard.
 */
export const HIDING_COMMANDS = new Set([
  'eval',
  'source',
  '.',
  'trap',
  'alias',
  'watch',
  'su',
  'sudo',
  'doas',
  'xargs',
  'env',
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'fish',
  'csh',
  'tcsh',
  'script',
  'runuser',
  'busybox',
  'parallel',
]);

/**
 * Programs that start the command given in their later words, with options this reading does
 * not know (`stdbuf -o0 rm`, `flock f rm`): stripped for deny rules, never granted through.
 */
const LAUNCHERS = new Set([
  'stdbuf',
  'setsid',
  'ionice',
  'flock',
  'strace',
  'ltrace',
  'chroot',
  'unshare',
  'nsenter',
  'taskset',
  'chrt',
  'runuser',
  'sg',
  'parallel',
  'watch',
  'busybox',
  'time',
  'caffeinate',
  'firejail',
  'systemd-run',
  'torsocks',
  'proxychains',
  'catchsegv',
  'valgrind',
]);

/** A command name as deny rules see it: `/bin/rm` and `./rm` are rm. */
export function commandName(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash === -1 ? word : word.slice(slash + 1);
}

export interface CommandForm {
  words: string[];
  /** Variables set for the command by `env NAME=value` on the way to this form. */
  assigned: string[];
  /** The previous form ran this one transparently (false for the first form and after xargs/sudo). */
  transparent: boolean;
}

/**
 * The command as written, then each command found by stripping one wrapper, outermost first.
 * `loose` (deny rules, protected files) knows wrappers by their basename (`/usr/bin/env rm`)
 * and strips launchers too; an allow rule only looks through a wrapper spelled plainly.
 */
export function commandForms(command: SimpleCommand, loose = false): CommandForm[] {
  return readForms(command, loose).forms;
}

/** How many wrappers deep the command is looked for. */
const MAX_WRAPPERS = 8;

/** The command's forms, and whether a wrapper was left unstripped when MAX_WRAPPERS ran out. */
function readForms(command: SimpleCommand, loose: boolean): { forms: CommandForm[]; cut: boolean } {
  const forms: CommandForm[] = [{ words: command.words, assigned: command.assigned, transparent: false }];
  for (;;) {
    const last = forms[forms.length - 1];
    const inner = stripWrapper(last.words, loose);
    if (!inner || inner.words.length === 0) return { forms, cut: false };
    if (forms.length > MAX_WRAPPERS) return { forms, cut: true };
    forms.push({ words: inner.words, assigned: [...last.assigned, ...inner.assigned], transparent: inner.transparent });
  }
}

interface Stripped {
  words: string[];
  assigned: string[];
  transparent: boolean;
}

const OPTIONS_WITH_VALUE: Record<string, readonly string[]> = {
  timeout: ['-s', '--signal', '-k', '--kill-after'],
  nice: ['-n', '--adjustment'],
  exec: ['-a'],
  xargs: ['-I', '-n', '-P', '-L', '-s', '-d', '-E', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file'],
  sudo: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '--user', '--group'],
  doas: ['-u', '-C'],
};

function skipOptions(words: string[], name: string): number {
  const withValue = OPTIONS_WITH_VALUE[name] ?? [];
  let i = 1;
  while (i < words.length && words[i].startsWith('-') && words[i] !== '-') {
    if (words[i] === '--') return i + 1;
    i += withValue.includes(words[i]) ? 2 : 1;
  }
  return i;
}

function stripWrapper(words: string[], loose: boolean): Stripped | undefined {
  const name = loose ? commandName(words[0]) : words[0];
  const plain = (rest: string[], transparent = true): Stripped => ({ words: rest, assigned: [], transparent });
  if (loose && LAUNCHERS.has(name)) return plain(words.slice(skipOptions(words, name)), false);
  switch (name) {
    case 'nohup':
    case 'builtin':
      return plain(words.slice(1));
    case 'command':
      // `command -v git` only looks git up.
      return words[1] === '-v' || words[1] === '-V' ? undefined : plain(words.slice(skipOptions(words, name)));
    case 'exec':
    case 'nice':
      return plain(words.slice(skipOptions(words, name)));
    case 'timeout':
      return plain(words.slice(skipOptions(words, name) + 1));
    case 'xargs':
    case 'sudo':
    case 'doas':
      return plain(words.slice(skipOptions(words, name)), false);
    case 'env':
      return stripEnv(words);
    default:
      return undefined;
  }
}

function stripEnv(words: string[]): Stripped {
  const assigned: string[] = [];
  let transparent = true;
  let i = 1;
  for (; i < words.length; i += 1) {
    const word = words[i];
    // env takes any word with `=` for an assignment: `BASH_FUNC_ls%%=() { rm "$@"; }` too.
    const assignment = /^([^=-][^=]*)=/s.exec(word);
    if (assignment) assigned.push(assignment[1]);
    else if (word === '-i' || word === '--ignore-environment' || word === '-') continue;
    else if (word === '-u' || word === '--unset') i += 1;
    else if (word === '--') {
      i += 1;
      break;
    } else if (word.startsWith('-')) transparent = false;
    else break;
  }
  return { words: words.slice(i), assigned, transparent };
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'ash', 'yash', 'posh', 'rbash']);

/** The commands `nestedScript` reads a script from, by their basename: later words are tried as a start only at these. */
const SCRIPT_RUNNERS = new Set([
  'eval',
  'trap',
  'watch',
  'su',
  'runuser',
  'script',
  'flock',
  'sg',
  'env',
  'busybox',
  'source',
  '.',
  ...SHELLS,
]);

/**
 * The code a command runs from a string (`bash -c '...'`, `eval ...`, `trap '...' EXIT`,
 * `su -c '...'`, `watch '...'`, `env -S '...'`), so that deny rules can look inside it. A shell
 * that reads its input (`sh <<< 'rm x'`, `echo 'rm x' | sh`) runs its here-doc or here-string,
 * or, when that is not known, a HOLE: any command at all. Names are taken by their basename.
 */
function nestedScript(words: string[], stdin?: readonly string[]): string | undefined {
  const [word, ...args] = words;
  const name = commandName(word);
  if (!SCRIPT_RUNNERS.has(name)) return undefined;
  const afterDashes = args[0] === '--' ? args.slice(1) : args;
  if (name === 'eval') return afterDashes.join(' ');
  if (name === 'trap') return afterDashes[0] !== undefined && !afterDashes[0].startsWith('-') ? afterDashes[0] : undefined;
  if (name === 'watch') return args.filter((a) => !a.startsWith('-')).join(' ');
  if (name === 'su' || name === 'runuser' || name === 'script' || name === 'flock' || name === 'sg')
    return optionValue(args, ['-c', '--command']);
  if (name === 'env') return optionValue(args, ['-S', '--split-string']);
  // `bash <(echo rm x)`, `source "$f"`: the script is known only when the line runs.
  if (scriptOperand(words)?.includes(HOLE)) return HOLE;
  if (runsInput(words)) return stdin && stdin.length > 0 ? stdin.join('\n') : HOLE;
  if (SHELLS.has(name)) {
    const flag = args.findIndex(isCommandFlag);
    if (flag !== -1) return commandString(args.slice(flag + 1), valuesTaken(args[flag]));
  }
  return undefined;
}

/** How many of the words after a group of short shell options are their values: one for each `o` or `O` (`-eo pipefail`). */
function valuesTaken(option: string): number {
  if (VALUE_OPTIONS.has(option)) return 1;
  return /^[-+][a-zA-Z]+$/.test(option) ? (option.match(/[oO]/g) ?? []).length : 0;
}

/** The string a shell's `-c` runs: its first operand, past options and their values (`bash -c -o errexit 'x'`, `-co errexit`, `+x`). */
function commandString(rest: readonly string[], pendingValues: number): string {
  let skip = pendingValues;
  for (const arg of rest) {
    if (skip > 0) skip -= 1;
    else if (/^[-+]/.test(arg)) skip = valuesTaken(arg);
    else return arg;
  }
  return HOLE;
}

const isCommandFlag = (arg: string) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg) || arg === '--command';

/** Shell options whose next word is their value, not the script: `-o pipefail`, `-O extglob`, `--rcfile F`. */
const VALUE_OPTIONS = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);

/**
 * Whether the command runs the code it reads from its input: a shell without `-c` and without
 * a script file (`sh`, `bash -es`, `bash -o pipefail`, `bash -`, `bash /dev/fd/3`), or
 * `source /dev/stdin`. No rule's words can name that code. A script operand under /dev or
 * /proc counts as input: a descriptor the line redirects (`3<<< 'rm x'`), or stdin by another path.
 */
export function runsInput(words: readonly string[]): boolean {
  const script = scriptOperand(words);
  return script !== undefined && isInputPath(script);
}

/**
 * The script file a shell without `-c` or `source` runs, `-` for its input; undefined for
 * any other command.
 */
function scriptOperand(words: readonly string[]): string | undefined {
  const [word, ...args] = words;
  const name = commandName(word);
  if (name === 'busybox') return args.length > 0 ? scriptOperand(args) : undefined;
  if (name === 'source' || name === '.') return args[0] ?? '-';
  if (!SHELLS.has(name) || args.some(isCommandFlag)) return undefined;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (VALUE_OPTIONS.has(arg)) i += 1;
    else if (arg === '-') return '-';
    else if (arg === '--') return args[i + 1] ?? '-';
    else if (/^-[a-zA-Z]*s[a-zA-Z]*$/.test(arg)) return '-';
    else if (!arg.startsWith('-') && !arg.startsWith('+')) return arg;
  }
  return '-';
}

function isInputPath(file: string): boolean {
  return file === '-' || /^\/+(dev|proc)\//.test(path.posix.normalize(file));
}

/** The value of a short or long option in any spelling: `-c x`, `-cx`, `-qc x`, `--command=x`, `--command x`. */
function optionValue(args: string[], [short, long]: [string, string]): string | undefined {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--') return undefined;
    if (arg === long || arg === short) return args[i + 1] ?? HOLE;
    if (arg.startsWith(`${long}=`)) return arg.slice(long.length + 1);
    const letter = short[1];
    if (/^-[a-zA-Z]+/.test(arg) && !arg.startsWith('--') && arg.includes(letter)) {
      const rest = arg.slice(arg.indexOf(letter) + 1);
      return rest === '' ? (args[i + 1] ?? HOLE) : rest;
    }
  }
  return undefined;
}

/**
 * Whether the command makes a name run something its words will not show: an alias
 * (`alias ls=rm`, or from an expansion) or a hashed path (`hash -p /bin/rm ls`).
 */
export function rebindsCommand(words: readonly string[]): boolean {
  const [word, ...args] = words;
  const name = commandName(word);
  if (name === 'alias') return args.some((arg) => arg.includes('=') || arg.includes(HOLE));
  if (name === 'hash') return args.some((arg) => /^-[a-zA-Z]*p/.test(arg) || arg.includes(HOLE));
  return false;
}

const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** The commands `find ... -exec CMD ... ;` runs, for deny rules (`{}` stands for each file). */
export function findExecCommands(words: string[]): string[][] {
  if (commandName(words[0]) !== 'find') return [];
  const found: string[][] = [];
  for (let i = 1; i < words.length; i += 1) {
    if (!FIND_EXEC.has(words[i])) continue;
    const end = words.findIndex((w, j) => j > i && (w === ';' || w === '+'));
    const inner = words.slice(i + 1, end === -1 ? undefined : end);
    if (inner.length > 0) found.push(inner);
    if (end === -1) break;
    i = end;
  }
  return found;
}

/** A command given as words (`find -exec`'s), every word taken literally. */
export function literalCommand(words: string[]): SimpleCommand {
  return { words, spelled: words.map(spellLiteral), assigned: [], dynamicName: false };
}

/**
 * The scripts a command runs from its words or its input (`bash -c '…'`, `eval …`,
 * `sh <<< …`), in each of its forms and in the commands its `find -exec` runs; HOLE for input
 * not known before it runs.
 */
export function scriptsRunBy(command: SimpleCommand): string[] {
  return readScripts(command).scripts;
}

/**
 * As `scriptsRunBy`, and whether its reading was cut short: a command behind more wrappers than
 * are stripped, or more later words that could start a script than are tried, may run a script
 * this reading did not find.
 */
export function readScripts(command: SimpleCommand): { scripts: string[]; cut: boolean } {
  const scripts = new Set<string>();
  let cut = false;
  const queue = [command];
  for (let i = 0; i < queue.length; i++) {
    const simple = queue[i];
    const read = readForms(simple, true);
    cut ||= read.cut;
    // A wrapper hands its input on: `timeout 5 sh <<< '…'`, `echo '…' | flock l sh`.
    for (const form of read.forms) {
      const script = nestedScript(form.words, simple.stdin);
      if (script !== undefined) scripts.add(script);
      // Behind a wrapper's options this reading does not know (`env -C . bash -c`, `ionice -c 3 sh -c`),
      // a command may start at any later word.
      if (form.words !== simple.words && !form.transparent) {
        const later = laterCommands(form.words, (k) => SCRIPT_RUNNERS.has(commandName(form.words[k])));
        cut ||= later.cut;
        for (const words of later.starts) {
          const inner = nestedScript(words, simple.stdin);
          if (inner !== undefined) scripts.add(inner);
        }
      }
      queue.push(...findExecCommands(form.words).map(literalCommand));
    }
  }
  return { scripts: [...scripts], cut };
}

/** How many words after a wrapper a command is looked for from. */
const MAX_LATER_STARTS = 32;

/**
 * The words from each later word that is not an option and that `mayStart` (given its index)
 * lets begin the command sought, a few of them; `cut` when more were left untried.
 */
export function laterCommands(words: readonly string[], mayStart: (index: number) => boolean): { starts: string[][]; cut: boolean } {
  const starts: string[][] = [];
  for (let i = 1; i < words.length; i += 1) {
    if (words[i].startsWith('-') || !mayStart(i)) continue;
    if (starts.length === MAX_LATER_STARTS) return { starts, cut: true };
    starts.push(words.slice(i));
  }
  return { starts, cut: false };
}
