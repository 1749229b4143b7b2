import { commandName } from '../../permissions/bash-wrappers';
import { HOLE } from '../../permissions/wildcard';
import type { ParsedBash } from './bash-words';
import { lineCommands } from './line-commands';

/**
 * What the sed scripts of a line touch that no word of it shows as a path: the files of `r`,
 * `R`, `w`, `W` and the `s///w` flag (`sed -n '1w ../x' f` writes `../x`), and `problem` when a
 * script runs code (`e`, `s///e`), lives in a file (`-f`: its text is not known), is built from
 * an expansion, or is text GNU sed would reject (what it would do then is not read here).
 */
export interface SedFiles {
  files: string[];
  problem?: string;
}

/** The file names the sed scripts of the line (and of the scripts it runs) read or write, and the first problem. */
export function sedFiles(analysis: ParsedBash): SedFiles {
  const files: string[] = [];
  let problem: string | undefined;
  for (const words of lineCommands(analysis)) {
    if (!SED_NAMES.has(commandName(words[0] ?? ''))) continue;
    const script = sedInvocation(words.slice(1));
    const read = typeof script === 'string' ? readSedScript(script) : { files: [], problem: script.problem };
    files.push(...read.files);
    problem ??= read.problem;
  }
  return { files, problem };
}

const SED_NAMES = new Set(['sed', 'gsed']);

const LONG_OPTIONS = [
  'binary',
  'debug',
  'expression',
  'file',
  'follow-symlinks',
  'help',
  'in-place',
  'line-length',
  'null-data',
  'posix',
  'quiet',
  'regexp-extended',
  'sandbox',
  'separate',
  'silent',
  'unbuffered',
  'version',
  'zero-terminated',
];
/** Long options whose value may be the next word. */
const LONG_WITH_VALUE = new Set(['expression', 'file', 'line-length']);

/**
 * The script a sed command runs, as GNU sed reads its arguments: every `-e` joined by newlines,
 * or else its first operand (options may follow operands). A script file or an option sed does
 * not know is a problem.
 */
function sedInvocation(args: readonly string[]): string | { problem: string } {
  const pieces: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    // `"$x"` may be `-f/x` or `--expression=w /x` as well.
    if (arg.startsWith('-') ? arg.includes(HOLE) : arg.startsWith(HOLE))
      return { problem: `sed is given an option from an expansion (\`${arg.replaceAll(HOLE, '$…')}\`)` };
    if (arg.startsWith('--')) {
      const [written, ...rest] = arg.slice(2).split('=');
      const matches = LONG_OPTIONS.filter((name) => name.startsWith(written));
      const name = matches.includes(written) ? written : matches.length === 1 ? matches[0] : undefined;
      if (name === undefined) return { problem: `sed does not know the option \`${arg}\`` };
      const value = rest.length > 0 ? rest.join('=') : LONG_WITH_VALUE.has(name) ? args[++i] : undefined;
      if (name === 'file') return scriptFileProblem(value);
      if (name === 'expression') pieces.push(value ?? '');
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      operands.push(arg);
      continue;
    }
    // A group of short options: `-ne p`, `-nfscript`; `-i` takes the rest as its suffix (`-ie` is no `-e`).
    for (let k = 1; k < arg.length; k++) {
      const letter = arg[k];
      if (letter === 'i') break;
      if (letter === 'e' || letter === 'f' || letter === 'l') {
        const value = k + 1 < arg.length ? arg.slice(k + 1) : args[++i];
        if (letter === 'f') return scriptFileProblem(value);
        if (letter === 'e') pieces.push(value ?? '');
        break;
      }
      if (!'bEnrsuz'.includes(letter)) return { problem: `sed does not know the option \`-${letter}\`` };
    }
  }
  const script = pieces.length > 0 ? pieces.join('\n') : (operands[0] ?? '');
  if (script.includes(HOLE)) return { problem: 'its sed script is built from an expansion, which may hold any command' };
  return script;
}

function scriptFileProblem(file: string | undefined): { problem: string } {
  return { problem: `sed runs the script in \`${(file ?? '').replaceAll(HOLE, '$…')}\`, whose commands cannot be read before it runs` };
}

/** Commands that take nothing more. */
const PLAIN = new Set([...'=dDgGhHnNpPxzF']);

/**
 * The files a GNU sed script reads or writes, read as sed compiles it: addresses (`1`, `$`,
 * `/re/I`, `\%re%`, `a,b`, `a,+N`, `a~N`), `!`, `{}` blocks, commands separated by `;` or
 * newlines. A file name (`r`, `R`, `w`, `W`, `s///w`) and the text of `a`, `i`, `c` run to
 * the end of the line; `#` starts a comment.
 */
