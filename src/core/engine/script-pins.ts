import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ScriptFolder } from './protected-files';
import { readRegularBytes } from '../read-regular-file';

/** What a file looked like: `null` when it did not exist (or could not be read). */
interface Fingerprint {
  /** dev, ino, size, mtime and ctime in ns: any write changes one of them (ctime cannot be set back). */
  stat: string;
  sha256: string;
}

/** A folder's entries as pinned: a new, removed or renamed entry changes `names`, and the folder's stat. */
interface Listing {
  stat: string | null;
  names: string;
}

/** A script folder as pinned: the listing of it and its subfolders, and (within bounds) its files. */
interface FolderPin {
  folder: ScriptFolder;
  listings: Map<string, Listing>;
  files: Map<string, Fingerprint | null>;
}

/** A key's scripts against their pins: what changed, and what re-approving them would pin. */
export interface ScriptReview {
  changed: string[];
  /** A hash of the content of every file and the listing of every folder of the key. */
  fingerprint: string;
}

/** What one hook (or rpc server) runs: named files, and folders its interpreter reads more from. */
export interface PinSpec {
  files: readonly string[];
  folders?: readonly ScriptFolder[];
}

interface KeyPins {
  files: Map<string, Fingerprint | null>;
  folders: Map<string, FolderPin>;
}

/** A script folder's contents are hashed up to these bounds; beyond them only its own listing is pinned. */
export const FOLDER_PIN_LIMITS = { files: 200, bytes: 16 * 1024 * 1024 };
/** A pinned file larger than this counts as unreadable (a change), as a missing one does. */
const MAX_HASHED_BYTES = 1024 * 1024 * 1024;
/** Written by Python itself the first time a sibling module is imported: not a change by anyone. */
const SKIPPED = new Set(['__pycache__']);
/** A module Python imports from a folder on its path: source (`.pyw` on Windows), bytecode, or compiled (`x.cpython-312-x86_64-linux-gnu.so`). */
const PYTHON_MODULE = /\.(py|pyw|pyc|so|pyd)$/;
/** What makes a folder a package: its `__init__` module, in any of those forms. */
const PACKAGE_INIT = /^__init__(\.[^.]+)*\.(py|pyc|so|pyd)$/;

function fingerprint(file: string): Fingerprint | null {
  try {
    const s = statSync(file, { bigint: true });
    if (!s.isFile()) return null;
    // Read as checked: a file swapped for a FIFO after its stat would hold this thread forever.
    const bytes = readRegularBytes(file, MAX_HASHED_BYTES, { followLinks: true });
    return { stat: statKey(s), sha256: createHash('sha256').update(bytes).digest('hex') };
  } catch {
    return null;
  }
}

function statKey(s: { dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

function currentStat(file: string, kind: 'file' | 'directory' = 'file'): string | null {
  try {
    const s = statSync(file, { bigint: true });
    return (kind === 'file' ? s.isFile() : s.isDirectory()) ? statKey(s) : null;
  } catch {
    return null;
  }
}

function folderKey(folder: ScriptFolder): string {
  return `${folder.dir}\0${folder.extension ?? ''}`;
}

/** The entries of `dir` a folder pin covers, sorted: `name/` for a real subfolder. */
function entries(dir: string, folder: ScriptFolder): string[] {
  if (isPythonRoot(folder)) return dir === folder.dir ? pythonRootEntries(dir) : packageInits(dir);
  try {
    const listed = readdirSync(dir, { withFileTypes: true }).filter((e) => !SKIPPED.has(e.name));
    const kept =
      folder.extension === undefined ? listed : listed.filter((e) => !e.isDirectory() && path.extname(e.name) === folder.extension);
    return kept.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
  } catch {
    return [];
  }
}

/**
 * The workspace root of a Python script is the first folder on its `sys.path`: what is
 * imported from there, before the standard library and installed packages, is its modules
 * (source, bytecode or compiled) and its packages, folders with an `__init__` module.
 */
function isPythonRoot(folder: ScriptFolder): boolean {
  return folder.extension === '.py';
}

function pythonRootEntries(dir: string): string[] {
  const names: string[] = [];
  try {
    for (const name of readdirSync(dir)) {
      if (SKIPPED.has(name)) continue;
      // Through links too: a link to a package imports as one.
      if (currentStat(path.join(dir, name), 'directory') !== null) {
        if (packageInits(path.join(dir, name)).length > 0) names.push(`${name}/`);
      } else if (PYTHON_MODULE.test(name)) names.push(name);
    }
  } catch {
    return [];
  }
  return names.sort();
}

function packageInits(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => PACKAGE_INIT.test(name))
      .sort();
  } catch {
    return [];
  }
}

