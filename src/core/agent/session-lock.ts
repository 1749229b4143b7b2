import { linkSync, unlinkSync, writeFileSync } from 'node:fs';
import { errorMessage } from '../error-message';
import { readRegularFile } from '../read-regular-file';
import { errnoCode } from './tools/file-content';
import { procStat } from '../process/proc-stat';

/** Lock files this process holds: a second session object here must not take one over. */
const held = new Set<string>();

/** Another live process (or session) works on this session: its transcript must not interleave. */
export class SessionInUseError extends Error {
  constructor(sessionId: string, pid: number) {
    super(`session ${sessionId} is in use by process ${pid}`);
    this.name = 'SessionInUseError';
  }
}

/** Who holds a lock: its pid and, where /proc tells it, when that process started. */
interface LockOwner {
  pid: number;
  started?: number;
}

/**
 * An exclusive lock per session: `<transcript>.lock`, created with `wx`, holding the owner's
 * pid and start time. A lock whose process is gone (a crash, SIGKILL) is stale and taken over,
 * also when its pid now belongs to a process started at another time (a reboot reused it).
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
      const text = lockText(file);
      const owner = ownerIn(text);
      // Our own pid without an entry in `held`: a session object of this process that never ended.
      if (owner !== undefined && owner.pid !== process.pid && isRunning(owner)) throw new SessionInUseError(sessionId, owner.pid);
      // Stale. Checked again right before removing it: another process may have broken it already.
      if (lockText(file) !== text) continue;
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
      if (ownerIn(lockText(this.file))?.pid === process.pid) unlinkSync(this.file);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

/** Creates the lock with its owner in one step (a hard link), so no one ever reads it half-written. */
function tryCreate(file: string): boolean {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  const started = procStat(process.pid)?.started;
  writeFileSync(temp, started === undefined ? `${process.pid}\n` : `${process.pid} ${started}\n`);
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

/** More than a lock holds (a pid and a start time): a bigger file is no lock of ours. */
const MAX_LOCK_BYTES = 4096;

/**
 * The lock's text, read without following a link or waiting on a FIFO (it would block the
 * thread for ever); undefined when it cannot be opened (gone, unreadable).
 */
function lockText(file: string): string | undefined {
  try {
    return readRegularFile(file, MAX_LOCK_BYTES);
  } catch (error) {
    if (errnoCode(error) !== undefined) return undefined;
    throw new Error(`the session lock ${file} is not a lock file: ${errorMessage(error)}`);
  }
}

/** A lock written before start times were kept holds the pid alone. */
function ownerIn(text: string | undefined): LockOwner | undefined {
  if (text === undefined) return undefined;
  const [pid, started] = text
    .trim()
    .split(/\s+/)
    .map((field) => Number.parseInt(field, 10));
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, started: Number.isInteger(started) ? started : undefined };
}

/** Whether the owner still runs: its pid is alive and, where both start times are known, they match. */
function isRunning(owner: LockOwner): boolean {
  if (!isAlive(owner.pid)) return false;
  const started = procStat(owner.pid)?.started;
  return owner.started === undefined || started === undefined || started === owner.started;
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
