import { randomUUID } from 'node:crypto';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { envSecretValues } from '../audit/env-file-secrets';
import { errorMessage } from '../error-message';
import { FileTooLargeError, readRegularFile } from '../read-regular-file';
import { runProcess } from '../process/run-process';
import { isBash } from '../process/shell-arguments';
import { shellQuoted } from '../process/shell-command-line';
import { secretEnvValues } from '../secret-env-names';
import { errnoCode } from './tools/file-content';
import { resolveShell } from './tools/shell-environment';

/** A hook that writes more than this is refused rather than prepended to every command. */
export const MAX_ENV_FILE_BYTES = 64 * 1024;
/**
 * What every Bash command may start with, all files together: the prelude and the command are
 * one argument of the shell, and an argument over 128 KiB cannot be passed at all.
 */
export const MAX_PRELUDE_BYTES = 96 * 1024;
/** How long the one run that finds what the file exports may take. */
export const ENV_FILE_EVALUATION_TIMEOUT_MS = 5_000;
/** Set by the listing to the mark with `-canary` before it lists: a listing without it did not run as written. */
const CANARY = '__hookpilot_canary';
/**
 * After the prelude, under bash: sets CANARY, prints the mark, then NAME=value\0 for
 * every variable the prelude leaves, its shell variables too (a value set without `export`,
 * `TOKEN="$(cat …)"`, reaches every later command just the same), then the mark with `-arrays`
 * and NAME=element\0 for each element of an array or associative array (`"${!a}"` with
 * a=NAME[@] lists them all). The prelude may have defined functions or aliases named like the
 * builtins this uses, or disabled them: an assignment turns on POSIX mode, in which special
 * builtins (`unset`) come before functions, the next lines remove those functions and every
 * alias and enable the builtins again. Each step is a line of its own, as bash reads the
 * aliases a line uses before it runs the line; a prelude that keeps POSIX mode off leaves no mark.
 */
const bashListing = (mark: string) =>
  [
    'POSIXLY_CORRECT=y',
    '\\unset -f builtin compgen printf read unalias enable; \\unalias -a',
    '\\enable builtin compgen printf read unalias',
    `[[ -o posix ]] && { ${CANARY}='${mark}-canary'; printf '%s\\0' '${mark}'; ` +
      'compgen -v | while IFS= read -r __hp_n; do printf "%s=%s\\0" "$__hp_n" "${!__hp_n-}"; done; ' +
      `printf '%s\\0' '${mark}-arrays'; ` +
      'compgen -A arrayvar | while IFS= read -r __hp_n; do __hp_a="$__hp_n[@]"; for __hp_v in "${!__hp_a}"; do printf "%s=%s\\0" "$__hp_n" "$__hp_v"; done; done; }',
  ].join('\n');
/** Elsewhere (`sh`): the prelude runs under `set -a`, so that `env` lists what it sets unexported too. */
const shListing = (mark: string) => `${CANARY}='${mark}-canary'; printf '%s\\0' '${mark}'; env -0; printf '%s\\0' '${mark}-arrays'`;

/** Where the Bash tool's commands run: its environment (secrets already removed) and directory. */
export interface BashShellSetting {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * Claude Code's CLAUDE_ENV_FILE: SessionStart command hooks append `export NAME=value` lines
 * to it, and every later Bash command of the session runs after them. The file exists only
 * while those hooks run, alone in a new private directory (0700, file 0600) outside the
 * workspace; its text is then kept in memory and the directory removed. So the model's tools,
 * which never learn the path, have nothing to write to: what its Bash commands start with is
 * what the user's hooks wrote. (A process a command left running could find a file made while
 * it runs, after a compaction or for FileChanged; those end with the session.)
 */
export class SessionEnvFile {
  /**
   * What the hooks wrote, by what ran them (`SessionStart compact`, `FileChanged /w/.envrc`):
   * a later run for the same key replaces its text, so repeated compactions or a file rewritten
   * in a loop do not grow what every command starts with. Oldest first, as they run.
   */
  private parts = new Map<string, string>();
  /** The parts, then lines that set each secret they compute back to the value learned (see `learnSecrets`). */
  private text = '';
  /** Applies run one at a time: each builds on what the one before kept. */
  private applying: Promise<unknown> = Promise.resolve();

  /**
   * `secrets` hears each secret-looking value the hooks export (`export GITHUB_TOKEN=…`): the
   * Bash commands get it, as the user's hooks asked, but the model never reads it back.
   */
  constructor(
    private readonly secrets: { addSecretValue(value: string): void },
    private readonly bash: BashShellSetting,
    private readonly parentDir: string = tmpdir(),
  ) {}

  /** What every Bash command of the session runs after ('' when no hook wrote anything). */
  get prelude(): string {
    return this.text;
  }

