import path from 'node:path';
import type { SessionEnvFile } from './session-env-file';
import type { SessionHooks } from './session-hooks';
import { WatchedFiles, type FileChangeKind } from './watched-files';

/**
 * The files a FileChanged matcher watches, as in Claude Code: its `|`-separated names, each a
 * file in the session's folder (`*` is a file of that name). A name with a `/` names no such file.
 */
export function watchedNames(matcher: string | undefined): string[] {
  return (matcher ?? '')
    .split('|')
    .map((name) => name.trim())
    .filter((name) => name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0'));
}

export interface FileChangedHooksDeps {
  hooks: SessionHooks;
  /** FileChanged hooks, like SessionStart's, may export variables for later Bash commands. */
  envFile: SessionEnvFile;
  cwd: string;
  notices(systemMessages: readonly string[], warnings: readonly string[]): void;
}

/**
 * Claude Code's FileChanged for one session: the files its hooks' matchers name and the
 * `watchPaths` its SessionStart and FileChanged hooks return are watched while the session
 * lives, and each change (by anyone) runs the FileChanged hooks, one change at a time.
 */
export class FileChangedHooks {
  /** The latest watchPaths a hook returned: each answer replaces the list before it. */
  private watchPaths: readonly string[] = [];
  private readonly ended = new AbortController();
  private readonly files: WatchedFiles;
  /** The run under way (WatchedFiles reports one change at a time). */
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly deps: FileChangedHooksDeps) {
    const onChange = (file: string, kind: FileChangeKind) => (this.running = this.changed(file, kind));
    this.files = new WatchedFiles({ onChange, warn: (message) => deps.notices([], [message]) });
  }

  /** Watches what the configuration's FileChanged matchers name now, and `watchPaths` when a hook returned some. */
  refresh(watchPaths?: readonly string[]): void {
    if (watchPaths) this.watchPaths = watchPaths.map((file) => path.resolve(this.deps.cwd, file));
    const named = this.deps.hooks.subscribers('FileChanged').flatMap((hook) => watchedNames(hook.matcher));
    this.files.watch([...named.map((name) => path.join(this.deps.cwd, name)), ...this.watchPaths]);
  }

  /** The files watched now. */
  get watched(): readonly string[] {
    return this.files.files;
  }

  private async changed(file: string, kind: FileChangeKind): Promise<void> {
    if (this.ended.signal.aborted || this.deps.hooks.subscribers('FileChanged').length === 0) return;
    const fields = { file_path: file, file_name: path.basename(file), event: kind };
    const { result, problem } = await this.deps.envFile.capture(`FileChanged ${file}`, (env) =>
      this.deps.hooks.dispatch('FileChanged', fields, this.ended.signal, env),
    );
    this.deps.notices(result.systemMessages, problem === undefined ? result.warnings : [...result.warnings, problem]);
    if (result.watchPaths && !this.ended.signal.aborted) this.refresh(result.watchPaths);
  }

  /**
   * Stops watching and cancels a run under way; resolves once it has ended, so that nothing of
   * it (its hooks' records, what it exports) comes after the session.
   */
  async stop(): Promise<void> {
    this.ended.abort();
    this.files.dispose();
    await this.running.catch(() => undefined);
  }
}
