import type sh from 'mvdan-sh';
import { addPiece, spellLiteral, spellWord, type WordPiece } from './shell-spelling';
import { HOLE } from './wildcard';
import { errorMessage } from '../error-message';

type Node = sh.Node;
type Syntax = (typeof sh)['syntax'];

/**
 * What a Bash command line would run, from a real shell parser (mvdan/sh, bash dialect):
 * what permission rules and the gate need to decide on it without running it.
 */
export type BashAnalysis =
  | { kind: 'unparseable'; error: string }
  | {
      kind: 'parsed';
      /** Every simple command anywhere in the tree, substitutions and function bodies included. */
      commands: SimpleCommand[];
      redirects: RedirectTarget[];
      /**
       * Text the line hands to commands outside their words: assignment values, `for` lists,
       * here-string and here-doc texts. Checks on paths look at these too (`f=../x; cat $f`).
       * A HOLE among them: an unquoted expansion may split into further words.
       */
      values: string[];
      /**
       * Why the line may run code no rule can see (command or process substitution, arithmetic,
       * a function definition, ...); empty when every command is visible. Never auto-allowed.
       */
      hidden: string[];
      /**
       * The hidden reasons by which the line may run a command that no entry of `commands` shows
       * (bash evaluating a value as code, a name bound to another program): deny rules cannot
       * rule those out.
       */
      unseen: string[];
    };

export interface SimpleCommand {
  /**
   * The words with quoting removed, leading `VAR=value` assignments left out. A part the shell
   * would expand (`$VAR`, `$(...)`, `{a,b}`) is a HOLE. Unquoted glob characters stay as they are.
   */
  words: string[];
  /** The words as allow rules read them (shell-spelling.ts): quoting that changes what runs kept. */
  spelled: string[];
  /** Names assigned before the command (`FOO=1 git push` => FOO). */
  assigned: string[];
  /** Whether the command name is not fixed text (an expansion or a glob): then anything may run. */
  dynamicName: boolean;
  /** The here-doc and here-string texts fed to the command (`sh <<< 'rm x'` runs them); undefined: none. */
  stdin?: string[];
}

export interface RedirectTarget {
  /** The target with quoting removed; undefined when an expansion makes it unknowable. */
  target: string | undefined;
  /** Whether the redirection can create or change the target (`>`, `>>`, `>|`, `&>`, `<>`, `>&file`). */
  write: boolean;
}

const WRITE_OPS = new Set(['>', '>>', '<>', '>|', '&>', '&>>']);

/**
 * The parser, loaded on first use: starting its Go runtime takes a noticeable fraction of a
 * second, which a CLI run or an extension activation that never gates a Bash call should not pay.
 */
let loaded: { syntax: Syntax; parser: sh.Parser; redirectOps: Map<number, string>; evaluatingOps: EvaluatingOps } | undefined;
let syntax: Syntax;
function shell(): NonNullable<typeof loaded> {
  if (!loaded) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    syntax = (require('mvdan-sh') as typeof sh).syntax;
    // Comments kept: the walk must see one the parser carried on past a line's end.
    const parser = syntax.NewParser(syntax.KeepComments(true));
    loaded = { syntax, parser, redirectOps: redirectOperatorCodes(parser), evaluatingOps: evaluatingOperatorCodes(parser) };
  }
  return loaded;
}

/**
 * The gate asks about one command many times (once per rule, and for the strings nested in
 * it), and agents repeat commands (`npm test`, `git status`): recent answers are kept, most
 * recently used last. The analysis depends on the text alone.
 */
const recent = new Map<string, BashAnalysis>();
const RECENT_ANALYSES = 64;
/** Longer lines are analyzed each time rather than kept. */
const MAX_KEPT_LENGTH = 4096;

/** What `command` would run. The result is shared: treat it as read-only. */
export function analyzeBashCommand(command: string): BashAnalysis {
  const known = recent.get(command);
  if (known !== undefined) {
    recent.delete(command);
    recent.set(command, known);
    return known;
  }
  const analysis = deepFreeze(analyze(command));
  if (command.length <= MAX_KEPT_LENGTH) {
    recent.set(command, analysis);
    if (recent.size > RECENT_ANALYSES) recent.delete(recent.keys().next().value as string);
  }
  return analysis;
}

/**
 * Past this many words the analysis would take seconds (the parser's tree walk costs about
 * 0.1 ms a word), so a longer line is not analyzed: it is treated as one that does not parse.
 */