export function readSedScript(script: string): SedFiles {
  const files: string[] = [];
  let i = 0;
  const at = () => script[i] ?? '';
  const skipBlanks = () => {
    while (at() === ' ' || at() === '\t') i++;
  };
  const restOfLine = () => {
    const end = script.indexOf('\n', i);
    const text = script.slice(i, end < 0 ? script.length : end);
    i = end < 0 ? script.length : end + 1;
    return text;
  };
  // Past a regex or replacement ending at `delim`: false when it does not end.
  const skipDelimited = (delim: string) => {
    for (; i < script.length; i++) {
      if (script[i] === '\\') i++;
      else if (script[i] === delim) {
        i++;
        return true;
      }
    }
    return false;
  };
  const skipNumber = () => {
    while (/[0-9]/.test(at())) i++;
  };
  const address = (second: boolean) => {
    const c = at();
    if (/[0-9]/.test(c)) {
      skipNumber();
      if (at() === '~') {
        i++;
        skipNumber();
      }
      return true;
    }
    if (c === '$' || (second && (c === '+' || c === '~'))) {
      i++;
      skipNumber();
      return true;
    }
    if (c === '/' || c === '\\') {
      if (c === '\\') i++;
      const delim = at();
      i++;
      if (!skipDelimited(delim)) return undefined;
      while (at() === 'I' || at() === 'M') i++;
      return true;
    }
    return false;
  };
  const reject = (why: string): SedFiles => ({ files, problem: `its sed script ${why}, which GNU sed would not read as this check does` });
  // After a command: blanks, then its end (`;`, a newline, `}`, a comment or the script's end).
  const endOfCommand = () => {
    skipBlanks();
    const c = at();
    if (c === ';' || c === '\n') i++;
    return c === ';' || c === '\n' || c === '' || c === '}' || c === '#';
  };

  while (i < script.length) {
    while (/[\s;]/.test(at())) i++;
    if (i >= script.length) break;
    if (at() === '#') {
      restOfLine();
      continue;
    }
    const first = address(false);
    if (first === undefined) return reject('has a regex that does not end');
    if (first) {
      skipBlanks();
      if (at() === ',') {
        i++;
        skipBlanks();
        if (address(true) !== true) return reject('has a range without its end');
      }
    }
    skipBlanks();
    while (at() === '!') {
      i++;
      skipBlanks();
    }
    const command = at();
    i++;
    if (command === '{' || command === '}') continue;
    if (PLAIN.has(command)) {
      if (!endOfCommand()) return reject(`has text after \`${command}\``);
    } else if ('lLqQ'.includes(command)) {
      skipBlanks();
      skipNumber();
      if (!endOfCommand()) return reject(`has text after \`${command}\``);
    } else if (':btTv'.includes(command)) {
      // A label ends at a blank or `;` (GNU sed 4.3 on); read so, a `;` never hides a command.
      skipBlanks();
      while (at() !== '' && !/[\s;]/.test(at())) i++;
    } else if ('aic'.includes(command)) {
      // The text runs to a newline no backslash escapes.
      for (; i < script.length && script[i] !== '\n'; i++) if (script[i] === '\\') i++;
    } else if ('rRwW'.includes(command)) {
      skipBlanks();
      files.push(restOfLine());
    } else if (command === 'e') {
      return { files, problem: 'its sed script runs a shell command (`e`)' };
    } else if (command === 's' || command === 'y') {
      const delim = at();
      if (delim === '' || delim === '\n' || delim === '\\') return reject(`has \`${command}\` without a delimiter`);
      i++;
      if (!skipDelimited(delim) || !skipDelimited(delim)) return reject(`has \`${command}\` that does not end`);
      if (command === 'y') {
        if (!endOfCommand()) return reject('has text after `y`');
        continue;
      }
      for (;;) {
        const flag = at();
        if (/[gpiImM0-9]/.test(flag)) i++;
        else if (flag === 'e') return { files, problem: 'its sed script runs the pattern space as a shell command (`s///e`)' };
        else if (flag === 'w') {
          i++;
          skipBlanks();
          files.push(restOfLine());
          break;
        } else if (endOfCommand()) break;
        else return reject(`has the unknown \`s\` flag \`${flag}\``);
      }
    } else {
      return reject(`has the unknown command \`${command}\``);
    }
  }
  return { files };
}
