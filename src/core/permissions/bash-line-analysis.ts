import type sh from 'mvdan-sh';
import type { BashAnalysis, RedirectTarget, SimpleCommand } from './bash-command';
import { evaluatedCode, runsValue } from './bash-evaluated-code';
import { boundedWalk, MAX_SYNTAX_NODES, MAX_WALK_DEPTH, shellParser, shellSyntax, type WalkEnd } from './bash-parser';
import { NAME_TAKING, RISKY_VARIABLE, SHELL_CODE_VARIABLE } from './bash-variables';
import { isPlainParameter, wordValue } from './bash-word-value';
import { spellLiteral, spellWord } from './shell-spelling';
import { HOLE } from './wildcard';
import { errorMessage } from '../error-message';

/**
 * One command line's analysis, from its own text alone: the scripts it hands to `bash -c` or
 * `eval` are analyzed as lines of their own (bash-command.ts).
 */

/** The hidden reason of `${a:-x}`, `${p/x/y}`, `${p:1}`: a value the line computes from others. */
export const COMPUTED_PARAMETER = 'a parameter expansion beyond $NAME or ${NAME}';

const WRITE_OPS = new Set(['>', '>>', '<>', '>|', '&>', '&>>']);

/**
 * Past this length a line is not analyzed, as if it did not parse: parsing costs up to a few
 * microseconds and some hundred bytes of memory a character.
 */
const MAX_ANALYZED_LENGTH = 256 * 1024;
/**
 * A line shorter than this cannot hold more syntax nodes than a walk visits (a node takes at
 * least a quarter of a character); a longer one is counted before it is read.
 */
const COUNTED_FROM_LENGTH = MAX_SYNTAX_NODES / 4;

export function analyzeLine(command: string): BashAnalysis {
  if (command.length > MAX_ANALYZED_LENGTH) {
    return { kind: 'unparseable', error: `too long to analyze (${command.length} characters, at most ${MAX_ANALYZED_LENGTH})` };
  }
  // Bash reads `\` before CR as an escaped CR and ends the line at the LF; the parser reads a
  // line continuation there, and would join the next line's command to this one.
  if (command.includes('\\\r')) return { kind: 'unparseable', error: 'a backslash before a carriage return' };
  let file: sh.File;
  try {
    file = shellParser().Parse(command, 'command');
  } catch (error) {
    return { kind: 'unparseable', error: parseErrorMessage(error) };
  }
  // Reading a command reads all of its words' parts at once, before the walk reaches them.
  const counted = command.length < COUNTED_FROM_LENGTH ? 'done' : boundedWalk(file, () => true);
  if (counted !== 'done') return { kind: 'unparseable', error: WALK_ENDS[counted] };
  const commands: SimpleCommand[] = [];
  const redirects: RedirectTarget[] = [];
  const values: string[] = [];
  const hidden = new Set<string>();
  const unseen = new Set<string>();
  // The walk visits a statement, then its command: the statement's here-docs belong to that command.
  let stdin: string[] | undefined;
  let continuedComment = false;
  const syntax = shellSyntax();
  let nodes = 0;
  const end = boundedWalk(file, (node) => {
    nodes++;
    const type = syntax.NodeType(node);
    // Bash ends a comment at the newline even after a backslash; the parser reads the next
    // line into the comment and joins what follows to the command before it.
    if (type === 'Comment' && (node as sh.Comment).Text.includes('\n')) continuedComment = true;
    const reason = HIDING_NODES[type];
    if (reason) hidden.add(reason);
    if (type === 'ParamExp' && !isPlainParameter(node as sh.ParamExp)) hidden.add(COMPUTED_PARAMETER);
    // Where bash is missing the Bash tool runs sh, which ends `$'a\'` at the escaped quote.
    const quoted = type === 'SglQuoted' ? (node as sh.SglQuoted) : undefined;
    if (quoted?.Dollar && quoted.Value.includes("\\'")) unseen.add("$'...' with an escaped quote");
    const evaluated = evaluatedCode(node, type);
    if (evaluated) unseen.add(evaluated);
    if (type === 'Stmt') {
      stdin = stdinTexts(node as sh.Stmt);
      values.push(...(stdin ?? []));
    }
    // `cat x$X` with X=' /etc/passwd' hands cat a second word no text of the line shows.
    if (type === 'CallExpr' && collectCall(node as sh.CallExpr, commands, hidden, unseen, stdin)) values.push(HOLE);
    if (type === 'CallExpr' || type === 'DeclClause') stdin = undefined;
    if (type === 'DeclClause') collectDecl(node as sh.DeclClause, commands, hidden, unseen);
    if (type === 'Redirect') collectRedirect(node as sh.Redirect, redirects);
    if (type === 'Assign' && (node as sh.Assign).Value) values.push(wordValue((node as sh.Assign).Value!).text);
    if (type === 'WordIter') collectLoop(node as sh.WordIter, values, hidden);
    return true;
  });
  if (end !== 'done') return { kind: 'unparseable', error: WALK_ENDS[end] };
  if (continuedComment) return { kind: 'unparseable', error: 'a comment ending in a backslash, which bash ends at the line break' };
  return { kind: 'parsed', commands, redirects, values, hidden: [...hidden, ...unseen], unseen: [...unseen], nodes };
}

