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

/** A compiled pattern: each element a literal character, or STAR for a wildcard `*`. */
type Token = string | typeof STAR;
const STAR = null;

/**
 * `*` is any run of characters; `\*` is a literal `*` and `\\` a literal backslash (so that an
 * approved `rm build/*` is stored as exactly that command). Any other backslash is itself.
 */
function tokens(pattern: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === '\\' && (pattern[i + 1] === '*' || pattern[i + 1] === '\\')) {
      out.push(pattern[i + 1]);
      i += 1;
    } else out.push(c === '*' ? STAR : c);
  }
  return out;
}

/** Escapes `text` so that a pattern made of it matches exactly it. */
export function literalPattern(text: string): string {
  return text.replace(/[\\*]/g, (c) => `\\${c}`);
}

/**
 * How a rule reads the legacy prefix form `X:*`. A guard (a deny or ask rule, a hook's `if`)
 * reads it as `X*`, every text that starts with X: a broader guard only asks more. An allow
 * rule reads it as Claude Code documents it, `X` at a word's end: `X`, `X …` or `X:…`
 * (`npm run test:*` grants `npm run test:unit`), never `Xother` (`cat:*` is not `catchsegv`).
 */
export type PrefixReading = 'guard' | 'allow';

/** The pattern's readings: `rm *` also matches a bare `rm` (the arguments may come from elsewhere: `xargs rm`). */
function variants(pattern: string, reading: PrefixReading): Token[][] {
  const t = tokens(pattern);
  const n = t.length;
  if (n >= 2 && t[n - 1] === STAR && t[n - 2] === ':') {
    const prefix = t.slice(0, -2);
    return reading === 'guard' ? [[...prefix, STAR]] : [prefix, [...prefix, ' ', STAR], t];
  }
  return n >= 2 && t[n - 1] === STAR && t[n - 2] === ' ' ? [t, t.slice(0, -2)] : [t];
}

/** Whether `pattern` matches all of `text`, whatever the holes in `text` turn out to be. */
export function wildcardMatch(pattern: string, text: string, reading: PrefixReading = 'guard'): boolean {
  return variants(pattern, reading).some((p) => matchOne(p, text));
}

/** Whether some value of the holes in `text` makes `pattern` match (a guard's question). */
export function wildcardCouldMatch(pattern: string, text: string): boolean {
  return variants(pattern, 'guard').some((p) => couldMatchOne(p, text));
}

function matchOne(pattern: Token[], text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let starText = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== STAR && pattern[p] === text[t] && text[t] !== HOLE) {
      p += 1;
      t += 1;
    } else if (p < pattern.length && pattern[p] === STAR) {
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
  while (p < pattern.length && pattern[p] === STAR) p += 1;
  return p === pattern.length;
}

/** Both are globs here: is there one string both match? A walk over pairs of positions, pattern × text. */
function couldMatchOne(pattern: Token[], text: string): boolean {
  const width = text.length + 1;
  const seen = new Uint8Array((pattern.length + 1) * width);
  const stack: Array<[number, number]> = [[0, 0]];
  while (stack.length > 0) {
    const [p, t] = stack.pop()!;
    if (seen[p * width + t]) continue;
    seen[p * width + t] = 1;
    if (p === pattern.length && t === text.length) return true;
    const pStar = p < pattern.length && pattern[p] === STAR;
    const tHole = t < text.length && text[t] === HOLE;
    if (pStar) stack.push([p + 1, t]);
    if (tHole) stack.push([p, t + 1]);
    if (pStar && t < text.length) stack.push([p, t + 1]);
    if (tHole && p < pattern.length) stack.push([p + 1, t]);
    if (p < pattern.length && t < text.length && !pStar && !tHole && pattern[p] === text[t]) stack.push([p + 1, t + 1]);
  }
  return false;
}
