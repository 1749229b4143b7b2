import { statSync } from 'node:fs';
import path from 'node:path';
import type { BashAnalysis, RedirectTarget } from '../../permissions/bash-command';
import { analyzeBashCommand } from '../../permissions/bash-command';
import { commandForms, nestedScript } from '../../permissions/bash-wrappers';
import type { PermissionSignal } from '../../permissions/precedence';
import { OutsideWorkspaceError, resolveInWorkspace, type WorkspaceScope } from '../tools/workspace-paths';
import { protectedTargetInWord, type ProtectedTarget } from './protected-targets';

/**
 * The gate's view of a Bash call beyond its rules: whether it touches a protected file
 * (defense in depth: a person must approve, as for an Edit of it) and whether its write
 * redirections may be allowed without one.
 */
const MAX_NESTING = 3;
type ParsedBash = Extract<BashAnalysis, { kind: 'parsed' }>;

/** A system ask when the command names a protected file, a directory holding one, or writes where an expansion decides. */
export function bashProtectedCheck(command: string, cwd: string, targets: readonly ProtectedTarget[]): PermissionSignal | undefined {
  const analysis = analyzeBashCommand(command);
  if (analysis.kind === 'unparseable') {
    const named = targets.find((t) => command.includes(path.basename(t.physical)));
    if (!named) return undefined;
    return systemAsk(`the command cannot be parsed (${analysis.error}) and mentions ${named.shown}, which configures hooks`);
  }
  if (analysis.redirects.some((r) => r.write && r.target === undefined)) {
    return systemAsk('it writes to a file named by an expansion, which could be a file that configures hooks');
  }
  for (const word of shellWords(analysis, 0)) {
    const hit = protectedTargetInWord(word, cwd, targets);
    if (hit) return systemAsk(`\`${word}\` leads to ${hit.shown}, which configures hooks: a person must approve commands that touch it`);
  }
  return undefined;
}

function systemAsk(reason: string): PermissionSignal {
  return { verdict: 'ask', source: 'protected file', reason };
}

/** Every word and redirection target of the line, those of `bash -c` / `eval` strings included. */
function shellWords(analysis: ParsedBash, depth: number): string[] {
  const words = analysis.redirects.flatMap((r) => (r.target === undefined ? [] : [r.target]));
  for (const simple of analysis.commands) {
    words.push(...simple.words);
    if (depth >= MAX_NESTING) continue;
    for (const form of commandForms(simple)) {
      const script = nestedScript(form.words);
      const nested = script === undefined ? undefined : analyzeBashCommand(script);
      if (nested?.kind === 'parsed') words.push(...shellWords(nested, depth + 1));
    }
  }
  return words;
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
      return `cannot tell where ${target} leads (${error instanceof Error ? error.message : String(error)})`;
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
      return `cannot tell where ${target} leads (${error instanceof Error ? error.message : String(error)})`;
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
