import type sh from 'mvdan-sh';
import { shellSyntax, type Node } from './bash-parser';
import { addPiece, type WordPiece } from './shell-spelling';
import { HOLE } from './wildcard';

interface WordValue {
  text: string;
  /** The text as literal and shell-acted runs, for allow rules to tell `'*'` from `*`. */
  pieces: WordPiece[];
  /** A part is expanded by the shell (parameter, substitution, arithmetic, braces). */
  expands: boolean;
  /** Unquoted `*`, `?` or `[`: pathname expansion may replace the word. */
  glob: boolean;
  /** An unquoted expansion: bash may split it into more words, each any text. */
  splits: boolean;
}

interface TypedPart {
  part: Node;
  type: string;
}

/**
 * Reading a node's list of parts copies the whole list out of the parser's runtime, and so
 * does asking a node's type: each is done once per part here, as a word may have thousands.
 */
export function wordValue(word: sh.Word): WordValue {
  const syntax = shellSyntax();
  const parts = word.Parts.map((part) => ({ part, type: syntax.NodeType(part) }));
  const splits = parts.some(({ type }) => !['Lit', 'SglQuoted', 'DblQuoted'].includes(type));
  if (hasBraceExpansion(parts)) return { text: HOLE, pieces: [{ text: HOLE, active: true }], expands: true, glob: false, splits };
  const value: WordValue = { text: '', pieces: [], expands: false, glob: false, splits };
  for (const { part, type } of parts) appendPart(part, type, false, value);
  return value;
}

function appendPart(part: Node, type: string, quoted: boolean, into: WordValue): void {
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
    for (const inner of (part as sh.DblQuoted).Parts) appendPart(inner, shellSyntax().NodeType(inner), true, into);
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
function hasBraceExpansion(parts: readonly TypedPart[]): boolean {
  const blank = ({ part, type }: TypedPart) => (type === 'Lit' ? (part as sh.Lit).Value.replace(/\\./gs, '_') : '_');
  const unquoted = parts.map(blank).join('');
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

/** `$NAME` / `${NAME}` only: indirection, indices, slices and `@P` can evaluate code. */
export function isPlainParameter(node: sh.ParamExp): boolean {
  return !node.Excl && !node.Length && !node.Width && !node.Index && !node.Slice && !node.Repl && !node.Exp && !node.Names;
}
