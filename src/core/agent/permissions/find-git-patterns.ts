import type { SimpleCommand } from '../../permissions/bash-command';
import { commandForms, commandName } from '../../permissions/bash-wrappers';

/*
 * A `find` that acts on what it finds (`-exec`, `-delete`) may reach a `.git` folder through a
 * name or path test that bash would never expand to one: find matches a leading dot and a `/`
 * with `*`.
 */

/** find's tests of a name (`-name`) or a whole path (`-path`) by a pattern, whose `*` matches a leading dot and a `/`. */
const FIND_NAME_TESTS = new Set(['-name', '-iname', '-lname', '-ilname']);
const FIND_PATH_TESTS = new Set(['-path', '-ipath', '-wholename', '-iwholename']);
/**
 * find's tests of a whole path by a regular expression, in one of several dialects: which paths
 * one may match is not worked out, so a find that acts with one may reach a `.git` folder.
 */
const FIND_REGEX_TESTS = new Set(['-regex', '-iregex']);
/** find actions that act on what it finds, beyond listing it. */
const FIND_ACTIONS = /^-(exec|execdir|ok|okdir|delete|fprint0?|fprintf|fls)$/;
/** Names and paths a find test would have to match to find a `.git` folder or what is in it. */
const GIT_NAMES = ['.git'];
const GIT_IN = ['.git', '.git/config', '.git/hooks', '.git/hooks/x'];

/** Paths of a `.git` folder a find path pattern might match: below each folder the pattern names (`./sub/*it`: `./sub/.git`). */
function gitPaths(pattern: string): string[] {
  const parts = pattern.split('/').map((part) => (/[*?[]/.test(part) ? 'x' : part));
  const folders = ['', '.', 'x', './x', ...parts.map((_, i) => parts.slice(0, i).join('/')).filter((folder) => folder !== '')];
  return [...new Set(folders)].flatMap((folder) => GIT_IN.map((inside) => (folder === '' ? inside : `${folder}/${inside}`)));
}

/**
 * The pattern of a find test that may find a `.git` folder or a file in it, when the find acts
 * on what it finds (`find sub -name '*git' -exec cp x {}/config \;`, any `-regex`); listing is harmless.
 */
export function findGitPatterns(command: SimpleCommand): string[] {
  return commandForms(command, true).flatMap(({ words }) => {
    if (commandName(words[0] ?? '') !== 'find' || !words.some((w) => FIND_ACTIONS.test(w))) return [];
    return words.filter((pattern, i) => {
      const test = words[i - 1] ?? '';
      if (FIND_REGEX_TESTS.has(test)) return true;
      const probes = FIND_NAME_TESTS.has(test) ? GIT_NAMES : FIND_PATH_TESTS.has(test) ? gitPaths(pattern) : [];
      return probes.some((probe) => findMatches(pattern, probe));
    });
  });
}

/**
 * Whether `text` matches `pattern` as find matches it (fnmatch without FNM_PATHNAME or
 * FNM_PERIOD: `*` and `?` cross `/` and a leading dot), case ignored. In time linear in the
 * pattern times the text: the model writes the pattern, and a regular expression of many
 * `*` backtracks for ages. A bracket holding a class (`[[:alpha:]]`) is any one character.
 */
function findMatches(pattern: string, text: string): boolean {
  const units = patternUnits(pattern.toLowerCase());
  const subject = text.toLowerCase();
  // reachable[j]: the units so far can match the first j characters.
  let reachable = Array.from({ length: subject.length + 1 }, (_, j) => j === 0);
  for (const unit of units) {
    const next = Array.from({ length: subject.length + 1 }, () => false);
    for (let j = 0; j <= subject.length; j++) {
      if (unit === '*') next[j] = reachable[j] || (j > 0 && next[j - 1]);
      else if (j > 0 && reachable[j - 1])
        next[j] = typeof unit === 'string' ? unit === '?' || unit === subject[j - 1] : unit(subject[j - 1]);
    }
    reachable = next;
  }
  return reachable[subject.length];
}

type PatternUnit = string | ((c: string) => boolean);

/** `*`, `?`, a literal character (as a one-character string other than those), or a bracket's test. */
function patternUnits(pattern: string): PatternUnit[] {
  const units: PatternUnit[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const close = c === '[' ? pattern.indexOf(']', i + 2) : -1;
    if (c === '\\' && i + 1 < pattern.length) {
      const literal = pattern[++i];
      units.push((x) => x === literal);
    } else if (c === '*' || c === '?') units.push(c);
    else if (close > 0) {
      const inside = pattern.slice(i + 1, close);
      const negated = inside.startsWith('!') || inside.startsWith('^');
      const set = negated ? inside.slice(1) : inside;
      units.push(set.includes('[:') ? () => true : (x) => inRange(set, x) !== negated);
      i = close;
    } else units.push((x) => x === c);
  }
  return units;
}

/** Whether `c` is in a bracket expression's set (`a-z`, single characters). */
function inRange(set: string, c: string): boolean {
  for (let i = 0; i < set.length; i++) {
    if (set[i + 1] === '-' && i + 2 < set.length) {
      if (set[i] <= c && c <= set[i + 2]) return true;
      i += 2;
    } else if (set[i] === c) return true;
  }
  return false;
}