/**
 * A folder's stat as its pin compares it, one read of the folder and one stat per entry. For a
 * Python root, its subfolders' too: a package is made by a file created inside a folder, which
 * the root's own stat does not show.
 */
function listingStat(dir: string, folder: ScriptFolder): string | null {
  const stat = currentStat(dir, 'directory');
  if (stat === null || !isPythonRoot(folder) || dir !== folder.dir) return stat;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return stat;
  }
  const subfolders = names.flatMap((name) => {
    const sub = SKIPPED.has(name) ? null : currentStat(path.join(dir, name), 'directory');
    return sub === null ? [] : [`${name}:${sub}`];
  });
  return [stat, ...subfolders].join('\n');
}

function listing(dir: string, folder: ScriptFolder, names: readonly string[]): Listing {
  return { stat: listingStat(dir, folder), names: names.join('\n') };
}

/**
 * Walks a script folder (subfolders too, symlinked ones only by name): every listing, and every
 * file's fingerprint while within FOLDER_PIN_LIMITS. `complete` false: only the top listing is kept.
 */
function pinFolder(folder: ScriptFolder): { pin: FolderPin; complete: boolean } {
  const listings = new Map<string, Listing>();
  const files = new Map<string, Fingerprint | null>();
  let bytes = 0;
  const pending = [folder.dir];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const names = entries(dir, folder);
    listings.set(dir, listing(dir, folder, names));
    for (const name of names) {
      if (name.endsWith('/')) {
        pending.push(path.join(dir, name.slice(0, -1)));
        continue;
      }
      const print = fingerprint(path.join(dir, name));
      files.set(path.join(dir, name), print);
      bytes += statSize(path.join(dir, name));
      if (files.size > FOLDER_PIN_LIMITS.files || bytes > FOLDER_PIN_LIMITS.bytes) {
        return {
          pin: { folder, listings: new Map([[folder.dir, listings.get(folder.dir) ?? listing(folder.dir, folder, [])]]), files: new Map() },
          complete: false,
        };
      }
    }
  }
  return { pin: { folder, listings, files }, complete: true };
}

function statSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Content hashes of the files each hook (or rpc server) depends on, and the listings of the
 * folders its interpreter loads more files from, taken when a person's configuration is
 * applied. `changed` is the check before each run: a stat per file and folder, a hash only
 * when a file's stat moved and a new listing only when a folder's did, so an unchanged script
 * costs next to nothing.
 */
export class ScriptPins {
  private pins = new Map<string, KeyPins>();

  /**
   * Pins exactly these keys (hashing now); keys not given are forgotten. Returns the folders
   * too large to hash, whose own listing only is pinned.
   */
  pinAll(entries: ReadonlyMap<string, PinSpec>): string[] {
    const next = new Map<string, KeyPins>();
    const oversized = new Set<string>();
    for (const [key, spec] of entries) {
      const files = new Map(spec.files.map((file) => [file, this.reuse(key, file) ?? fingerprint(file)]));
      const folders = new Map<string, FolderPin>();
      for (const folder of spec.folders ?? []) {
        // A folder pinned before keeps its pin: a file that appeared since stays a change.
        const kept = this.pins.get(key)?.folders.get(folderKey(folder));
        if (kept) {
          folders.set(folderKey(folder), kept);
          continue;
        }
        const { pin, complete } = pinFolder(folder);
        if (!complete) oversized.add(folder.dir);
        folders.set(folderKey(folder), pin);
      }
      next.set(key, { files, folders });
    }
    this.pins = next;
    return [...oversized];
  }

  /**
   * What a person is shown before approving `key`: every file that differs from its pin (a
   * deleted or new file too), and a fingerprint of all its files and folders as they are now,
   * which `approve` takes back. Undefined for a key that is not pinned.
   */
  review(key: string): ScriptReview | undefined {
    const pins = this.pins.get(key);
    if (!pins) return undefined;
    const now = repin(pins);
    return { changed: differences(pins, now), fingerprint: digest(now) };
  }

  /**
   * A person approved one key's files and folders: re-pins them, but only while they are what
   * `fingerprint` (from `review`) says, so a file rewritten after the review is not approved
   * unread. The pins kept are the very reads the fingerprint was checked against. False: nothing was pinned.
   */
  approve(key: string, fingerprint: string): boolean {
    const pins = this.pins.get(key);
    if (!pins) return false;
    const now = repin(pins);
    if (digest(now) !== fingerprint) return false;
    this.pins.set(key, now);
    return true;
  }