  /**
   * Runs `dispatch` with CLAUDE_ENV_FILE pointing to a fresh empty file, then keeps what the
   * hooks wrote in place of what the last run for `key` wrote (nothing written: that is gone).
   * A problem (a file replaced by a link, too large, a prelude that cannot be checked) is
   * returned, never ignored, and then nothing of this run applies.
   */
  async capture<T>(key: string, dispatch: (env: Readonly<Record<string, string>>) => Promise<T>): Promise<{ result: T; problem?: string }> {
    const dir = mkdtempSync(path.join(this.parentDir, 'hookpilot-env-'));
    const file = path.join(dir, 'env.sh');
    try {
      closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
      const result = await dispatch({ CLAUDE_ENV_FILE: file });
      const read = readPlainFile(file);
      if (typeof read !== 'string') return { result, problem: `CLAUDE_ENV_FILE not applied: ${read.problem}` };
      for (const value of envSecretValues(read)) this.secrets.addSecretValue(value);
      const text = read.trim() === '' ? '' : read.endsWith('\n') ? read : `${read}\n`;
      const applied = this.applying.then(() => this.apply(key, text));
      this.applying = applied.catch(() => undefined);
      const problem = await applied;
      return problem === undefined ? { result } : { result, problem: `CLAUDE_ENV_FILE not applied: ${problem}` };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Keeps `text` for `key` once the prelude it makes fits and its secrets are known; else says why not. */
  private async apply(key: string, text: string): Promise<string | undefined> {
    if (text === '' && !this.parts.has(key)) return undefined;
    const parts = new Map(this.parts);
    // Set last: a later run's exports win over the others'.
    parts.delete(key);
    if (text !== '') parts.set(key, text);
    const prelude = [...parts.values()].join('');
    const learned = await this.learnSecrets(prelude);
    if (typeof learned === 'string') return learned;
    const size = Buffer.byteLength(prelude + learned.pins);
    if (size > MAX_PRELUDE_BYTES) return `every Bash command would start with ${size} bytes, more than ${MAX_PRELUDE_BYTES}`;
    for (const secret of learned.secrets) this.secrets.addSecretValue(secret);
    this.parts = parts;
    this.text = prelude + learned.pins;
    return undefined;
  }

  /**
   * Runs the prelude once as a Bash command would and finds the secret-named values it leaves to
   * later commands: `declare -x NAME=…`, a variable it sets without exporting, several names on
   * one `export`, a later `export NAME` or a value from `$(cat …)` are shell that the dotenv
   * grammar does not read. The prelude itself is kept as text, as Claude Code sources the file
   * before each command: it may define functions, aliases or options that no list of values
   * would carry. But each command would compute a secret again (`$(aws ecr get-login-password)`
   * is new each time), and a value no one has seen could reach the model: `pins` sets each
   * secret scalar back to the value learned here, after the prelude. A prelude whose run fails,
   * or does not list as written, is not applied: its secrets would not be known.
   */
  private async learnSecrets(prelude: string): Promise<{ secrets: string[]; pins: string } | string> {
    // Output the prelude prints itself comes before the mark.
    const mark = `hookpilot-env-${randomUUID()}`;
    const shell = resolveShell(this.bash.env);
    const bash = isBash(shell);
    // One script, as a Bash command runs it: a prelude that does not parse (`if true; then`
    // left open for the command to close) does not parse here either, and leaves no mark.
    const run = await runProcess({
      command: bash ? `${prelude}${bashListing(mark)}` : `set -a\n${prelude}${shListing(mark)}`,
      shell,
      cwd: this.bash.cwd,
      env: this.bash.env,
      input: '',
      timeoutMs: ENV_FILE_EVALUATION_TIMEOUT_MS,
    });
    const out = run.stdout;
    const at = out.indexOf(`${mark}\0`);
    const arraysAt = out.indexOf(`${mark}-arrays\0`, at);
    if (run.timedOut || run.spawnError !== undefined || run.stdoutTruncated || at === -1 || arraysAt === -1) {
      const why = run.timedOut ? `it ran over ${ENV_FILE_EVALUATION_TIMEOUT_MS} ms` : (run.spawnError ?? 'it did not run to its end');
      return `running it to learn its secrets failed (${why})`;
    }
    const scalars = entries(out.slice(at + mark.length + 1, arraysAt));
    const elements = entries(out.slice(arraysAt + mark.length + '-arrays'.length + 1));
    if (out.lastIndexOf(`${mark}\0`) !== at || !scalars.some(([name, value]) => name === CANARY && value === `${mark}-canary`))
      return 'running it to learn its secrets failed (its variables were not listed as asked)';
    const secrets: string[] = [];
    let pins = '';
    const arrays = new Set(elements.map(([name]) => name));
    // One name per array element: each is judged, and registered, on its own.
    for (const [name, value] of [...scalars, ...elements]) {
      if (name === CANARY || this.bash.env[name] === value) continue;
      const found = secretEnvValues({ [name]: value });
      secrets.push(...found);
      if (found.length > 0 && !arrays.has(name))
        pins += `case \${${name}-} in ${shellQuoted(value)}) ;; *) ${name}=${shellQuoted(value)} ;; esac\n`;
    }
    return { secrets, pins };
  }
}

/** NAME=value entries of a NUL-separated listing (a value may hold newlines). */
function entries(listing: string): Array<[string, string]> {
  return listing
    .split('\0')
    .map((entry) => [entry.slice(0, Math.max(0, entry.indexOf('='))), entry.slice(entry.indexOf('=') + 1)] as [string, string])
    .filter(([name]) => name !== '');
}

/** The file's text, read without following a link and only if it is a plain file within the cap. */
function readPlainFile(file: string): string | { problem: string } {
  try {
    return readRegularFile(file, MAX_ENV_FILE_BYTES);
  } catch (err) {
    // A hook that removed the file wrote nothing to apply.
    if (errnoCode(err) === 'ENOENT') return '';
    if (err instanceof FileTooLargeError) return { problem: `it holds ${err.size} bytes, more than ${MAX_ENV_FILE_BYTES}` };
    return { problem: errorMessage(err) };
  }
}
