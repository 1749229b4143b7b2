import { statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Disposable } from '../events-emitter';

/** Which folder a path names now (a link is followed, as fs.watch follows it); undefined: none. */
function folderId(folder: string): string | undefined {
  try {
    const stat = statSync(folder);
    return stat.isDirectory() ? `${stat.dev}:${stat.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/** Not persistent: a CLI run ends when its work does, whatever it watches. */
function watcherOf(folder: string, onEvent: (name: string | null) => void, onError: () => void): FSWatcher | undefined {
  try {
    const watcher = watch(folder, { persistent: false }, (_kind, name) => onEvent(name === null ? null : name.toString()));
    watcher.on('error', onError);
    return watcher;
  } catch {
    // A folder that does not exist (or cannot be read) holds no file to change.
    return undefined;
  }
}

interface WatchedFolder {
  id: string | undefined;
  watcher: FSWatcher | undefined;
}

/**
 * Folders watched for what happens to their entries, and to themselves: each folder's parent is
 * watched too, so a folder removed and made again, or renamed away and replaced (by a link
 * too), is watched again as it is now. `onChange` hears an entry's name, or null for all of
 * a folder's entries (the folder itself went, came or changed).
 */
export class WatchedFolders implements Disposable {
  private readonly folders = new Map<string, WatchedFolder>();
  private readonly parents = new Map<string, FSWatcher | undefined>();

  constructor(private readonly onChange: (folder: string, name: string | null) => void) {}

  /** Watches exactly `folders` from now on; one watched before is watched again if its path now names another folder. */
  watch(folders: ReadonlySet<string>): void {
    for (const [folder, watched] of this.folders) {
      if (folders.has(folder)) continue;
      watched.watcher?.close();
      this.folders.delete(folder);
    }
    for (const folder of folders) if (this.check(folder)) this.onChange(folder, null);
    const parents = new Set([...folders].map((folder) => path.dirname(folder)));
    for (const [parent, watcher] of this.parents) {
      if (parents.has(parent)) continue;
      watcher?.close();
      this.parents.delete(parent);
    }
    for (const parent of parents) {
      if (this.parents.has(parent)) continue;
      this.parents.set(
        parent,
        watcherOf(
          parent,
          (name) => this.parentChanged(parent, name),
          () => this.parentChanged(parent, null),
        ),
      );
    }
  }

  private parentChanged(parent: string, name: string | null): void {
    for (const folder of this.folders.keys()) {
      if (path.dirname(folder) === parent && (name === null || path.basename(folder) === name) && this.check(folder))
        this.onChange(folder, null);
    }
  }

  /** Watches `folder` as its path names it now; true when that is another folder than before (or none). */
  private check(folder: string): boolean {
    const id = folderId(folder);
    const current = this.folders.get(folder);
    if (current !== undefined && current.id === id) return false;
    current?.watcher?.close();
    const watched: WatchedFolder = { id, watcher: undefined };
    if (id !== undefined)
      watched.watcher = watcherOf(
        folder,
        (name) => this.onChange(folder, name),
        () => {
          // The folder went away: watched again once its parent sees it come back.
          watched.watcher?.close();
          watched.id = undefined;
          this.onChange(folder, null);
        },
      );
    this.folders.set(folder, watched);
    return current !== undefined;
  }

  dispose(): void {
    for (const watched of this.folders.values()) watched.watcher?.close();
    for (const watcher of this.parents.values()) watcher?.close();
    this.folders.clear();
    this.parents.clear();
  }
}
