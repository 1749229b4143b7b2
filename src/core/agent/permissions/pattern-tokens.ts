import { HOLE } from '../../permissions/wildcard';
import { hasExpandingSyntax } from './shell-patterns';

/**
 * The line's words that hold a brace expansion or an extglob, as written (quotes dropped), and
 * the first whose unquoted text has one and that also holds what dropping quotes does not undo
 * (`$'…'`, `$"…"`, a backslash, an expansion): its text is not the name bash makes of it
 * (`{x,.vsco$'d'e/hooks.json}`), so it is `opaque`. `${x,,}` is a parameter expansion, no brace expansion.
 */
export function patternTokens(command: string): { tokens: string[]; opaque?: string } {
  const tokens: string[] = [];
  const expanding = (text: string) => hasExpandingSyntax(text.replace(/\$\{[^{}]*\}/g, HOLE));
  for (const { text, unquoted } of writtenWords(command)) {
    const dequoted = text.replace(/['"]/g, '');
    if (!expanding(dequoted)) continue;
    if (expanding(unquoted) && /[$\\`]/.test(text)) return { tokens, opaque: text };
    tokens.push(dequoted);
  }
  return { tokens };
}

const QUOTES = new Set(["'", "$'", '"', '`']);

/**
 * The line's text split at blanks, `;`, `&` and `|` outside quotes, substitutions and extglobs,
 * quotes kept: one brace expansion's pieces stay one word (`{a,$(printf 'x y')}`). `unquoted` is
 * the word with what is quoted or escaped blanked out, as bash's brace expansion reads it.
 */
function writtenWords(command: string): { text: string; unquoted: string }[] {
  const words: { text: string; unquoted: string }[] = [];
  // The quotes, substitutions and groups open at this point, innermost last: ', $', ", `, (.
  const open: string[] = [];
  let [text, unquoted] = ['', ''];
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    const inside = open.at(-1);
    if (inside === undefined && /[\s;&|]/.test(c)) {
      if (text !== '') words.push({ text, unquoted });
      [text, unquoted] = ['', ''];
      continue;
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
    else if (c === ')' && inside === '(') open.pop();
    else if (c === '`' || (c === '"' && inside !== '`')) open.push(c);
    else if (c === '(' && (inside === '(' || /[$<>?*+@!]/.test(command[i - 1] ?? ''))) open.push(c);
    else if (c === "'" && inside !== '"' && inside !== '`') open.push(command[i - 1] === '$' ? "$'" : "'");
    unquoted += QUOTES.has(inside ?? '') || QUOTES.has(open.at(-1) ?? '') ? '_' : c;
  }
  if (text !== '') words.push({ text, unquoted });
  return words;
}