const MAX_WORDS = 10_000;

function analyze(command: string): BashAnalysis {
  const words = command.split(/\s+/).length;
  if (words > MAX_WORDS) return { kind: 'unparseable', error: `too long to analyze (${words} words, at most ${MAX_WORDS})` };
  // Bash reads `\` before CR as an escaped CR and ends the line at the LF; the parser reads a
  // line continuation there, and would join the next line's command to this one.
  if (command.includes('\\\r')) return { kind: 'unparseable', error: 'a backslash before a carriage return' };
  const { parser } = shell();
  let file: sh.File;
  try {
    file = parser.Parse(command, 'command');
  } catch (error) {
    return { kind: 'unparseable', error: parseErrorMessage(error) };
  }
  const commands: SimpleCommand[] = [];
  const redirects: RedirectTarget[] = [];
  const values: string[] = [];
  const hidden = new Set<string>();
  const unseen = new Set<string>();
  // The walk visits a statement, then its command: the statement's here-docs belong to that command.
  let stdin: string[] | undefined;
  let continuedComment = false;
  syntax.Walk(file, (node) => {
    if (node === null || node === undefined) return true;
    const type = syntax.NodeType(node);
    // Bash ends a comment at the newline even after a backslash; the parser reads the next
    // line into the comment and joins what follows to the command before it.
    if (type === 'Comment' && (node as sh.Comment).Text.includes('\n')) continuedComment = true;
    const reason = HIDING_NODES[type];
    if (reason) hidden.add(reason);
    if (type === 'ParamExp' && !isPlainParameter(node as sh.ParamExp)) hidden.add('a parameter expansion beyond $NAME or ${NAME}');
    // Where bash is missing the Bash tool runs sh, which ends `$'a\'` at the escaped quote.
    const quoted = type === 'SglQuoted' ? (node as sh.SglQuoted) : undefined;
    if (quoted?.Dollar && quoted.Value.includes("\\'")) unseen.add("$'...' with an escaped quote");
    const evaluated = evaluatedCode(node, type);
    if (evaluated) unseen.add(evaluated);
    if (type === 'Stmt') {
      stdin = stdinTexts(node as sh.Stmt);
      values.push(...(stdin ?? []));
    }
    if (type === 'CallExpr') collectCall(node as sh.CallExpr, commands, hidden, unseen, stdin);
    // `cat x$X` with X=' /etc/passwd' hands cat a second word no text of the line shows.
    if (type === 'CallExpr' && (node as sh.CallExpr).Args.some((w) => w && splitsIntoWords(w))) values.push(HOLE);
    if (type === 'CallExpr' || type === 'DeclClause') stdin = undefined;
    if (type === 'DeclClause') collectDecl(node as sh.DeclClause, commands, hidden, unseen);
    if (type === 'Redirect') collectRedirect(node as sh.Redirect, redirects);
    if (type === 'Assign' && (node as sh.Assign).Value) values.push(wordValue((node as sh.Assign).Value!).text);
    if (type === 'WordIter') collectLoop(node as sh.WordIter, values, hidden);
    return true;
  });
  if (continuedComment) return { kind: 'unparseable', error: 'a comment ending in a backslash, which bash ends at the line break' };
  return { kind: 'parsed', commands, redirects, values, hidden: [...hidden, ...unseen], unseen: [...unseen] };
}

/** Frozen all the way down: an answer is shared between callers, and none may change another's. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The parser throws Go errors: objects with an `Error()` method, not Error instances. */
function parseErrorMessage(error: unknown): string {
  const goError = error as { Error?: unknown } | null;
  if (goError && typeof goError.Error === 'function') return String((goError.Error as () => unknown).call(goError));
  return errorMessage(error);
}

/** Constructs that run code the words of a simple command do not show. */
const HIDING_NODES: Record<string, string | undefined> = {
  CmdSubst: 'command substitution ($(...) or backticks)',
  ProcSubst: 'process substitution (<(...) or >(...))',
  // Bash evaluates variables inside arithmetic recursively, and `a[$(cmd)]` there runs cmd.
  ArithmExp: 'arithmetic expansion',
  ArithmCmd: 'an arithmetic command',
  LetClause: 'let (arithmetic)',
  CStyleLoop: 'an arithmetic for loop',
  TestClause: '[[ ... ]] (its arithmetic operators evaluate variables)',
  FuncDecl: 'a function definition',
  CoprocClause: 'a coprocess',
  ExtGlob: 'an extended glob',
};

