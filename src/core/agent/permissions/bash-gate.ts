import { statSync } from 'node:fs';
import path from 'node:path';
import type { RedirectTarget, SimpleCommand } from '../../permissions/bash-command';
import { analyzeBashCommand } from '../../permissions/bash-command';
import { COMPUTED_PARAMETER } from '../../permissions/bash-line-analysis';
import { HOLE } from '../../permissions/wildcard';
import { commandForms, commandName } from '../../permissions/bash-wrappers';
import type { PermissionSignal } from '../../permissions/precedence';
import { OutsideWorkspaceError, resolveInWorkspace, type WorkspaceScope } from '../tools/workspace-paths';
import { MAX_CHECKED } from './bash-argument-paths';
import { argumentWords, lineDirectories, pathCandidates, scriptAnalyses, type ParsedBash } from './bash-words';
import { findGitPatterns } from './find-git-patterns';
import { lineGlobOptions, mayLeadIntoGitFolder, protectedTargetInWord, protectedTargetOf, type ProtectedTarget } from './protected-targets';
import { errorMessage } from '../../error-message';
import { WORKSPACE_FILE_REASON } from '../../engine/protected-names';
import { mayNameWorkspaceFile, type FolderEntries } from './workspace-file-names';
import { patternTokens } from './pattern-tokens';
import { markerProblem } from './session-marker-check';
import { sedFiles } from './sed-script';
import { followedFolders, linkBelowProblem } from './recursive-links';
import { printfDecodings } from './printf-escapes';

/**
 * The gate's view of a Bash call beyond its rules: whether it touches a protected file
 * (defense in depth: a person must approve, as for an Edit of it) and whether its write
 * redirections may be allowed without one.
 */

/**
 * A system ask when the command names a protected file, a directory holding one, or writes where
 * an expansion decides; and for every line the parser rejects or that is too long to analyze,
 * since bash may run it anyway (`! ! cp x .vscode/hooks.json`): fail closed, in every mode. Also
 * when it may start what outlives its session (markerProblem).
 */
export function bashProtectedCheck(command: string, cwd: string, targets: readonly ProtectedTarget[]): PermissionSignal | undefined {
  const analysis = analyzeBashCommand(command);
  if (analysis.kind === 'unparseable') {
    return systemAsk(`the command cannot be analyzed (${analysis.error}), so it cannot be shown to leave the hook configuration alone`);
  }
  const scripts = scriptAnalyses(analysis).filter((nested) => nested !== undefined);
  const markers = markerProblem(command, [analysis, ...scripts]);
  if (markers) return { verdict: 'ask', source: 'session processes', reason: markers };
  if ([analysis, ...scripts].some((each) => each.redirects.some((r) => r.write && r.target === undefined))) {
    return systemAsk('it writes to a file named by an expansion, which could be a file that configures hooks');
  }
  const mentioned = mentionedTarget(command, analysis, targets);
  if (mentioned) return systemAsk(`it mentions ${mentioned}, which configures hooks: a person must approve commands that touch it`);
  const dirs = lineDirectories(analysis, cwd);
  // After `cd "$d"` no relative name can be placed: it could be a protected file.
  if (!dirs && targets.length > 0) return systemAsk('it changes directory to a place that cannot be known before it runs');
  // `ln -s . p && cp x p/.g?t/config`: the link does not exist while the line is checked.
  if (targets.length > 0 && analysis.commands.length > 1 && analysis.commands.some(makesSymlink))
    return systemAsk('it makes a symbolic link and goes on, so where its later paths lead cannot be known before it runs');
  // Brace expansions and extglobs as written: the parsed words hold them as expansions (or not at all).
  const patterns = patternTokens(command);
  if (patterns.opaque !== undefined)
    return systemAsk(
      `\`${patterns.opaque}\` joins a brace expansion or extglob with quoting or an expansion, so which files it names cannot be read before it runs`,
    );
  // sed's `w x` and `r x` name files inside one word of script text.
  const written = [...shellWords(analysis), ...patterns.tokens, ...sedFiles(analysis).files];
  const unknown = targets.length > 0 ? unknownPath(written, analysis) : undefined;
  if (unknown)
    return systemAsk(
      `\`${unknown.replaceAll(HOLE, '$…')}\` is a path no text of the line shows, which could be a file that configures hooks`,
    );
  const substituted = withAssignedValues(written, analysis.values);
  if (targets.length > 0 && !substituted)
    return systemAsk(
      `its assigned values may fill its expansions in more ways than it checks (${MAX_SUBSTITUTED}, or ${MAX_SUBSTITUTED_CHARS} characters)`,
    );
  // A word that starts with an expansion may start with the home folder (`"$HOME/.claude/…"`, `${HOME}`), read as `~`.
  const fromHome = written.flatMap((word) => (word === HOLE || word.startsWith(`${HOLE}/`) ? [`~${word.slice(1)}`] : []));
  const words = new Set([...written, ...(substituted ?? []), ...fromHome]);
  if (targets.length > 0 && words.size > MAX_CHECKED) {
    return systemAsk(`it has more than ${MAX_CHECKED} distinct words, too many to check against the hook configuration`);
  }
  const options = lineGlobOptions(command, analysis);
  for (const word of words) {
    const hit = (dirs ?? [cwd]).map((dir) => protectedTargetInWord(word, dir, targets, options)).find((t) => t !== undefined);
    if (hit) return systemAsk(`\`${word}\` leads to ${hit.shown}, which configures hooks: a person must approve commands that touch it`);
  }
  const linked =
    targets.length > 0
      ? linkBelowProblem(
          followedFolders(analysis, dirs ?? [cwd]),
          (link) => {
            const hit = protectedTargetOf(link, cwd, targets);
            return hit && `it reads recursively through the link \`${path.relative(cwd, link)}\`, which leads to ${hit.shown}`;
          },
          // Best effort, as this check's others: a walk too big to finish asks only where a rule grants the line.
          { bestEffort: true },
        )
      : undefined;
  if (linked) return systemAsk(`${linked}: a person must approve it`);
  const gitWord =
    [...words].find((word) => mayLeadIntoGitFolder(word, options)) ??
    [analysis, ...scripts].flatMap((each) => each.commands.flatMap(findGitPatterns))[0];
  if (gitWord)
    return systemAsk(
      `\`${gitWord}\` may lead into a .git folder, whose hooks and config run commands outside every hook: a person must approve commands that touch it`,
    );
  const listed: FolderEntries = new Map();
  const workspaceFile = [...words].find((word) => mayNameWorkspaceFile(word, dirs ?? [cwd], listed));
  if (workspaceFile) return systemAsk(`\`${workspaceFile}\` may name ${WORKSPACE_FILE_REASON}`);
  return undefined;
}