export const WALK_ENDS: Record<Exclude<WalkEnd, 'done'>, string> = {
  'too deep': `nested too deeply to analyze (over ${MAX_WALK_DEPTH} levels)`,
  'too many nodes': `too complex to analyze (over ${MAX_SYNTAX_NODES} syntax nodes)`,
};

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

/** Adds the call's command; true when a word of it may split into more words. */
function collectCall(
  call: sh.CallExpr,
  commands: SimpleCommand[],
  hidden: Set<string>,
  unseen: Set<string>,
  stdin: string[] | undefined,
): boolean {
  const assigned = call.Assigns.flatMap((a) => (a?.Name ? [a.Name.Value] : []));
  const words = call.Args.flatMap((w) => (w ? [wordValue(w)] : []));
  if (words.length === 0) {
    // `a=1` alone runs nothing, but `a=(...)`-style arrays and indexed assignments evaluate arithmetic,
    // and `PATH=...; git status` changes which git runs.
    if (call.Assigns.some((a) => a && (a.Index || a.Array))) hidden.add('an array assignment');
    const risky = assigned.find((name) => RISKY_VARIABLE.test(name));
    if (risky) hidden.add(`an assignment of ${risky}, which decides what later commands run`);
    return false;
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
  return words.some((w) => w.splits);
}

function collectLoop(loop: sh.WordIter, values: string[], hidden: Set<string>): void {
  const name = loop.Name?.Value ?? '';
  if (RISKY_VARIABLE.test(name)) hidden.add(`a loop over ${name}, which decides what commands run`);
  const items = loop.Items.flatMap((item) => (item ? [wordValue(item)] : []));
  values.push(...items.map((item) => item.text));
  if (items.some((item) => item.splits)) values.push(HOLE);
}

/** The here-doc bodies and here-strings of a statement's redirections. */
function stdinTexts(stmt: sh.Stmt): string[] | undefined {
  const texts: string[] = [];
  for (const redirect of stmt.Redirs) {
    if (!redirect) continue;
    const op = redirectOperator(redirect);
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
  const op = redirectOperator(redirect);
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

/** The redirection operators by code, read on first use like the parser itself. */
let redirectOps: Map<number, string> | undefined;

function redirectOperator(redirect: sh.Redirect): string | undefined {
  redirectOps ??= redirectOperatorCodes(shellParser());
  return redirectOps.get(redirect.Op as unknown as number);
}

/** The numeric codes of the redirection operators in this build of the parser, read from a probe. */
function redirectOperatorCodes(parser: sh.Parser): Map<number, string> {
  const syntax = shellSyntax();
  const ops = ['>', '>>', '<', '<>', '<&', '>&', '>|', '&>', '&>>', '<<<'];
  const file = parser.Parse(`: ${ops.map((op, i) => `${op}${/&$/.test(op) ? '1' : `f${i}`}`).join(' ')} <<E <<-F\nE\nF\n`, 'probe');
  const found: number[] = [];
  syntax.Walk(file, (node) => {
    if (node && syntax.NodeType(node) === 'Redirect') found.push((node as sh.Redirect).Op as unknown as number);
    return true;
  });
  return new Map(found.map((code, i) => [code, [...ops, '<<', '<<-'][i]]));
}
