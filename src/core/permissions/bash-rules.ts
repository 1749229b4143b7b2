import { analyzeBashCommand, type BashAnalysis, type RedirectTarget, type SimpleCommand } from './bash-command';
import { RISKY_VARIABLE, SHELL_CODE_VARIABLE } from './bash-variables';
import {
  commandForms,
  commandName,
  findExecCommands,
  HIDING_COMMANDS,
  laterCommands,
  literalCommand,
  MAX_NESTING,
  scriptsRunBy,
  rebindsCommand,
  runsInput,
  type CommandForm,
} from './bash-wrappers';
import { codeOptions, patternNames } from './code-options';
import { HOLE, wildcardCouldMatch, wildcardMatch } from './wildcard';

/**
 * Bash permission rules, as Claude Code applies them. Deny, ask and `if` match when ANY
 * subcommand matches (substitutions, wrappers and `bash -c` strings included). An allow rule
 * set grants a call only when EVERY subcommand matches some allow rule and nothing hides code
 * from the rules (substitutions, functions, `eval`, ...).
 */
export type BashRuleMatch = 'match' | 'no-match' | 'unparseable';

/** `find -exec find -exec ...` adds commands to check: a bound on them. */
const MAX_COMMANDS = 1_000;

/**
 * Whether a rule pattern (undefined: any command) matches some subcommand. 'unparseable'
 * when it does not, but might: the line does not parse, or an expansion (`$CMD -rf`,
 * `bash -c "$X"`) could turn into a matching command.
 */
export function bashRuleMatches(pattern: string | undefined, command: string, depth = 0): BashRuleMatch {
  if (pattern === undefined) return 'match';
  const analysis = analyzeBashCommand(command);
  if (analysis.kind === 'unparseable') return heuristicMatch(pattern, command) ? 'match' : 'unparseable';
  // `x='a[$(rm k)]'; : $((x))`: bash runs code from a value no command shows.
  let could = analysis.unseen.length > 0;
  const queue = [...analysis.commands];
  for (let i = 0; i < queue.length && i < MAX_COMMANDS; i += 1) {
    const simple = queue[i];
    const forms = commandForms(simple, true);
    // Behind a wrapper, options this reading does not know (`env -C dir rm`, `sudo -E rm`) could
    // hide where the command starts: a deny rule is tried from every later word that could begin
    // a match as well, and past as many as are tried, the command could be any of the others.
    // A pattern that begins with `*` matches a tail only where it matches the whole command.
    if (forms.length > 1 && !pattern.startsWith('*')) {
      const wrapperWords = simple.words.length - forms[1].words.length;
      const later = laterCommands(forms[1].words, (k) => mayBeginMatch(pattern, simple, wrapperWords + k));
      if (later.starts.some((words) => namesMatch(pattern, simple, words))) return 'match';
      if (later.cut) could = true;
    }
    for (const form of forms) {
      // After `alias ls=rm` or `env BASH_ENV=... bash`, a command runs what no word shows
      // (the line's own assignments are the analysis' to judge).
      const envAssigned = form.assigned.slice(simple.assigned.length);
      if (rebindsCommand(form.words) || envAssigned.some((name) => SHELL_CODE_VARIABLE.test(name))) could = true;
      const dynamic = simple.dynamicName && form.words === simple.words;
      if (dynamic ? wildcardMatch(pattern, matchText(form.words, true)) : namesMatch(pattern, simple, form.words)) return 'match';
      if (wildcardCouldMatch(pattern, matchText(form.words, dynamic))) could = true;
      queue.push(...findExecCommands(form.words).map(literalCommand));
    }
    for (const script of scriptsRunBy(simple)) {
      // Too deep to look inside: it might match, which is never the same as "it does not".
      if (depth >= MAX_NESTING) {
        could = true;
        continue;
      }
      const nested = bashRuleMatches(pattern, script, depth + 1);
      if (nested === 'match') return 'match';
      if (nested === 'unparseable') could = true;
    }
  }
  return could || queue.length > MAX_COMMANDS ? 'unparseable' : 'no-match';
}

/**
 * The words (a tail of the command's) as written, as spelled (a rule "Deny for this session"
 * stored), or with the command name by its basename (`/bin/rm` is rm to `Bash(rm *)`).
 */
function namesMatch(pattern: string, command: SimpleCommand, words: string[]): boolean {
  const spelled = spelledTail(command, words);
  if (wildcardMatch(pattern, words.join(' ')) || wildcardMatch(pattern, spelled.join(' '))) return true;
  const name = commandName(words[0]);
  if (name === words[0]) return false;
  return wildcardMatch(pattern, [name, ...words.slice(1)].join(' ')) || wildcardMatch(pattern, [name, ...spelled.slice(1)].join(' '));
}

/**
 * Whether the command's words from `index` on could match the pattern, whatever follows the
 * first: that word as written, as spelled, or by its basename (as `namesMatch` tries it).
 */
function mayBeginMatch(pattern: string, command: SimpleCommand, index: number): boolean {
  const word = command.words[index];
  const firsts = new Set([word, command.spelled[index], commandName(word)]);
  return [...firsts].some((first) => wildcardCouldMatch(pattern, first + HOLE));
}

