import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/** Lock files this process holds: a second session object here must not take one over. */
const held = new Set<string>();

/** Another live process (or session) works on this session: its transcript must not interleave. */
export class SessionInUseError extends Error {
  constructor(sessionId: string, pid: number) {
    super(`session ${sessionId} is in use by process ${pid}`);
    this.name = 'SessionInUseError';
  }
}

/**
 * An exclusive lock per session: `<transcript>.lock`, created with `wx`, holding the owner's
 * pid. A lock whose process is gone (a crash, SIGKILL) is stale and taken over.
 */
export class SessionLock {
  private constructor(private readonly file: string) {}

  static acquire(file: string, sessionId: string): SessionLock {
    if (held.has(file)) throw new SessionInUseError(sessionId, process.pid);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (tryCreate(file)) {
        held.add(file);
        return new SessionLock(file);
      }
      const owner = ownerOf(file);
      // Our own pid without an entry in `held`: a session object of this process that never ended.
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) throw new SessionInUseError(sessionId, owner);
      // Stale. Checked again right before removing it: another process may have broken it already.
      if (ownerOf(file) !== owner) continue;
      try {
        unlinkSync(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    throw new Error(`session ${sessionId}: could not take the lock ${file}`);
  }

  release(): void {
    if (!held.delete(this.file)) return;
    try {
      if (ownerOf(this.file) === process.pid) unlinkSync(this.file);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

/** Creates the lock with its pid in one step (a hard link), so no one ever reads it half-written. */
function tryCreate(file: string): boolean {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(temp, `${process.pid}\n`);
  try {
    linkSync(temp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    unlinkSync(temp);
  }
}

function ownerOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
