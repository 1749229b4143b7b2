/**
 * Matching of permission-rule patterns, where `*` is any run of characters. Iterative, so a
 * pattern like `*a*a*a*b` costs at most pattern × text steps (a backtracking RegExp would not).
 *
 * Command text may hold HOLE characters where the shell would substitute something unknown
 * (`$VAR`, `{a,b}`): `wildcardMatch` lets only a `*` absorb a hole (the rule matches whatever
 * the hole becomes), `wildcardCouldMatch` lets a hole stand for any text (the rule matches
 * for some value of it).
 */
export const HOLE = '\uE000';

/**
 * `npm run test:*` (the legacy prefix form) means the same as `npm run test*`; `rm *` also
 * matches a bare `rm` (the arguments may come from elsewhere: `xargs rm`).
 */
function variants(pattern: string): string[] {
  const normalized = pattern.endsWith(':*') ? `${pattern.slice(0, -2)}*` : pattern;
  return normalized.endsWith(' *') ? [normalized, normalized.slice(0, -2)] : [normalized];
}

/** Whether `pattern` matches all of `text`, whatever the holes in `text` turn out to be. */
export function wildcardMatch(pattern: string, text: string): boolean {
  return variants(pattern).some((p) => matchOne(p, text));
}

/** Whether some value of the holes in `text` makes `pattern` match. */
export function wildcardCouldMatch(pattern: string, text: string): boolean {
  return variants(pattern).some((p) => couldMatchOne(p, text));
}

function matchOne(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let starText = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t] && text[t] !== HOLE) {
      p += 1;
      t += 1;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p;
      starText = t;
      p += 1;
    } else if (star !== -1) {
      // Let the last `*` absorb one more character and retry from there.
      p = star + 1;
      starText += 1;
      t = starText;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/** Both are globs here: is there one string both match? A walk over pairs of positions, pattern × text. */
function couldMatchOne(pattern: string, text: string): boolean {
  const width = text.length + 1;
  const seen = new Uint8Array((pattern.length + 1) * width);
  const stack: Array<[number, number]> = [[0, 0]];
  while (stack.length > 0) {
    const [p, t] = stack.pop()!;
    if (seen[p * width + t]) continue;
    seen[p * width + t] = 1;
    if (p === pattern.length && t === text.length) return true;
    const pStar = p < pattern.length && pattern[p] === '*';
    const tHole = t < text.length && text[t] === HOLE;
    if (pStar) stack.push([p + 1, t]);
    if (tHole) stack.push([p, t + 1]);
    if (pStar && t < text.length) stack.push([p, t + 1]);
    if (tHole && p < pattern.length) stack.push([p + 1, t]);
    if (p < pattern.length && t < text.length && !pStar && !tHole && pattern[p] === text[t]) stack.push([p + 1, t + 1]);
  }
  return false;
}