/** The spelling of `words`, a tail of the command's: what a wrapper (`timeout 5 rm x`) runs is always one. */
function spelledTail(command: SimpleCommand, words: readonly string[]): string[] {
  return command.spelled.slice(command.words.length - words.length);
}

/** A command name that is an expansion or a glob could be any command: it becomes a hole. */
function matchText(words: string[], dynamicName: boolean): string {
  return (dynamicName ? [HOLE, ...words.slice(1)] : words).join(' ');
}

/**
 * For a line the parser rejects (bash most likely would too): split at every operator and
 * quote-strip each piece, so that an unterminated quote cannot hide `rm -rf x` from `Bash(rm *)`.
 */
function heuristicMatch(pattern: string, command: string): boolean {
  const fragments = fragmentCommands(command);
  return fragments !== undefined && fragments.some((fragment) => namesMatch(pattern, fragment, fragment.words));
}

/** More pieces than this are not tried: the line asks, rather than hold the gate once per rule. */
const MAX_FRAGMENTS = 10_000;

/** The last line split into its pieces' command forms: every rule is tried on the same line. */
let fragmented: { command: string; forms: SimpleCommand[] | undefined } | undefined;

function fragmentCommands(command: string): SimpleCommand[] | undefined {
  if (fragmented?.command === command) return fragmented.forms;
  const pieces = command.split(/[;&|\n()`<>{}]|\$\(/);
  let forms: SimpleCommand[] | undefined;
  if (pieces.length <= MAX_FRAGMENTS) {
    forms = pieces.flatMap((fragment) => {
      const words = fragment
        .replace(/["'\\]/g, '')
        .trim()
        .split(/\s+/)
        .filter((w) => w !== '');
      while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words.shift();
      return words.length === 0 ? [] : commandForms(literalCommand(words), true).map((form) => literalCommand(form.words));
    });
  }
  fragmented = { command, forms };
  return forms;
}

export type BashAllowResult =
  | {
      allowed: true;
      writes: RedirectTarget[];
      /** Granted by the bare `Bash` rule: every command, so writing files with them too. */
      anyCommand: boolean;
    }
  | { allowed: false; reason: string };

/**
 * Whether a set of allow-rule patterns (undefined: the bare `Bash` rule, any command) grants
 * the whole line. Write redirections are returned for the caller to judge as file edits.
 */
export function bashAllowedBy(patterns: ReadonlyArray<string | undefined>, analysis: BashAnalysis): BashAllowResult {
  if (analysis.kind === 'unparseable') return { allowed: false, reason: `the command cannot be parsed (${analysis.error})` };
  const writes = analysis.redirects.filter((r) => r.write);
  if (patterns.includes(undefined)) return { allowed: true, writes, anyCommand: true };
  if (analysis.hidden.length > 0) return { allowed: false, reason: `it contains ${analysis.hidden.join(', ')}` };
  for (const simple of analysis.commands) {
    if (simple.dynamicName) return { allowed: false, reason: `its command name comes from an expansion or a glob` };
    // `bash <<< 'rm x'`, `echo 'rm x' | sh`: `Bash(bash)` would grant every script.
    const reader = commandForms(simple).find((form) => runsInput(form.words));
    if (reader) return { allowed: false, reason: `\`${reader.words[0]}\` runs the script on its input, which no allow rule can name` };
    const binder = commandForms(simple, true).find((form) => rebindsCommand(form.words));
    if (binder) return { allowed: false, reason: `\`${binder.words[0]}\` makes a command name run something else` };
    if (!commandAllowed(simple, patterns as string[])) {
      return { allowed: false, reason: `no allow rule matches \`${simple.spelled.join(' ').replaceAll(HOLE, '$…')}\`` };
    }
  }
  return { allowed: true, writes, anyCommand: false };
}

const MAKE_PROGRAMS = new Set(['make', 'gmake']);

function commandAllowed(simple: SimpleCommand, patterns: readonly string[]): boolean {
  const forms = commandForms(simple);
  for (let k = 0; k < forms.length; k += 1) {
    if (k > 0 && !forms[k].transparent) return false;
    if (forms[k].assigned.some((name) => RISKY_VARIABLE.test(name))) return false;
    // make reads every variable of its environment as its own: `RM=./x make clean` runs ./x in the recipe.
    if (forms[k].assigned.length > 0 && MAKE_PROGRAMS.has(commandName(forms[k].words[0]))) return false;
    const spelled = spelledTail(simple, forms[k].words).join(' ');
    if (patterns.some((pattern) => formAllowedBy(pattern, forms, k, spelled))) return true;
  }
  return false;
}

/**
 * A wrapper (`timeout`, `xargs`) or a code runner (`eval`, `sh`) is granted only by a rule that
 * names it. The rule reads the form as spelled: what one word holds never passes for two.
 */
function formAllowedBy(pattern: string, forms: CommandForm[], k: number, spelled: string): boolean {
  const name = forms[k].words[0];
  const mustName = k < forms.length - 1 || HIDING_COMMANDS.has(name);
  if (mustName && pattern.split(' ')[0] !== name) return false;
  if (!codeOptions(forms[k].words).every((option) => patternNames(pattern, option, commandName(name)))) return false;
  return wildcardMatch(pattern, spelled, 'allow');
}
