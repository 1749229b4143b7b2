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