/** `$NAME` / `${NAME}` only: indirection, indices, slices and `@P` can evaluate code. */
function isPlainParameter(node: sh.ParamExp): boolean {
  return !node.Excl && !node.Length && !node.Width && !node.Index && !node.Slice && !node.Repl && !node.Exp && !node.Names;
}

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
 * Builtins that take variable names: bash evaluates a subscript in one (`printf -v 'a[x]'`) as
 * arithmetic, which expands `x` again, and a `$(...)` in its value runs. Some need an option first.
 */
const NAME_TAKING: Record<string, string | undefined> = {
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

function collectCall(
  call: sh.CallExpr,
  commands: SimpleCommand[],
  hidden: Set<string>,
  unseen: Set<string>,
  stdin: string[] | undefined,
): void {
  const assigned = call.Assigns.flatMap((a) => (a?.Name ? [a.Name.Value] : []));
  const words = call.Args.flatMap((w) => (w ? [wordValue(w)] : []));
  if (words.length === 0) {
    // `a=1` alone runs nothing, but `a=(...)`-style arrays and indexed assignments evaluate arithmetic,
    // and `PATH=...; git status` changes which git runs.
    if (call.Assigns.some((a) => a && (a.Index || a.Array))) hidden.add('an array assignment');
    const risky = assigned.find((name) => RISKY_VARIABLE.test(name));
    if (risky) hidden.add(`an assignment of ${risky}, which decides what later commands run`);
    return;
  }
  const texts = words.map((w) => w.text);
  if (texts.some((w) => w.includes('[') && /\$\(|`/.test(w))) unseen.add('a variable subscript that bash may evaluate');
  const option = NAME_TAKING[texts[0]];
  if (option !== undefined && (option === '' || texts.includes(option))) {
    if (texts.slice(1).some((w) => w.includes('['))) unseen.add(`a variable subscript given to ${texts[0]} (bash evaluates it)`);
    const risky = texts.slice(1).find((w) => RISKY_VARIABLE.test(w));
    if (risky) hidden.add(`${texts[0]} sets ${risky}, which decides what later commands run`);
    const code = texts.slice(1).find((w) => SHELL_CODE_VARIABLE.test(w));
    if (code) unseen.add(`${texts[0]} sets ${code}, whose value bash runs`);
  }
  commands.push({
    words: texts,
    spelled: words.map((w) => spellWord(w.pieces)),
    assigned,
    dynamicName: words[0].expands || words[0].glob,
    ...(stdin ? { stdin } : {}),
  });
}

function collectLoop(loop: sh.WordIter, values: string[], hidden: Set<string>): void {
  const name = loop.Name?.Value ?? '';
  if (RISKY_VARIABLE.test(name)) hidden.add(`a loop over ${name}, which decides what commands run`);
  for (const item of loop.Items) if (item) values.push(wordValue(item).text);
  if (loop.Items.some((item) => item && splitsIntoWords(item))) values.push(HOLE);
}

/** Whether bash splits an unquoted expansion of the word into more words, each any text. */
function splitsIntoWords(word: sh.Word): boolean {
  return word.Parts.some((part) => !['Lit', 'SglQuoted', 'DblQuoted'].includes(syntax.NodeType(part)));
}

/** The here-doc bodies and here-strings of a statement's redirections. */
function stdinTexts(stmt: sh.Stmt): string[] | undefined {
  const texts: string[] = [];
  for (const redirect of stmt.Redirs) {
    if (!redirect) continue;
    const op = shell().redirectOps.get(redirect.Op as unknown as number);
    if (op === '<<<' && redirect.Word) texts.push(wordValue(redirect.Word).text);
    if ((op === '<<' || op === '<<-') && redirect.Hdoc) texts.push(wordValue(redirect.Hdoc).text);
  }
  return texts.length > 0 ? texts : undefined;
}

function collectDecl(decl: sh.DeclClause, commands: SimpleCommand[], hidden: Set<string>, unseen: Set<string>): void {
  const words = [decl.Variant?.Value ?? 'declare'];
  for (const arg of decl.Args) {
    if (!arg) continue;
    const value = arg.Value ? wordValue(arg.Value).text : '';
    words.push(arg.Naked ? value || (arg.Name?.Value ?? '') : `${arg.Name?.Value ?? ''}=${value}`);
  }
  // An integer variable or a nameref makes later plain assignments evaluate arithmetic.
  if (words.some((w) => /^[-+][a-zA-Z]*[in]/.test(w))) unseen.add(`${words[0]} -i or -n`);
  if (decl.Args.some((a) => a && (a.Index || (a.Naked && a.Value && wordValue(a.Value).text.includes('['))))) {
    unseen.add(`a variable subscript given to ${words[0]} (bash evaluates it)`);
  }
  const names = decl.Args.map((a) => (a?.Naked && a.Value ? wordValue(a.Value).text : (a?.Name?.Value ?? '')));
  const risky = names.find((n) => RISKY_VARIABLE.test(n));
  if (risky) hidden.add(`${words[0]} sets ${risky}, which decides what later commands run`);
  // `declare 'BASH_ENV=...'`: an assignment in one quoted word.
  const code = names.find((n) => n.includes('=') && runsValue(n.slice(0, n.indexOf('=')), n.slice(n.indexOf('=') + 1)));
  if (code) unseen.add(`${words[0]} sets ${code.slice(0, code.indexOf('='))}, whose value bash runs`);
  commands.push({ words, spelled: words.map(spellLiteral), assigned: [], dynamicName: false });
}

function collectRedirect(redirect: sh.Redirect, redirects: RedirectTarget[]): void {
  const op = shell().redirectOps.get(redirect.Op as unknown as number);
  if (op === undefined || op === '<<' || op === '<<-' || op === '<<<' || !redirect.Word) return;
  const value = wordValue(redirect.Word);
  const target = value.expands || value.glob ? undefined : value.text;
  // `>&2` and `>&-` duplicate or close a descriptor; `>&file` writes file, like `&>file`.
  if (op === '>&' || op === '<&') {
    if (target !== undefined && /^(\d+-?|-)$/.test(target)) return;
    redirects.push({ target, write: op === '>&' });
    return;
  }
  redirects.push({ target, write: WRITE_OPS.has(op) });
}

/** The numeric codes of the redirection operators in this build of the parser, read from a probe. */
function redirectOperatorCodes(parser: sh.Parser): Map<number, string> {
  const ops = ['>', '>>', '<', '<>', '<&', '>&', '>|', '&>', '&>>', '<<<'];
  const file = parser.Parse(`: ${ops.map((op, i) => `${op}${/&$/.test(op) ? '1' : `f${i}`}`).join(' ')} <<E <<-F\nE\nF\n`, 'probe');
  const found: number[] = [];
  syntax.Walk(file, (node) => {
    if (node && syntax.NodeType(node) === 'Redirect') found.push((node as sh.Redirect).Op as unknown as number);
    return true;
  });
  return new Map(found.map((code, i) => [code, [...ops, '<<', '<<-'][i]]));
}

interface WordValue {
  text: string;
  /** The text as literal and shell-acted runs, for allow rules to tell `'*'` from `*`. */
  pieces: WordPiece[];
  /** A part is expanded by the shell (parameter, substitution, arithmetic, braces). */
  expands: boolean;
  /** Unquoted `*`, `?` or `[`: pathname expansion may replace the word. */
  glob: boolean;
}

function wordValue(word: sh.Word): WordValue {
  const value: WordValue = { text: '', pieces: [], expands: false, glob: false };
  if (hasBraceExpansion(word)) return { text: HOLE, pieces: [{ text: HOLE, active: true }], expands: true, glob: false };
  for (const part of word.Parts) appendPart(part, false, value);
  return value;
}

function appendPart(part: Node, quoted: boolean, into: WordValue): void {
  const type = syntax.NodeType(part);
  if (type === 'Lit') {
    const raw = (part as sh.Lit).Value;
    if (!quoted && /(^|[^\\])(\\\\)*[*?[]/.test(raw)) into.glob = true;
    const text = quoted ? raw.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c)) : unescapeUnquoted(raw);
    into.text += text;
    if (quoted) addPiece(into.pieces, text, false);
    else addUnquotedPieces(raw, into.pieces);
  } else if (type === 'SglQuoted') {
    const sgl = part as sh.SglQuoted;
    const text = sgl.Dollar ? decodeAnsiC(sgl.Value) : sgl.Value;
    into.text += text;
    addPiece(into.pieces, text, false);
  } else if (type === 'DblQuoted') {
    for (const inner of (part as sh.DblQuoted).Parts) appendPart(inner, true, into);
  } else {
    into.text += HOLE;
    addPiece(into.pieces, HOLE, true);
    into.expands = true;
  }
}

/** An unquoted literal's characters, as unescapeUnquoted reads them: escaped ones are taken as they are. */
function addUnquotedPieces(raw: string, pieces: WordPiece[]): void {
  for (let i = 0; i < raw.length; i += 1) {
    if (raw[i] === '\\' && i + 1 < raw.length) {
      i += 1;
      if (raw[i] !== '\n') addPiece(pieces, raw[i], false);
    } else addPiece(pieces, raw[i], '*?[]~'.includes(raw[i]));
  }
}

function unescapeUnquoted(raw: string): string {
  return raw.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

/**
 * Whether bash would brace-expand the word: an unquoted `{...}` holding a comma or `..`, as
 * seen with quoted parts blanked out. (The parser's own SplitBraces rewrites the tree in place.)
 * The innermost groups are found first and then searched: one pattern for both would backtrack
 * over a long unclosed `{....` for seconds.
 */
function hasBraceExpansion(word: sh.Word): boolean {
  const blank = (part: Node) => (syntax.NodeType(part) === 'Lit' ? (part as sh.Lit).Value.replace(/\\./gs, '_') : '_');
  const unquoted = word.Parts.map(blank).join('');
  return (unquoted.match(/\{[^{}]*\}/g) ?? []).some((group) => group.includes(',') || group.includes('..'));
}

const C_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Bash's `$'...'` quoting: `$'\x67it'` is `git`. */
export function decodeAnsiC(text: string): string {
  return text.replace(/\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs, (_, esc: string) => {
    const kind = esc[0];
    if (kind === 'x' || kind === 'u' || kind === 'U') {
      const code = parseInt(esc.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    if (/[0-7]/.test(kind)) return String.fromCharCode(parseInt(esc, 8) & 0xff);
    if (kind === 'c' && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 0x1f);
    return C_ESCAPES[esc] ?? `\\${esc}`;
  });
}

/**
 * Variables whose value bash runs as code or looks commands up in: what `BASH_ENV=<(echo rm x)
 * bash -c :`, `BASH_CMDS[ls]=/bin/rm; ls` or `PS4='$(rm x)'; set -x` runs, no word shows.
 */
export const SHELL_CODE_VARIABLE = /^(BASH_ENV|ENV|PS4|PROMPT_COMMAND|BASH_CMDS|BASH_ALIASES|BASH_FUNC_.*)$/s;

/** Operators whose operands bash evaluates, in this build's numbering (read from probes). */
interface EvaluatingOps {
  /** `-eq`, `-lt`, ... in `[[ ]]`: arithmetic on both sides. */
  arithmeticTests: Set<number>;
  /** `[[ -v 'a[i]' ]]`: a subscript. */
  variableTest: number;
  /** `${x@P}`, `${x@Q}`, ...: the transformations. */
  transformation: number;
}

function evaluatingOperatorCodes(parser: sh.Parser): EvaluatingOps {
  const op = (source: string, type: string, read: (node: Node) => number) => {
    let code = -1;
    syntax.Walk(parser.Parse(source, 'probe'), (node) => {
      if (node && code === -1 && syntax.NodeType(node) === type) code = read(node);
      return true;
    });
    return code;
  };
  const testOp = (node: Node) => (node as sh.BinaryTest).Op as unknown as number;
  return {
    arithmeticTests: new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'].map((o) => op(`[[ a ${o} b ]]`, 'BinaryTest', testOp))),
    variableTest: op('[[ -v a ]]', 'UnaryTest', (node) => (node as sh.UnaryTest).Op as unknown as number),
    transformation: op('${a@P}', 'ParamExp', (node) => (node as sh.ParamExp).Exp!.Op as unknown as number),
  };
}

/**
 * Why bash may run, at this node, code that a value holds and no simple command shows: it
 * evaluates arithmetic on a variable recursively (`x='a[$(rm y)]'; : $((x))`), expands a value
 * again for `${x@P}` and `${!x}`, and runs or looks commands up in some variables' values.
 */
function evaluatedCode(node: Node, type: string): string | undefined {
  const ops = shell().evaluatingOps;
  switch (type) {
    case 'ArithmExp':
    case 'ArithmCmd':
    case 'LetClause':
    case 'CStyleLoop':
      return namesVariable(node) ? 'arithmetic on a variable (bash evaluates its value)' : undefined;
    case 'BinaryTest': {
      const test = node as sh.BinaryTest;
      const arithmetic = ops.arithmeticTests.has(test.Op as unknown as number) && (namesVariable(test.X) || namesVariable(test.Y));
      return arithmetic ? '[[ ... ]] arithmetic on a variable (bash evaluates its value)' : undefined;
    }
    case 'UnaryTest': {
      const test = node as sh.UnaryTest;
      if ((test.Op as unknown as number) !== ops.variableTest || syntax.NodeType(test.X) !== 'Word') return undefined;
      const operand = wordValue(test.X as sh.Word);
      return operand.expands || operand.text.includes('[') ? 'a variable subscript given to [[ -v ]] (bash evaluates it)' : undefined;
    }
    case 'ParamExp':
      return evaluatedParameter(node as sh.ParamExp, ops);
    case 'ArrayElem': {
      const index = (node as sh.ArrayElem).Index;
      return index && namesVariable(index) ? ARRAY_SUBSCRIPT : undefined;
    }
    case 'Assign': {
      const assign = node as sh.Assign;
      if (assign.Index && namesVariable(assign.Index)) return ARRAY_SUBSCRIPT;
      const name = assign.Name?.Value ?? '';
      if (assign.Naked || !SHELL_CODE_VARIABLE.test(name)) return undefined;
      return runsValue(name, assign.Value ? wordValue(assign.Value).text : '')
        ? `an assignment of ${name}, whose value bash runs`
        : undefined;
    }
    default:
      return undefined;
  }
}

const ARRAY_SUBSCRIPT = 'an array subscript on a variable (bash evaluates its value)';

/** Whether bash runs code or looks commands up in `name` set to `value`. */
function runsValue(name: string, value: string): boolean {
  if (!SHELL_CODE_VARIABLE.test(name)) return false;
  // PS4 is expanded at each line `set -x` traces: only its expansions run.
  return name !== 'PS4' || /\$[({[]|`/.test(value) || value.includes(HOLE);
}

function evaluatedParameter(param: sh.ParamExp, ops: EvaluatingOps): string | undefined {
  // `${!a[@]}` lists the keys; any other `${!x}` expands the name x holds.
  const keys = param.Index && syntax.NodeType(param.Index) === 'Word' && /^[@*]$/.test(wordValue(param.Index as sh.Word).text);
  if (param.Excl && !param.Names && !keys) return 'an indirect parameter expansion ${!x} (bash evaluates the name it holds)';
  if (param.Exp && (param.Exp.Op as unknown as number) === ops.transformation) {
    const letter = param.Exp.Word ? wordValue(param.Exp.Word) : undefined;
    if (!letter || letter.expands || letter.text.includes('P')) return 'the ${x@P} transformation (bash expands the value as a prompt)';
  }
  const slice = param.Slice ? [param.Slice.Offset, param.Slice.Length] : [];
  if ([param.Index, ...slice].some((part) => part && namesVariable(part)))
    return 'a subscript or slice on a variable (bash evaluates its value)';
  return undefined;
}

/**
 * Whether an arithmetic expression refers to anything but numbers: a variable name, or an
 * expansion whose text bash would evaluate in turn. `@` and `*` (all elements) are not names.
 */
function namesVariable(expression: Node): boolean {
  let names = false;
  syntax.Walk(expression, (node) => {
    if (!node || names) return false;
    if (syntax.NodeType(node) === 'Word') names = !(node as sh.Word).Parts.every(isNumberPart);
    return !names;
  });
  return names;
}

const ARITHMETIC_NUMBER = /^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?|[@*])$/;

/** A literal number, or an expansion that is always one: `$#`, `$?`, `$$`, `$!`, `${#x}`. */
function isNumberPart(part: Node): boolean {
  const type = syntax.NodeType(part);
  if (type === 'Lit') return ARITHMETIC_NUMBER.test((part as sh.Lit).Value);
  if (type !== 'ParamExp') return false;
  const param = part as sh.ParamExp;
  return param.Length || (isPlainParameter(param) && /^[#?$!]$/.test(param.Param?.Value ?? ''));
}
