import { HOLE } from '../../permissions/wildcard';
import { hasExpandingSyntax } from './shell-patterns';

/**
 * The line's words that hold a brace expansion or an extglob, as written (quotes dropped), and
 * the first whose unquoted text has one and that also holds what dropping quotes does not undo
 * (`$'…'`, `$"…"`, a backslash, an expansion or a process substitution): its text is not the name
 * bash makes of it (`{x,.vsco$'d'e/hooks.json}`), so it is `opaque`. `${x,,}` is a parameter
 * expansion, no brace expansion.
 */
export function patternTokens(command: string): { tokens: string[]; opaque?: string } {
  const tokens: string[] = [];
  const expanding = (text: string) => hasExpandingSyntax(text.replace(/\$\{[^{}]*\}/g, HOLE));
  const words = writtenWords(command);
  // Read nested deeper than is read: what is inside is unknown, as an expansion's value is.
  if (words === undefined) return { tokens, opaque: command };
  for (const { text, unquoted } of words) {
    const dequoted = text.replace(/['"]/g, '');
    if (!expanding(dequoted)) continue;
    if (expanding(unquoted) && /[$\\`]|[<>]\(/.test(text)) return { tokens, opaque: text };
    tokens.push(dequoted);
  }
  return { tokens };
}

const QUOTES = new Set(["'", "$'", '"', '`']);
/** `!( !( … ) )` read as negated subshells to this depth; each level reads its text again. */
const MAX_NEGATED_DEPTH = 8;
/** How an arithmetic expansion stands in a word: it makes a number, never a pattern (`$((n*(n+1)))`). */
const ARITHMETIC = '$((…))';

/**
 * The line's text split at blanks, `;`, `&`, `|`, `<`, `>`, `(` and `)` outside quotes,
 * substitutions and extglobs, quotes kept: one brace expansion's pieces stay one word
 * (`{a,$(printf 'x y')}`), and a word ends where a redirection or a subshell does
 * (`(tee x{,}<y)`). `unquoted` is the word with what is quoted or escaped blanked out, as bash's
 * brace expansion reads it. Arithmetic (`$((…))`, `((…))`) is no word's text.
 */
function writtenWords(command: string, depth = 0): { text: string; unquoted: string }[] | undefined {
  if (depth > MAX_NEGATED_DEPTH) return undefined;
  // What arithmeticEnd may look through for the whole line: `(( (( ((…` unclosed would take it to the end from each.
  const budget = { chars: 4 * command.length };
  const words: { text: string; unquoted: string }[] = [];
  // The quotes, substitutions and groups open at this point, innermost last: ', $', ", `, (.
  const open: string[] = [];
  let [text, unquoted] = ['', ''];
  // Where a group opened by `!(` at the start of a word begins: without extglob, bash runs it as a negated subshell.
  let negated: number | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    const inside = open.at(-1);
    if (inside === undefined) {
      const arithmetic = text === '' && command.startsWith('((', i) ? arithmeticEnd(command, i + 2, budget) : -1;
      if (arithmetic > 0 || /[\s;&|)]/.test(c) || (/[<>]/.test(c) && command[i + 1] !== '(') || (c === '(' && !/[$<>?*+@!]$/.test(text))) {
        if (text !== '') words.push({ text, unquoted });
        [text, unquoted] = ['', ''];
        i = Math.max(i, arithmetic);
        continue;
      }
      if (c === '(' && text === '!') negated = i + 1;
    }
    if (c === '$' && inside !== "'" && inside !== "$'" && command.startsWith('((', i + 1)) {
      const arithmetic = arithmeticEnd(command, i + 3, budget);
      if (arithmetic > 0) {
        text += ARITHMETIC;
        unquoted += ARITHMETIC;
        i = arithmetic;
        continue;
      }
    }
    text += c;
    if (c === '\\' && inside !== "'") {
      text += command[++i] ?? '';
      unquoted += '__';
      continue;
    }
    if (inside === "'" || inside === "$'") {
      if (c === "'") open.pop();
    } else if (c === inside && (c === '"' || c === '`')) open.pop();
    else if (c === ')' && inside === '(') {
      open.pop();
      if (open.length === 0 && negated !== undefined) {
        const inner = writtenWords(command.slice(negated, i), depth + 1);
        if (inner === undefined) return undefined;
        words.push(...inner);
      }
      if (open.length === 0) negated = undefined;
    } else if (c === '`' || (c === '"' && inside !== '`')) open.push(c);
    else if (c === '(' && (inside === '(' || /[$<>?*+@!]/.test(command[i - 1] ?? ''))) open.push(c);
    else if (c === "'" && inside !== '"' && inside !== '`') open.push(command[i - 1] === '$' ? "$'" : "'");
    unquoted += QUOTES.has(inside ?? '') || QUOTES.has(open.at(-1) ?? '') ? '_' : c;
  }
  if (text !== '') words.push({ text, unquoted });
  return words;
}

/**
 * Where arithmetic whose `((` ends before `from` closes (its last `)`), or -1 when bash may read
 * it otherwise: its parentheses do not close with `))` (`((cmd) )` is two subshells), or it holds
 * what bash does not count parentheses in (quoting, an escape, a substitution, a parenthesis in `${…}`),
 * or the line's `budget` of characters to look through is spent.
 */
function arithmeticEnd(command: string, from: number, budget: { chars: number }): number {
  let [depth, braces] = [0, 0];
  for (let i = from; i < command.length; i++) {
    // Past the line's budget, arithmetic is read as the rest of the line is: more words, never fewer.
    if (--budget.chars < 0) return -1;
    const c = command[i];
    if (/['"`\\]/.test(c) || command.startsWith('$(', i)) return -1;
    if (c === '{') braces++;
    else if (c === '}') braces--;
    else if ((c === '(' || c === ')') && braces > 0) return -1;
    else if (c === '(') depth++;
    else if (c === ')' && depth-- === 0) return command[i + 1] === ')' ? i + 1 : -1;
  }
  return -1;
}
