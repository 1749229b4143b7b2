/**
 * A run of a shell word's text: characters the shell takes as they are, or ones it acts on
 * (unquoted glob and tilde characters, and HOLEs where it substitutes something).
 */
export interface WordPiece {
  text: string;
  active: boolean;
}

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * A word as allow rules read it: each run the shell takes literally is written in single
 * quotes when it holds anything but plain characters, and what the shell acts on stays bare.
 * So words joined by spaces never read like other words: `rm 'a b'` (one file) is not
 * `rm a b` (two), nor `rm '*'` (the file named *) `rm *` (every file).
 */
export function spellWord(pieces: readonly WordPiece[]): string {
  const spelled = pieces.map((piece) => (piece.active || PLAIN.test(piece.text) ? piece.text : quoted(piece.text))).join('');
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

function quoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
