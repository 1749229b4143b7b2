import { commandForms, commandName, type CommandForm } from '../../permissions/bash-wrappers';
import { HOLE } from '../../permissions/wildcard';
import { RUN_MARKER_VARIABLE, SESSION_MARKER_VARIABLE } from '../../process/marked-processes';
import type { ParsedBash } from './bash-words';

/**
 * Why the line may start what outlives its session: what a call starts is found and ended by
 * the marker variables in its environment (marked-processes.ts), so a line that names one
 * (`unset`, `env -u`, `export -n`, an assignment) asks, and so does one that leaves something
 * running and clears its environment (`env -i`, `exec -c`, `setpriv --reset-env`) or changes a
 * variable whose name is built as it runs (`unset ${v}_ID`), which may be a marker.
 */
export function markerProblem(command: string, analyses: readonly ParsedBash[]): string | undefined {
  const commands = analyses.flatMap((each) => each.commands);
  const texts = [command, ...analyses.flatMap((each) => each.values), ...commands.flatMap((c) => [...c.words, ...c.assigned])];
  const named = [SESSION_MARKER_VARIABLE, RUN_MARKER_VARIABLE].find((name) => texts.some((text) => text.includes(name)));
  if (named) return `it names ${named}, by which what it starts is ended with the session: a person must approve it`;
  if (!DETACHES.test(command)) return undefined;
  const forms = commands.flatMap((c) => commandForms(c, true));
  if (forms.some((form) => clearsEnvironment(form.words)))
    return 'it clears its environment and leaves a process running, which then would not end with the session: a person must approve it';
  if (forms.some(changesBuiltName))
    return (
      'it changes a variable whose name is built as it runs, which may be one by which what it starts is ended with the ' +
      'session, and leaves a process running: a person must approve it'
    );
  return undefined;
}

/** A lone `&` (not `&&`, `>&`, `&>`) or a command that detaches. */
const DETACHES = /(^|[^&<>])&(?![&>])|\b(nohup|setsid|disown)\b/;

/**
 * `env -i` (`--ignore-environment`, `env -`, also in a split string: `env -S '-i …'`), `exec -c`
 * or `setpriv --reset-env`: the command starts with an empty or a new environment.
 */
function clearsEnvironment(words: readonly string[]): boolean {
  const name = commandName(words[0] ?? '');
  if (name === 'env') {
    const options = envOptions(words);
    return options === undefined || options.some((o) => o.name === '-i' || o.name === '--ignore-environment' || o.name === '-');
  }
  // Options and their values are not told apart: a word like it anywhere asks.
  if (name === 'setpriv') return words.slice(1).some((word) => longOptionOf(word, ['--reset-env']) !== undefined);
  if (name !== 'exec') return false;
  for (let i = 1; i < words.length; i++) {
    if (/^-[^-]*c/.test(words[i])) return true;
    if (words[i] === '-a') i++;
    else if (!words[i].startsWith('-') && !words[i].includes('=')) return false;
  }
  return false;
}

/** Builtins that unset, unexport or set the variables their words name. */
const VARIABLE_BUILTINS = new Set([
  'unset',
  'export',
  'declare',
  'typeset',
  'local',
  'readonly',
  'read',
  'mapfile',
  'readarray',
  'getopts',
]);
/** Builtins that make a name reference (`-n`): a plain name then sets or unsets the variable it refers to. */
const REFERENCE_BUILTINS = new Set(['declare', 'typeset', 'local']);

/**
 * A command that unsets or sets a variable whose name an expansion builds (`unset ${v}_ID`,
 * `export -n "$x"`, `printf -v "$x"`, `env -u "$x"`) or that it reaches by reference
 * (`declare -n`), or one whose own name is built (`eval "${c}_ID"`): it may be `unset`.
 */
function changesBuiltName(form: CommandForm): boolean {
  const [name = '', ...args] = form.words;
  if (name.includes(HOLE) || form.assigned.some((assigned) => assigned.includes(HOLE))) return true;
  if (REFERENCE_BUILTINS.has(name) && args.some((arg) => /^-[a-zA-Z]*n/.test(arg))) return true;
  if (VARIABLE_BUILTINS.has(name)) return args.some((arg) => arg.split('=', 1)[0].includes(HOLE));
  if (name === 'printf')
    return args.some((arg, i) => (arg === '-v' ? (args[i + 1] ?? '').includes(HOLE) : arg.startsWith('-v') && arg.includes(HOLE)));
  if (commandName(name) === 'env') return (envOptions(form.words) ?? []).some((o) => o.name === '--unset' && o.value?.includes(HOLE));
  return false;
}

/** env's long options, each by its full name: a prefix of one names the first it starts. */
const ENV_LONG_OPTIONS = [
  '--ignore-environment',
  '--unset',
  '--chdir',
  '--split-string',
  '--argv0',
  '--null',
  '--block-signal',
  '--default-signal',
  '--ignore-signal',
  '--list-signal-handling',
  '--debug',
  '--help',
  '--version',
];
/** env's options that take a value, short by their letter and long. */
const ENV_SHORT_WITH_VALUE: Record<string, string> = { u: '--unset', C: '--chdir', S: '--split-string', a: '--argv0' };
const ENV_LONG_WITH_VALUE = Object.values(ENV_SHORT_WITH_VALUE);

/** The full name of the long option `word` (`--name` or `--name=value`) abbreviates, from `names`, or undefined. */
function longOptionOf(word: string, names: readonly string[]): string | undefined {
  const given = word.split('=', 1)[0];
  return word.startsWith('--') && given.length > 2 ? names.find((full) => full.startsWith(given)) : undefined;
}

interface EnvOption {
  /** `-i`, or a long option by its full name. */
  name: string;
  value?: string;
}

/**
 * env's options up to the command it runs, with the words of a split string (`-S '-i sleep 1'`,
 * `--split-string=…`) read as more of them, as env does. Undefined when a split string holds
 * what is known only as it runs (an expansion, env's own `${NAME}`): it may clear anything.
 */
function envOptions(words: readonly string[]): EnvOption[] | undefined {
  const options: EnvOption[] = [];
  const rest = words.slice(1);
  for (let word = rest.shift(); word !== undefined && word !== '--'; word = rest.shift()) {
    if (word === '-') options.push({ name: '-' });
    else if (!word.startsWith('-')) {
      if (word.includes('=')) continue;
      break;
    } else if (word.startsWith('--')) {
      const name = longOptionOf(word, ENV_LONG_OPTIONS) ?? word;
      const attached = word.indexOf('=');
      const takes = ENV_LONG_WITH_VALUE.includes(name);
      options.push({ name, value: !takes ? undefined : attached === -1 ? rest.shift() : word.slice(attached + 1) });
    } else {
      // A cluster of short options: one that takes a value takes the rest of the word, or the next word.
      for (let i = 1; i < word.length; i++) {
        const long = ENV_SHORT_WITH_VALUE[word[i]];
        if (long === undefined) {
          options.push({ name: `-${word[i]}` });
          continue;
        }
        options.push({ name: long, value: i + 1 < word.length ? word.slice(i + 1) : rest.shift() });
        break;
      }
    }
    // Each word that gets here adds options, a split string last.
    const split = options.at(-1)!;
    if (split.name !== '--split-string' || split.value === undefined) continue;
    if (split.value.includes(HOLE) || split.value.includes('${')) return undefined;
    // Quotes and escapes only group and spell the words: without them, no option hides.
    rest.unshift(
      ...split.value
        .replaceAll('\\_', ' ')
        .replace(/['"\\]/g, '')
        .split(/\s+/)
        .filter(Boolean),
    );
  }
  return options;
}
