/**
 * Text with the escapes printf decodes itself (`printf '\x2evscode'`, `printf -v f '\056…'`,
 * `echo -e`) decoded: `\\`, `\xHH`, `\uHHHH`, `\UHHHHHHHH` and octal. In a format `\NNN` is up
 * to three octal digits, in a `%b` argument `\0NNN`: both readings, the second only when they differ.
 */
export function printfDecodings(text: string): string[] {
  const found = new Set<string>();
  let round = [text];
  // A value printf made can be printf's format again (`printf -v f "$a"`): decoded until nothing changes, a few rounds.
  for (let i = 0; i < MAX_ROUNDS && round.length > 0; i++) {
    round = round.flatMap(decodedOnce).filter((next) => !found.has(next));
    for (const next of round) found.add(next);
  }
  return [...found];
}

const MAX_ROUNDS = 4;

function decodedOnce(text: string): string[] {
  if (!text.includes('\\')) return [];
  const format = decoded(text, /\\(?:\\|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3}))/g);
  const argument = decoded(text, /\\(?:\\|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|0([0-7]{0,3}))/g);
  return [format, argument].filter((next, k, all) => next !== text && all.indexOf(next) === k);
}

function decoded(text: string, escapes: RegExp): string {
  return text.replace(escapes, (whole, hex?: string, short?: string, long?: string, octal?: string) => {
    if (whole === '\\\\') return '\\';
    const code = octal !== undefined ? parseInt(octal || '0', 8) : parseInt(hex ?? short ?? long ?? '', 16);
    // A code point past Unicode's is no character: printf leaves such an escape as written.
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
