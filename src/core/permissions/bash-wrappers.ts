import { analyzeBashCommand, type SimpleCommand } from './bash-command';

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
  'eval', 'source', '.', 'trap', 'alias', 'watch', 'su', 'sudo', 'doas', 'xargs', 'env',
  'sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'csh', 'tcsh',
]);

export interface CommandForm {
  words: string[];
  /** Variables set for the command by `env NAME=value` on the way to this form. */
  assigned: string[];
  /** The previous form ran this one transparently (false for the first form and after xargs/sudo). */
  transparent: boolean;
}

/** The command as written, then each command found by stripping one wrapper, outermost first. */
export function commandForms(command: SimpleCommand): CommandForm[] {
  const forms: CommandForm[] = [{ words: command.words, assigned: command.assigned, transparent: false }];
  for (let depth = 0; depth < 8; depth += 1) {
    const last = forms[forms.length - 1];
    const inner = stripWrapper(last.words);
    if (!inner || inner.words.length === 0) break;
    forms.push({ words: inner.words, assigned: [...last.assigned, ...inner.assigned], transparent: inner.transparent });
  }
  return forms;
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

function stripWrapper(words: string[]): Stripped | undefined {
  const name = words[0];
  const plain = (rest: string[], transparent = true): Stripped => ({ words: rest, assigned: [], transparent });
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
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word);
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

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh']);

/**
 * The code a command runs from a string (`bash -c '...'`, `eval ...`, `trap '...' EXIT`,
 * `su -c '...'`, `watch '...'`), so that deny rules can look inside it.
 */
export function nestedScript(words: string[]): string | undefined {
  const [name, ...args] = words;
  if (name === 'eval') return args.join(' ');
  if (name === 'trap') return args[0] !== undefined && !args[0].startsWith('-') ? args[0] : undefined;
  if (name === 'watch') return args.filter((a) => !a.startsWith('-')).join(' ');
  if (name === 'su') return args.includes('-c') ? args[args.indexOf('-c') + 1] : undefined;
  if (SHELLS.has(name)) {
    const flag = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
    return flag === -1 ? undefined : args.slice(flag + 1).find((a) => !a.startsWith('-'));
  }
  return undefined;
}

/** The simple commands of a nested script, or undefined when it does not parse. */
export function nestedCommands(script: string): SimpleCommand[] | undefined {
  const analysis = analyzeBashCommand(script);
  return analysis.kind === 'parsed' ? analysis.commands : undefined;
}
