import { readdirSync, readFileSync } from 'node:fs';

/**
 * What Linux's /proc says of processes. Elsewhere, or where /proc cannot be read, nothing:
 * callers use it to find more than they were told, never as the only way to know.
 */

/** The pids /proc lists now. */
export function procPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

export interface ProcStat {
  /** `R`, `S`, `T` (stopped), `Z` (zombie: exited, not yet reaped)... */
  state: string;
  parent: number;
  group: number;
  /** The session: the pid of its leader (a run started with setsid leads its own). */
  session: number;
  /** When it started, in clock ticks after boot: with the pid, tells it from a later process given the same pid. */
  started: number;
}

/** A process's state, parent, process group and start time, or undefined when it is gone. */
export function procStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // After the parenthesised command name (which may hold blanks): state, parent pid, group, session; the 20th is the start time.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [state, parent, group, session] = fields;
    return { state, parent: Number(parent), group: Number(group), session: Number(session), started: Number(fields[19]) };
  } catch {
    return undefined;
  }
}

let ownStarting: NodeJS.ProcessEnv | undefined;

/**
 * The environment this process started with, as any process of the user reads it in
 * /proc/self/environ (never what it set since); empty where /proc does not say.
 */
export function ownStartingEnvironment(): NodeJS.ProcessEnv {
  if (ownStarting) return ownStarting;
  ownStarting = {};
  try {
    for (const entry of readFileSync('/proc/self/environ', 'utf8').split('\0')) {
      const split = entry.indexOf('=');
      if (split > 0) ownStarting[entry.slice(0, split)] = entry.slice(split + 1);
    }
  } catch {
    // Not Linux: nothing is known to be shown already.
  }
  return ownStarting;
}