/** `ln -s` (`--symbolic`, `-sf`...) or `cp -s`: a command that makes a symbolic link. */
function makesSymlink(command: SimpleCommand): boolean {
  return commandForms(command).some((form) => {
    const name = commandName(form.words[0] ?? '');
    const options = form.words.slice(1).filter((w) => w.startsWith('-'));
    if (name === 'ln') return options.some((o) => o === '--symbolic' || /^-[^-]*s/.test(o));
    return name === 'cp' && options.some((o) => o === '--symbolic-link' || /^-[^-]*s/.test(o));
  });
}

function systemAsk(reason: string): PermissionSignal {
  return { verdict: 'ask', source: 'protected file', reason };
}

/**
 * A word made of expansions alone whose value the line builds where no text shows it: two
 * joined in one name (`"$a$b"` after `printf -v a .g`, `set -- .g it/config; "$1$2"`), or one
 * computed from a value the line assigns (`p=.gXt/config; "${p/X/i}"`). One plain expansion
 * (`"$f"`, `"$d/$f"`) is left alone: its value is the user's, or text of the line, which the
 * mention check reads.
 */
function unknownPath(words: readonly string[], analysis: ParsedBash): string | undefined {
  const computed = analysis.hidden.includes(COMPUTED_PARAMETER) && analysis.values.length > 0;
  const onlyExpansions = (word: string) => word.includes(HOLE) && /^[/.*\uE000]*$/.test(word);
  const joined = (word: string) => word.includes(HOLE + HOLE);
  return words.flatMap(pathCandidates).find((word) => onlyExpansions(word) && (computed || joined(word)));
}

/** Spellings of the line's words with their expansions filled in that one line may check, in number and in characters. */
const MAX_SUBSTITUTED = 256;
const MAX_SUBSTITUTED_CHARS = 65_536;

/** Longer values (a here-doc, a long string) are no path worth filling in. */
const MAX_FILL_LENGTH = 4_096;

/**
 * The words with their expansions filled in by the values the line assigns, each expansion by
 * each value or left as it is: `a=.g; b=it/config; cp x "$a$b"` writes `.git/config`, which no
 * value names alone, and `a=../.g` may climb out of the folder a word starts in. Undefined past
 * MAX_SUBSTITUTED spellings or MAX_SUBSTITUTED_CHARS characters.
 */
function withAssignedValues(words: readonly string[], values: readonly string[]): string[] | undefined {
  const fills = [...new Set(values.filter((v) => !v.includes(HOLE) && !v.includes('\n') && v.length <= MAX_FILL_LENGTH)), HOLE];
  if (fills.length === 1) return [];
  const spelled: string[] = [];
  let chars = 0;
  for (const word of words) {
    const [first, ...rest] = word.split(HOLE);
    if (rest.length === 0) continue;
    let spellings = [first];
    for (const piece of rest) {
      spellings = spellings.flatMap((head) => fills.map((fill) => head + fill + piece));
      if (spelled.length + spellings.length > MAX_SUBSTITUTED) return undefined;
    }
    for (const spelling of spellings) if (spelling !== word) spelled.push(spelling);
    // Each spelling is matched as a glob, at a cost that grows faster than its length.
    chars += spellings.reduce((sum, s) => sum + s.length, 0);
    if (chars > MAX_SUBSTITUTED_CHARS) return undefined;
  }
  return spelled;
}

