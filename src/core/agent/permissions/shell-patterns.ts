/*
 * Shell patterns (globs, brace expansions, extglobs) as picomatch reads them, and their parts.
 */

/** Picomatch's syntax, escaped: a folder's name such as `repo (copy)` is a name, not a group. */
export const escapeGlob = (literal: string): string => literal.replace(/[\\()[\]{}*?!+@|]/g, '\\$&');

/** Picomatch refuses a longer pattern. */
export const MAX_PATTERN_CHARS = 65_536;
/** Past this many brackets, braces and extglobs a word's pattern is not built: each may scan the rest of the word. */
export const MAX_OPENERS = 64;
/** Brace expansions one pattern may hold: picomatch's alternatives backtrack exponentially in their number. */
const MAX_BRACES = 8;

/**
 * A shell pattern as picomatch reads the same, or undefined when it holds too many brace
 * expansions to match in reasonable time: `*`, `?`, `[...]` (`[!x]` as `[^x]`) and brace
 * expansions (`{a,b}`, `{1..3}`) kept; an extglob (`+(a|b)`) as `*`, which matches all it can
 * within a name without alternatives to backtrack over; a bracket holding a class
 * (`[[:alpha:]]`, `[[=k=]]`, `[[.k.]]`) as `?`, any one character; any other character
 * picomatch gives a meaning (a `(` in a quoted name) escaped.
 */
export function shellPattern(word: string): string | undefined {
  let braces = 0;
  const translate = (text: string): string => {
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      const group = '?*+@!'.includes(c) && text[i + 1] === '(' ? closing(text, i + 1, '(', ')') : -1;
      const brace = c === '{' ? closing(text, i, '{', '}') : -1;
      const bracket = c === '[' ? bracketEnd(text, i) : -1;
      if (group > 0) {
        out += '*';
        i = group;
      } else if (brace > 0 && /,|\.\./.test(text.slice(i, brace))) {
        braces++;
        out += `{${translate(text.slice(i + 1, brace))}}`;
        i = brace;
      } else if (bracket > 0) {
        const expression = text.slice(i, (i = bracket) + 1);
        out += /\[[:=.]/.test(expression.slice(1)) ? '?' : expression.replace(/^\[!/, '[^');
      } else out += c === '*' || c === '?' || c === '/' ? c : escapeGlob(c);
    }
    return out;
  };
  const pattern = translate(word);
  return braces > MAX_BRACES ? undefined : pattern;
}

/** Where the bracket expression opened at `from` closes (a leading `]` and `[:alpha:]` are inside it), or -1. */
export function bracketEnd(word: string, from: number): number {
  let i = from + 1;
  if (word[i] === '!' || word[i] === '^') i++;
  if (word[i] === ']') i++;
  for (; i < word.length; i++) {
    if (word[i] === ']') return i;
    const kind = word[i] === '[' ? word[i + 1] : undefined;
    const end = kind === ':' || kind === '=' || kind === '.' ? word.indexOf(`${kind}]`, i + 2) : -1;
    if (end > 0) i = end + 1;
  }
  return -1;
}

/** Where the bracket opened at `from` closes, or -1. */
export function closing(text: string, from: number, open: string, close: string): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text[i] === open) depth++;
    else if (text[i] === close && --depth === 0) return i;
  }
  return -1;
}

/** The text with each brace group, innermost first, as `*`. */
export function withoutBraces(text: string): string {
  let out = text;
  for (let before = ''; before !== out;) [before, out] = [out, out.replace(/\{[^{}]*\}/g, '*')];
  return out;
}

/**
 * Whether `text` holds an extglob (`+(a|b)`) or a brace expansion (`{a,b}`, `{1..3}`): syntax
 * bash expands in a word. One pass: a regular expression for it backtracks on `{....`.
 */
export function hasExpandingSyntax(text: string): boolean {
  let inBrace = false;
  let listed = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ('?*+@!'.includes(c) && text[i + 1] === '(') return true;
    if (c === '{') [inBrace, listed] = [true, false];
    else if (c === '}') {
      if (inBrace && listed) return true;
      inBrace = false;
    } else if (inBrace && (c === ',' || (c === '.' && text[i + 1] === '.'))) listed = true;
  }
  return false;
}
