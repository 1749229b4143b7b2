import { parse } from 'shell-quote';

/**
 * Finds the script a command hook runs: either the program itself when it is a path
 * (`./hooks/check.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`) or the script handed
 * to an interpreter (`node hooks/check.js`). Used to name hooks and to check scripts.
 */

const INTERPRETERS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'node',
  'nodejs',
  'deno',
  'bun',
  'tsx',
  'ts-node',
  'python',
  'python2',
  'python3',
  'uv',
  'ruby',
  'perl',
  'php',
  'pwsh',
  'powershell',
]);

/** Flags after which the next word is code or a module, not a script file. */
const INLINE_CODE_FLAGS = new Set(['-c', '-e', '-m', '--eval', '-p', '--print', '-Command', '-command']);

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export interface CommandScript {
  /** The path as written, with variables expanded by `expand`. */
  path: string;
  /** true when an interpreter runs it, so it need not be executable. */
  viaInterpreter: boolean;
}

/** Replaces `$NAME` / `${NAME}` with a value; return undefined to keep the reference verbatim. */
export type VariableExpander = (name: string) => string | undefined;

export function looksLikePath(word: string): boolean {
  return word.includes('/') || word.startsWith('.') || word.startsWith('~');
}

function basename(word: string): string {
  const parts = word.split('/').filter((p) => p !== '');
  return parts.length > 0 ? parts[parts.length - 1] : word;
}

/** The command's words; shell operators end the first simple command. */
export function commandWords(command: string, args: readonly string[] | undefined, expand: VariableExpander): string[] {
  if (args) return [command, ...args];
  const words: string[] = [];
  for (const entry of parse(command, (name) => expand(name) ?? `\${${name}}`)) {
    if (typeof entry !== 'string') break;
    words.push(entry);
  }
  return words;
}

export function findCommandScript(words: readonly string[]): CommandScript | undefined {
  let i = 0;
  while (i < words.length && ASSIGNMENT.test(words[i])) i++;
  if (words[i] === 'env') {
    i++;
    while (i < words.length && (ASSIGNMENT.test(words[i]) || words[i].startsWith('-'))) i++;
  }
  const program = words[i];
  if (program === undefined) return undefined;
  if (looksLikePath(program) && !INTERPRETERS.has(basename(program))) return { path: program, viaInterpreter: false };
  if (!INTERPRETERS.has(basename(program))) return undefined;
  for (let j = i + 1; j < words.length; j++) {
    const word = words[j];
    if (INLINE_CODE_FLAGS.has(word)) return undefined;
    if (word.startsWith('-')) continue;
    // `uv run script.py`: the subcommand is not the script.
    if (basename(program) === 'uv' && word === 'run') continue;
    return looksLikePath(word) || /\.[A-Za-z0-9]+$/.test(word) ? { path: word, viaInterpreter: true } : undefined;
  }
  return undefined;
}

const LABEL_LENGTH = 40;
const SECRET_MASK = '***';

/**
 * A readable default name: the script's file name, else the start of the command with its
 * `secretValues` masked first: a secret cut at the end of the label would no longer be the
 * value the redactor knows, and the name reaches the model, the audit log and telemetry.
 */
export function commandLabel(command: string, args: readonly string[] | undefined, secretValues: readonly string[]): string {
  const script = findCommandScript(commandWords(command, args, () => undefined));
  if (script) return basename(script.path);
  let text = args ? [command, ...args].join(' ') : command;
  // Longest first, so a secret that contains another (`Bearer X`, `X`) is masked whole.
  for (const value of [...secretValues].sort((a, b) => b.length - a.length)) text = text.split(value).join(SECRET_MASK);
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > LABEL_LENGTH ? `${text.slice(0, LABEL_LENGTH)}…` : text;
}