/** Every word and redirection target of the line, command names, values and nested scripts included. */
function shellWords(analysis: ParsedBash): string[] {
  const targets = analysis.redirects.flatMap((r) => (r.target === undefined ? [] : [r.target]));
  return [...targets, ...analysis.commands.map((c) => c.words[0]), ...argumentWords(analysis)];
}

/**
 * Defense in depth against spellings the word check cannot follow (`cd .vscode && cp x hooks.json`,
 * a here-doc patch, a line in a loop): the line's text, as written, with quotes removed, as
 * parsed, and with the escapes printf decodes itself decoded (`printf -v f '\x2evscode…'`),
 * names a protected file's workspace path, a dot-directory holding one (`.vscode`), or a
 * script's distinctive basename. Case is ignored, as some file systems do.
 */
function mentionedTarget(command: string, analysis: ParsedBash, targets: readonly ProtectedTarget[]): string | undefined {
  const parsed = [...analysis.commands.map((c) => c.words.join(' ')), ...analysis.values].join('\n');
  const texts = [command, command.replace(/['"\\]/g, ''), parsed, ...printfDecodings(command)].map((t) => t.toLowerCase());
  return mentionNames(targets).find((name) => texts.some((text) => text.includes(name.toLowerCase())));
}

function mentionNames(targets: readonly ProtectedTarget[]): string[] {
  const names = new Set<string>();
  // The directories holding a protected file are targets too: only dot-directories are named by text.
  const isDirectory = (t: ProtectedTarget) => targets.some((o) => o.physical.startsWith(`${t.physical}${path.sep}`));
  for (const target of targets) {
    const inside = !path.isAbsolute(target.shown);
    const parts = inside ? target.shown.split(path.sep) : [];
    for (const part of parts) if (part.startsWith('.') && part !== '.' && part !== '..') names.add(part);
    if (isDirectory(target)) continue;
    names.add(target.shown);
    const base = path.basename(target.shown);
    if (inside && base.length >= 6 && /[._-]/.test(base)) names.add(base);
  }
  return [...names];
}

/** Where a redirection may write without a second thought. */
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/fd/1', '/dev/fd/2']);

/** Commands after which a relative name, or a directory checked now, may mean another place. */
const PATH_CHANGERS = new Set(['cd', 'pushd', 'popd', 'ln']);

/**
 * Why the write redirections of an otherwise allowed line still need a person, or undefined:
 * a redirection is a file edit, allowed only inside the workspace and only where an Edit of
 * the file would be allowed (`editAllowed`). The check runs before the line does, so a line
 * that changes directory or makes links, or writes into a directory that does not exist yet
 * (`ln -s .. up && git log > up/x`), cannot show where it will really write.
 */
export function redirectWritesProblem(
  analysis: ParsedBash,
  writes: readonly RedirectTarget[],
  scope: WorkspaceScope,
  editAllowed: (file: string) => boolean,
): string | undefined {
  const changer = analysis.commands.flatMap((c) => commandForms(c)).find((f) => PATH_CHANGERS.has(f.words[0]));
  for (const { target } of writes) {
    if (target === undefined) return 'it writes to a file named by an expansion';
    if (HARMLESS_TARGETS.has(target)) continue;
    if (changer) return `it writes ${target} after \`${changer.words[0]}\` may have changed what that name means`;
    // `~user/x` is another user's home: outside, whatever it resolves to here.
    if (/^~[^/]/.test(target)) return `it writes outside the workspace (${target})`;
    let physical: string;
    try {
      physical = resolveInWorkspace(target, scope);
    } catch (error) {
      if (error instanceof OutsideWorkspaceError) return `it writes outside the workspace (${error.message})`;
      return `cannot tell where ${target} leads (${errorMessage(error)})`;
    }
    if (!isDirectory(path.dirname(physical))) return `it writes ${target} into a directory that does not exist yet`;
    if (!editAllowed(target)) return `it writes ${target}, and an Edit of it would need approval`;
  }
  return undefined;
}

const HARMLESS_SOURCES = new Set(['/dev/null', '/dev/stdin', '/dev/zero', '/dev/fd/0']);

/**
 * Why the input redirections of a line that rules with patterns allow still need a person:
 * `git commit -F - < ~/.ssh/id_rsa` would read a file outside the workspace (or a network
 * socket, `/dev/tcp/...`) on the back of `Bash(git *)`.
 */
export function redirectReadsProblem(analysis: ParsedBash, scope: WorkspaceScope): string | undefined {
  for (const { target, write } of analysis.redirects) {
    if (write || (target !== undefined && HARMLESS_SOURCES.has(target))) continue;
    if (target === undefined) return 'it reads a file named by an expansion';
    if (/^~[^/]/.test(target)) return `it reads outside the workspace (${target})`;
    try {
      resolveInWorkspace(target, scope);
    } catch (error) {
      if (error instanceof OutsideWorkspaceError) return `it reads outside the workspace (${error.message})`;
      return `cannot tell where ${target} leads (${errorMessage(error)})`;
    }
  }
  return undefined;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
