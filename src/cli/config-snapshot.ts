import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readConfigBytes, readConfigText } from '../core/read-regular-file';

const MISSING = 'unreadable: ENOENT';
/** In a project's storage: what its configuration files held when its last run ended. */
export const KEPT_CONFIG_FILE = 'config-at-last-run.json';

/** A file's bytes as a hash, or why there are none: enough to tell whether it changed. */
function fingerprint(file: string): string {
  try {
    // Most of the files looked at are missing: a failed open's error costs more than a look, at every tool call.
    if (lstatSync(file, { throwIfNoEntry: false }) === undefined) return MISSING;
    return createHash('sha256').update(readConfigBytes(file)).digest('hex');
  } catch (error) {
    return `unreadable: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}

/**
 * The configuration files a run read once at its start: hooks and permissions are a snapshot
 * for the whole session, as in Claude Code. Whatever rewrites them meanwhile (the model
 * through Bash, a hook, a person) applies to the next session; `takeNewChanges()` names each
 * new content as the run notices it (ConfigChange), `changed()` names them all at the end.
 */
export class ConfigFileSnapshot {
  /** The last content of each file a look reported, until the file is back to its start. */
  private readonly noticed = new Map<string, string>();

  private constructor(private readonly baseline: Map<string, string>) {}

  static take(files: readonly string[]): ConfigFileSnapshot {
    return new ConfigFileSnapshot(new Map(files.map((file) => [path.resolve(file), fingerprint(file)])));
  }

  /**
   * A write of Hookpilot's own on a person's word ("Always allow"): the file's new content
   * becomes the baseline, unless it had already changed before the write, which stays reported.
   */
  async ownWrite(file: string, write: () => Promise<void>): Promise<void> {
    const key = path.resolve(file);
    const before = fingerprint(key);
    await write();
    if (this.baseline.get(key) === before) this.baseline.set(key, fingerprint(key));
  }

  /**
   * The files whose content differs from what the last run in this project left (`kept`, from
   * `keep`): changed while no run watched, by a person or by a process a run left behind.
   */
  changedSinceKept(kept: string): string[] {
    let last: Record<string, unknown>;
    try {
      last = JSON.parse(readConfigText(kept)) as Record<string, unknown>;
    } catch {
      // No earlier run, or nothing readable of it: nothing to compare.
      return [];
    }
    return [...this.baseline].filter(([file, print]) => typeof last[file] === 'string' && last[file] !== print).map(([file]) => file);
  }

  /** Writes what the files hold now to `kept`, for the next run's `changedSinceKept`. */
  keep(kept: string): void {
    const now = Object.fromEntries([...this.baseline.keys()].map((file) => [file, fingerprint(file)]));
    mkdirSync(path.dirname(kept), { recursive: true, mode: 0o700 });
    writeFileSync(kept, JSON.stringify(now), { mode: 0o600 });
  }

  /** The files whose content differs from what the run read at its start. */
  changed(): string[] {
    return [...this.baseline].filter(([file, print]) => fingerprint(file) !== print).map(([file]) => file);
  }

  /**
   * The files whose content differs from the start and from what the last call reported for
   * them: each new content once, however often the run looks.
   */
  takeNewChanges(): string[] {
    const fresh: string[] = [];
    for (const [file, start] of this.baseline) {
      const now = fingerprint(file);
      if (now === start) this.noticed.delete(file);
      else if (this.noticed.get(file) !== now) {
        this.noticed.set(file, now);
        fresh.push(file);
      }
    }
    return fresh;
  }
}
