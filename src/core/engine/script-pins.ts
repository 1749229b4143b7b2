import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/** What a file looked like: `null` when it did not exist (or could not be read). */
interface Fingerprint {
  /** dev, ino, size, mtime and ctime in ns: any write changes one of them (ctime cannot be set back). */
  stat: string;
  sha256: string;
}

function fingerprint(file: string): Fingerprint | null {
  try {
    const s = statSync(file, { bigint: true });
    if (!s.isFile()) return null;
    return { stat: statKey(s), sha256: createHash('sha256').update(readFileSync(file)).digest('hex') };
  } catch {
    return null;
  }
}

function statKey(s: { dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

function currentStat(file: string): string | null {
  try {
    const s = statSync(file, { bigint: true });
    return s.isFile() ? statKey(s) : null;
  } catch {
    return null;
  }
}

/**
 * Content hashes of the files each hook (or rpc server) depends on, taken when a person's
 * configuration is applied. `changed` is the check before each run: a stat per file, and a
 * hash only when the stat moved, so an unchanged script costs next to nothing.
 */
export class ScriptPins {
  private pins = new Map<string, Map<string, Fingerprint | null>>();

  /** Pins exactly these keys' files (hashing now); keys not given are forgotten. */
  pinAll(entries: ReadonlyMap<string, readonly string[]>): void {
    const next = new Map<string, Map<string, Fingerprint | null>>();
    for (const [key, files] of entries) next.set(key, new Map(files.map((file) => [file, this.reuse(key, file) ?? fingerprint(file)])));
    this.pins = next;
  }

  /** Re-pins one key's files as they are now: a person approved them. */
  approve(key: string): void {
    const files = this.pins.get(key);
    if (!files) return;
    this.pins.set(key, new Map([...files.keys()].map((file) => [file, fingerprint(file)])));
  }

  /** The first file of `key` that differs from its pin (a deleted or new file too), else undefined. */
  changed(key: string): string | undefined {
    const files = this.pins.get(key);
    if (!files) return undefined;
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

  files(key: string): readonly string[] {
    return [...(this.pins.get(key)?.keys() ?? [])];
  }

  /**
   * A reload keeps the pin of a file that is still pinned for the same key: a change made
   * since stays a change. Reapplying a configuration is not approving its scripts.
   */
  private reuse(key: string, file: string): Fingerprint | null | undefined {
    const files = this.pins.get(key);
    return files?.has(file) ? files.get(file) : undefined;
  }
}