  /** The first file of `key` that differs from its pin (a deleted or new file too), else undefined. */
  changed(key: string): string | undefined {
    const pins = this.pins.get(key);
    if (!pins) return undefined;
    const file = changedFile(pins.files);
    if (file !== undefined) return file;
    for (const folder of pins.folders.values()) {
      const moved = changedListing(folder) ?? changedFile(folder.files);
      if (moved !== undefined) return moved;
    }
    return undefined;
  }

  files(key: string): readonly string[] {
    const pins = this.pins.get(key);
    if (!pins) return [];
    return [...pins.files.keys(), ...[...pins.folders.values()].flatMap((folder) => [...folder.files.keys()])];
  }

  /**
   * A reload keeps the pin of a file that is still pinned for the same key: a change made
   * since stays a change. Reapplying a configuration is not approving its scripts.
   */
  private reuse(key: string, file: string): Fingerprint | null | undefined {
    const files = this.pins.get(key)?.files;
    return files?.has(file) ? files.get(file) : undefined;
  }
}

/** A key's files and folders as they are now, in the shape of its pins. */
function repin(pins: KeyPins): KeyPins {
  return {
    files: new Map([...pins.files.keys()].map((file) => [file, fingerprint(file)])),
    folders: new Map([...pins.folders].map(([key, { folder }]) => [key, pinFolder(folder).pin])),
  };
}

/** Content only (a touch that moves a stat changes no fingerprint), serialized as JSON so no two states read alike. */
function digest(pins: KeyPins): string {
  const sorted = <T>(map: Map<string, T>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const contents = (files: Map<string, Fingerprint | null>) => sorted(files).map(([file, print]) => [file, print?.sha256 ?? null]);
  const folders = sorted(pins.folders).map(([key, folder]) => [
    key,
    sorted(folder.listings).map(([dir, listed]) => [dir, listed.stat === null ? null : listed.names]),
    contents(folder.files),
  ]);
  return createHash('sha256')
    .update(JSON.stringify([contents(pins.files), folders]))
    .digest('hex');
}

/** Every path whose content or presence differs between `pinned` and `now`, once each. */
function differences(pinned: KeyPins, now: KeyPins): string[] {
  const changed = new Set<string>();
  const files = (before: Map<string, Fingerprint | null>, after: Map<string, Fingerprint | null>) => {
    for (const file of new Set([...before.keys(), ...after.keys()]))
      if ((before.get(file)?.sha256 ?? null) !== (after.get(file)?.sha256 ?? null)) changed.add(file);
  };
  files(pinned.files, now.files);
  for (const [key, folder] of pinned.folders) {
    const fresh = now.folders.get(key);
    if (!fresh) continue;
    for (const dir of new Set([...folder.listings.keys(), ...fresh.listings.keys()])) {
      const names = (listed: Listing | undefined) => new Set(listed?.names ? listed.names.split('\n') : []);
      const [before, after] = [names(folder.listings.get(dir)), names(fresh.listings.get(dir))];
      for (const name of [...before, ...after])
        if (before.has(name) !== after.has(name)) changed.add(path.join(dir, name.replace(/\/$/, '')));
    }
    files(folder.files, fresh.files);
  }
  return [...changed];
}

function changedFile(files: Map<string, Fingerprint | null>): string | undefined {
  for (const [file, pinned] of files) {
    const stat = currentStat(file);
    if (stat === (pinned?.stat ?? null)) continue;
    const now = stat === null ? null : fingerprint(file);
    if (now === null || pinned === null || now.sha256 !== pinned.sha256) return file;
    // Touched but the same content: remember the new stat so the next check is cheap again.
    files.set(file, now);
  }
  return undefined;
}

/** The first entry added to or removed from a pinned folder, else undefined. */
function changedListing({ folder, listings }: FolderPin): string | undefined {
  for (const [dir, pinned] of listings) {
    const stat = listingStat(dir, folder);
    if (stat === pinned.stat) continue;
    const names = entries(dir, folder);
    if (stat !== null && pinned.stat !== null && names.join('\n') === pinned.names) {
      // Touched (an entry the pin skips, or one put back): the next check is cheap again.
      listings.set(dir, { stat, names: pinned.names });
      continue;
    }
    const before = new Set(pinned.names === '' ? [] : pinned.names.split('\n'));
    const added = names.find((name) => !before.has(name));
    return path.join(dir, (added ?? [...before].find((name) => !names.includes(name)) ?? '').replace(/\/$/, ''));
  }
  return undefined;
}
