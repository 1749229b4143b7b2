import path from 'node:path';
import type { BashAnalysis } from '../../permissions/bash-command';
import { analyzeBashCommand } from '../../permissions/bash-command';
import { commandForms, commandName, MAX_NESTING, scriptsRunBy } from '../../permissions/bash-wrappers';
import { HOLE } from '../../permissions/wildcard';
import { physicalPathOf, toAbsolutePath } from '../tools/workspace-paths';

export type ParsedBash = Extract<BashAnalysis, { kind: 'parsed' }>;

/** Unquoted or not (the analysis drops quotes), a word with these may be a glob. Extglobs and braces are holes already. */
export const GLOB = /[*?[]/;

/** The gate reads a line's scripts in several checks; an analysis is shared and never changes. */
const scriptsOf = new WeakMap<ParsedBash, (ParsedBash | undefined)[]>();

/**
 * The analyses of the scripts the line runs (`bash -c '…'`, `eval …`, `sh <<< …`), and of the
 * scripts they run, to MAX_NESTING levels; undefined for one not known before the line runs
 * (`… | sh`) or that does not parse (then the line itself does not: see analyzeBashCommand).
 */
export function scriptAnalyses(analysis: ParsedBash): (ParsedBash | undefined)[] {
  const known = scriptsOf.get(analysis);
  if (known) return known;
  const found: (ParsedBash | undefined)[] = [];
  let level = [analysis];
  for (let depth = 0; depth < MAX_NESTING && level.length > 0; depth++) {
    const next: ParsedBash[] = [];
    for (const script of level.flatMap((a) => a.commands.flatMap(scriptsRunBy))) {
      const nested = script === HOLE ? undefined : analyzeBashCommand(script);
      found.push(nested?.kind === 'parsed' ? nested : undefined);
      if (nested?.kind === 'parsed') next.push(nested);
    }
    level = next;
  }
  scriptsOf.set(analysis, Object.freeze(found) as (ParsedBash | undefined)[]);
  return found;
}

/**
 * Every word a line hands to its commands, command names left out: arguments, assignment
 * values, `for` lists, here-strings and the words of here-docs, and those of the scripts it
 * runs, their redirection targets included. A script not known adds a HOLE.
 */
export function argumentWords(analysis: ParsedBash): string[] {
  const words = ownArgumentWords(analysis);
  for (const nested of scriptAnalyses(analysis)) {
    if (nested === undefined) words.push(HOLE);
    else words.push(...ownArgumentWords(nested), ...nested.redirects.map((r) => r.target ?? HOLE));
  }
  return words;
}

function ownArgumentWords(analysis: ParsedBash): string[] {
  const words = analysis.values.flatMap((value) => value.split(/\s+/)).filter((w) => w !== '');
  for (const simple of analysis.commands) {
    const names = new Set(commandForms(simple, true).map((f) => f.words[0]));
    words.push(...simple.words.filter((w, i) => i > 0 && !names.has(w)));
  }
  return words;
}

/** Where in a group of short options (`-uuuuo/x`) a value is looked for: after each of the last this many. */
const MAX_GROUPED_OPTIONS = 64;

/**
 * The paths a shell word may name: itself, the value of `--opt=value` or `of=value`, of
 * `-ovalue` after any option of a group (`cp -at.git`, `sort -uo.git/x`, `grep -1f/x`), and the
 * file curl reads after an `@` or `<` (`-d @/etc/passwd`, `--data-urlencode name@/x`, `-F a=</x`).
 */
export function pathCandidates(word: string): string[] {
  const candidates = [word];
  const eq = word.indexOf('=');
  if (eq > 0) candidates.push(word.slice(eq + 1));
  const group = /^-([A-Za-z0-9]+)/.exec(word)?.[1].length ?? 0;
  for (let i = Math.max(2, group + 1 - MAX_GROUPED_OPTIONS); i <= group + 1 && i < word.length; i++) candidates.push(word.slice(i));
  const at = word.indexOf('@');
  if (at >= 0) candidates.push(word.slice(at + 1));
  for (const candidate of [...candidates]) if (candidate.startsWith('<')) candidates.push(candidate.slice(1));
  return candidates;
}

/**
 * The directories relative words of the line may be read from: the cwd, and every directory
 * a `cd` or `pushd` names (relative to each one found before it, as written and where its links
 * lead). Undefined when a directory
 * change goes somewhere unknown (`cd`, `cd -`, `cd ~-`, `popd`, `cd "$X"`), and with `globsUnknown`
 * when it names a glob (`cd sr?` goes to whatever matches once the line runs).
 */
export function lineDirectories(analysis: ParsedBash, cwd: string, globsUnknown = false): string[] | undefined {
  const dirs = [cwd];
  for (const simple of analysis.commands) {
    for (const form of commandForms(simple, true)) {
      const name = commandName(form.words[0]);
      if (name === 'popd') return undefined;
      if (name !== 'cd' && name !== 'pushd') continue;
      const target = form.words.slice(1).find((w) => !w.startsWith('-') || w === '-');
      // `~-` is the previous directory, `~name` a home folder: places the check cannot know.
      if (target === undefined || target === '-' || target.includes(HOLE) || /^~[^/]/.test(target)) return undefined;
      if (globsUnknown && GLOB.test(target)) return undefined;
      // bash's `cd l` keeps the link in $PWD (a later `cd ..` climbs back over it), while a
      // relative file name is read from where the link leads (`../..` from its target): both.
      const next: string[] = [];
      for (const dir of dirs) {
        try {
          next.push(toAbsolutePath(target, dir), physicalPathOf(target, dir));
        } catch {
          return undefined;
        }
      }
      for (const dir of next) if (!dirs.includes(dir)) dirs.push(dir);
      if (dirs.length > 16) return undefined;
    }
  }
  return [...new Set(dirs.map((d) => path.normalize(d)))];
}
