import { statSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../error-message';
import type { Disposable } from '../events-emitter';
import { WatchedFolders } from './watched-folders';

export type FileChangeKind = 'change' | 'add' | 'unlink';

/** More are not watched (with a warning): a list from a hook cannot take the host's file handles. */
export const MAX_WATCHED_FILES = 256;
/** Events closer together than this are one change: an editor's save is a rename and a write or two. */
const SETTLE_MS = 50;

/** What tells one state of a file from another; undefined: no file there. */
type FileState = string | undefined;

function stateOf(file: string): FileState {
  try {
    const stat = statSync(file);
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.isFile() ? 'f' : 'o'}`;
  } catch {
    return undefined;
  }
}

function changeOf(before: FileState, after: FileState): FileChangeKind | undefined {
  if (before === after) return undefined;
  if (before === undefined) return 'add';
  return after === undefined ? 'unlink' : 'change';
}

export interface WatchedFilesOptions {
  /**
   * Hears one changed file at a time, never two at once. Changes that come while it runs wait,
   * one per file, and are told by the file's state when their turn comes: a file written 1,000
   * times during one run is one more call, not 1,000.
   */
  onChange(file: string, kind: FileChangeKind): Promise<void>;
  warn(message: string): void;
}

/**
 * Files watched for changes on disk, by whoever makes them (the agent, the person, a build).
 * Each file's folder is watched (WatchedFolders), so a file that is added, removed or replaced
 * by a save is seen, also after its folder was removed and made again.
 */
export class WatchedFiles implements Disposable {
  /** Each watched file's state when it was last reported (or first watched). */
  private readonly states = new Map<string, FileState>();
  private readonly folders = new WatchedFolders((folder, name) => this.folderChanged(folder, name));
  private readonly pending = new Set<string>();
  private settle: NodeJS.Timeout | undefined;
  private running = false;
  private disposed = false;

  constructor(private readonly options: WatchedFilesOptions) {}

  /** The files now watched, in order. */
  get files(): readonly string[] {
    return [...this.states.keys()];
  }

  /** Watches exactly `files` (absolute paths) from now on; a file watched before keeps its state. */
  watch(files: readonly string[]): void {
    if (this.disposed) return;
    const wanted = [...new Set(files.map((file) => path.resolve(file)))];
    if (wanted.length > MAX_WATCHED_FILES) {
      this.options.warn(`FileChanged watches the first ${MAX_WATCHED_FILES} of ${wanted.length} files; the others are not watched`);
      wanted.length = MAX_WATCHED_FILES;
    }
    const kept = new Set(wanted);
    for (const file of this.states.keys()) {
      if (!kept.has(file)) {
        this.states.delete(file);
        this.pending.delete(file);
      }
    }
    for (const file of wanted) if (!this.states.has(file)) this.states.set(file, stateOf(file));
    this.folders.watch(new Set(wanted.map((file) => path.dirname(file))));
  }

  private folderChanged(folder: string, name: string | null): void {
    if (this.disposed) return;
    if (name === null) {
      for (const file of this.states.keys()) if (path.dirname(file) === folder) this.pending.add(file);
    } else {
      const file = path.join(folder, name);
      if (!this.states.has(file)) return;
      this.pending.add(file);
    }
    if (this.pending.size > 0 && !this.settle) this.settle = setTimeout(() => void this.report(), SETTLE_MS).unref();
  }

  private async report(): Promise<void> {
    this.settle = undefined;
    if (this.running) return;
    this.running = true;
    try {
      for (let file = this.next(); file !== undefined && !this.disposed; file = this.next()) {
        this.pending.delete(file);
        const state = stateOf(file);
        const kind = changeOf(this.states.get(file), state);
        this.states.set(file, state);
        if (kind === undefined) continue;
        try {
          await this.options.onChange(file, kind);
        } catch (err) {
          this.options.warn(`FileChanged for ${file}: ${errorMessage(err)}`);
        }
        // Changes that came during the run settle too: a file rewritten without pause (a
        // process left running) runs the hooks at most once per SETTLE_MS, not back to back.
        if (this.pending.size > 0 && !this.disposed) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS).unref());
      }
    } finally {
      this.running = false;
    }
  }

  private next(): string | undefined {
    for (const file of this.pending) if (this.states.has(file)) return file;
    this.pending.clear();
    return undefined;
  }

  dispose(): void {
    this.disposed = true;
    if (this.settle) clearTimeout(this.settle);
    this.folders.dispose();
    this.pending.clear();
    this.states.clear();
  }
}
