import type { AuditSink } from '../../audit/records';
import type { AgentHook, AgentHookContext } from '../agent-hook';
import type { PayloadOf } from '../payloads';
import type { HookEffects } from '../types';
import { GitWorktree, ignoredIn, type Snapshot, unchanged } from './git-worktree';

/** The subject line's room for the prompt (git's 72-column convention, less the prefix). */
const SUBJECT_PROMPT_CHARS = 50;
/** Larger files are left out of the commit (and named in its record): a build output or a model's runaway file. */
export const MAX_COMMITTED_FILE_BYTES = 10 * 1024 * 1024;

interface OpenTurn {
  prompt: string;
  /** What was dirty before the turn, with fingerprints, and what git ignored then; undefined outside a repository. */
  before: Promise<Snapshot | undefined>;
}

/**
 * AtomCode's AutoCommitHook, off by default: when a turn completes, the files it changed in
 * the workspace's git repository (new, changed or deleted since the prompt, by any tool) are
 * committed, and nothing else: the user's own uncommitted and staged work stays as it was,
 * unless the turn changed the same file. A turn that did not complete (blocked, failed,
 * cancelled, stopped) commits nothing and leaves its changes for review. A file git ignored
 * before the turn is never committed, even once the turn un-ignores it (a `.env`). Git never
 * runs the repository's hooks, and does not run at all when `.git/config` holds more than a
 * plain clone's settings or `.git` holds a link where git reads or writes: the model can write
 * all of them.
 */
export class AutoCommitHook implements AgentHook {
  readonly name = 'AutoCommit';
  readonly description = 'Commits the files a completed turn changed to the workspace git repository (off by default).';
  readonly timeoutMs = 30_000;
  private readonly open = new Map<string, OpenTurn>();
  /** The last commit of each session: the next prompt's snapshot waits for it. */
  private readonly committing = new Map<string, Promise<unknown>>();

  constructor(
    private readonly audit: AuditSink,
    private readonly writableRoots: () => readonly string[],
    /** The session's credential variables the Bash tool strips: git (and a filter it runs) does not get them either. */
    private readonly secretEnvNames: () => readonly string[] = () => [],
  ) {}

  /** The snapshot is taken before the prompt reaches the model; messages sent mid-turn do not retake it. */
  async onUserPromptSubmit(p: PayloadOf<'UserPromptSubmit'>, ctx: AgentHookContext): Promise<void> {
    if (this.open.has(p.session_id)) return;
    const turn: OpenTurn = { prompt: p.prompt, before: Promise.resolve(undefined) };
    this.open.set(p.session_id, turn);
    await this.committing.get(p.session_id)?.catch(() => undefined);
    const git = new GitWorktree(p.cwd, ctx.signal, this.writableRoots(), this.secretEnvNames());
    turn.before = git.isRepository() ? git.snapshot() : Promise.resolve(undefined);
    // A failed snapshot surfaces at TurnEnd, where it means nothing is committed.
    await turn.before.catch(() => undefined);
  }

  onTurnEnd(p: PayloadOf<'TurnEnd'>, ctx: AgentHookContext): Promise<HookEffects> | undefined {
    const turn = this.open.get(p.session_id);
    this.open.delete(p.session_id);
    if (!turn || p.reason !== 'completed') return undefined;
    const run = this.commitTurn(p, turn, ctx.signal);
    this.committing.set(p.session_id, run);
    const forget = () => {
      if (this.committing.get(p.session_id) === run) this.committing.delete(p.session_id);
    };
    run.then(forget, forget);
    return run;
  }

  /** A commit still under way outlives its session (it ends on its own, within the hook's timeout): see settled(). */
  onSessionEnd(p: PayloadOf<'SessionEnd'>): void {
    this.open.delete(p.session_id);
  }

  /**
   * Settles once the commits under way have ended. The host waits for it before it stops: a
   * commit of a large turn takes longer than the short wait observers get at the end (the
   * CLI's last turn would be left uncommitted).
   */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.committing.values()]);
  }

  private async commitTurn(p: PayloadOf<'TurnEnd'>, turn: OpenTurn, signal: AbortSignal): Promise<HookEffects> {
    const before = await turn.before;
    if (before === undefined) return {};
    const git = new GitWorktree(p.cwd, signal, this.writableRoots(), this.secretEnvNames());
    // Checks .git/config again (the turn could change it); a refusal is thrown so the run is recorded as failed, not skipped.
    const now = await git.dirty();
    // New since the prompt, or different from what it was then (a file the user had changed and the turn changed further).
    const touched = [...now].filter(([file, print]) => !unchanged(before.dirty.get(file), print)).map(([file]) => file);
    const skipped: { ignored_before?: string[]; nested_repository?: string[]; too_large?: string[] } = {};
    const changed: string[] = [];
    for (const file of touched) {
      // Ignored before: absent from the snapshot, so it looks new, but the turn may only have edited .gitignore (a .env).
      // A nested repository is left out: git would look inside it, where its own config names what runs.
      const reason = ignoredIn(before.ignored, file)
        ? 'ignored_before'
        : git.isDirectory(file)
          ? 'nested_repository'
          : git.size(file) > MAX_COMMITTED_FILE_BYTES
            ? 'too_large'
            : undefined;
      if (reason === undefined) changed.push(file);
      else (skipped[reason] ??= []).push(file);
    }
    const noChanges = { metadata: { auto_commit: { committed: false, reason: 'no changes', ...skipped } } };
    if (changed.length === 0) return noChanges;
    const commit = await git.commit(changed, commitMessage(turn.prompt, p));
    if (commit === undefined) return noChanges;
    const data = { commit, turn_index: p.turn_index, files: changed, ...skipped };
    this.audit.append({
      type: 'note',
      session_id: p.session_id,
      level: Object.keys(skipped).length > 0 ? 'warning' : 'info',
      message: `AutoCommit ${commit.slice(0, 12)}`,
      data,
    });
    return { metadata: { auto_commit: { committed: true, ...data } } };
  }
}

/** `Hookpilot: <the prompt's first line>`, then which turn of which session. */
export function commitMessage(prompt: string, p: Pick<PayloadOf<'TurnEnd'>, 'turn_index' | 'session_id'>): string {
  // eslint-disable-next-line no-control-regex
  const line = (prompt.split('\n').find((l) => l.trim() !== '') ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  const subject = line.length > SUBJECT_PROMPT_CHARS ? `${line.slice(0, SUBJECT_PROMPT_CHARS - 1)}…` : line;
  return `Hookpilot: ${subject || '(empty prompt)'}\n\nTurn ${p.turn_index + 1} of Hookpilot session ${p.session_id}.`;
}
