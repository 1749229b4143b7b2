import path from 'node:path';
import picomatch from 'picomatch';
import { HOLE } from '../../permissions/wildcard';
import { isSymlink, OutsideWorkspaceError, resolveInWorkspace, type WorkspaceScope } from '../tools/workspace-paths';
import { argumentWords, lineDirectories, pathCandidates, type ParsedBash } from './bash-words';
import { errorMessage } from '../../error-message';

/** Names that are no file of anyone's: the standard streams and the bit bucket. */
const HARMLESS = /^\/dev\/(null|stdin|stdout|stderr|tty|fd\/\d+)$/;
const URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * Why a line that rules with patterns allow still needs a person because of its words, or
 * undefined: as Claude Code validates the paths of a Bash command, an argument (or an option's
 * value, an assignment value, a `for` list item, a here-string) that names a path outside the
 * workspace and its additional directories, after symlinks (`cat ~/.ssh/id_rsa`,
 * `cp x ../y`, `sort -o/etc/x`), or a path built from an expansion (`$HOME/x`), is not granted
 * by `Bash(cat *)`. A path-like word contains `/`, starts with `~` or is `..`; a word that is
 * only an expansion may be any path. A plain name is checked too when it is a symlink.
 */
export function argumentPathsProblem(analysis: ParsedBash, scope: WorkspaceScope): string | undefined {
  const dirs = lineDirectories(analysis, scope.cwd);
  if (!dirs) return 'it changes directory to a place that cannot be known before it runs';
  const candidates = new Set(argumentWords(analysis).flatMap(pathCandidates));
  // Each one costs file-system lookups: a line naming more is left to a person.
  if (candidates.size > MAX_CHECKED) return `it names more than ${MAX_CHECKED} distinct words to check as paths`;
  for (const candidate of candidates) {
    const problem = candidateProblem(candidate, dirs, scope);
    if (problem) return problem;
  }
  return undefined;
}

export const MAX_CHECKED = 1_000;

function candidateProblem(candidate: string, dirs: readonly string[], scope: WorkspaceScope): string | undefined {
  if (candidate === '' || HARMLESS.test(candidate) || URL.test(candidate)) return undefined;
  const shown = candidate.replaceAll(HOLE, '$…');
  const pathLike = candidate.includes('/') || candidate.startsWith('~') || candidate === '..';
  if (candidate.includes(HOLE)) {
    const onlyExpansion = candidate.replaceAll(HOLE, '') === '';
    return pathLike || onlyExpansion ? `\`${shown}\` is a path built from an expansion, which could lead anywhere` : undefined;
  }
  if (/^~[^/]/.test(candidate)) return `\`${candidate}\` is outside the workspace (another user's home)`;
  if (!pathLike && !dirs.some((dir) => isSymlink(path.resolve(dir, candidate)))) return undefined;
  // A glob reads whatever matches below its literal start.
  const literal = /[*?[]/.test(candidate) ? picomatch.scan(candidate).base || '.' : candidate;
  for (const cwd of dirs) {
    try {
      resolveInWorkspace(literal, { ...scope, cwd });
    } catch (error) {
      if (error instanceof OutsideWorkspaceError) return `\`${candidate}\` names a path outside the workspace (${error.message})`;
      return `cannot tell where \`${candidate}\` leads (${errorMessage(error)})`;
    }
  }
  return undefined;
}
