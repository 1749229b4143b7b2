/**
 * A run of a shell word's text: characters the shell takes as they are, or ones it acts on
 * (unquoted glob and tilde characters, and HOLEs where it substitutes something).
 */
export interface WordPiece {
  text: string;
  active: boolean;
}

/**
 * Taken as they are, these would read as something else once words are joined by spaces: a
 * blank as a word boundary, `*` and `~` as what the shell expands, a quote or a backslash as
 * this spelling's own. `?` and `[` are left as written, so a rule with a quoted URL still
 * matches it: `rm '?'` reads like `rm ?`, a narrower call than `rm '*'` vs `rm *`.
 */
const ESCAPED = /[\s\\'"*~]/g;

/**
 * A word as allow rules read it: what the shell takes literally, with a backslash before each
 * character that would otherwise read as a word boundary or an expansion; what the shell acts
 * on stays bare. So words joined by spaces never read like other words: `rm 'a b'` (one file)
 * is `rm a\ b`, not `rm a b` (two), and `rm '*'` (the file named *) is `rm \*`, not `rm *`
 * (every file). A rule's `*` still matches across them: `Bash(git commit -m *)`.
 */
export function spellWord(pieces: readonly WordPiece[]): string {
  const spelled = pieces.map((piece) => (piece.active ? piece.text : piece.text.replace(ESCAPED, (c) => `\\${c}`))).join('');
  return spelled === '' ? "''" : spelled;
}

/** A word the shell takes entirely as it is. */
export function spellLiteral(text: string): string {
  return spellWord([{ text, active: false }]);
}

/** Adds text to a word's pieces, joining it to the last piece when that is of the same kind. */
export function addPiece(pieces: WordPiece[], text: string, active: boolean): void {
  if (text === '') return;
  const last = pieces[pieces.length - 1];
  if (last && last.active === active) last.text += text;
  else pieces.push({ text, active });
}
