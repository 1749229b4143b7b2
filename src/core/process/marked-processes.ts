import { readFileSync, statSync } from 'node:fs';
import type { Disposable } from '../events-emitter';
import { procPids, procStat } from './proc-stat';

/**
 * Processes found by a variable in their environment. A process group holds only what did
 * not leave it: `setsid`, `nohup ... &` under job control, a double fork or a daemon leave
 * the group, but every process keeps the environment it inherited (/proc/PID/environ), so a
 * variable set for a run finds all it started. A process that clears its environment
 * (`env -i`) is not found. Linux only: without /proc nothing is found.
 */

/** Set in every process of one session's Bash tool: its processes end with the session. */
export const SESSION_MARKER_VARIABLE = 'HOOKPILOT_BASH_SESSION';
/** Set in every process of one run: a run that timed out or was aborted ends them all. */
export const RUN_MARKER_VARIABLE = 'HOOKPILOT_RUN_ID';

/** A variable and its value, as /proc/PID/environ holds it. */
export function markerEntry(variable: string, value: string): string {
  return `${variable}=${value}`;
}

/** A run's environment: `env`, with RUN_MARKER_VARIABLE when the run has a marker. */
export function withRunMarker(run: { env: NodeJS.ProcessEnv; runMarker?: string }): NodeJS.ProcessEnv {
  return run.runMarker === undefined ? run.env : { ...run.env, [RUN_MARKER_VARIABLE]: run.runMarker };
}

/** Kill passes before giving up on a process that keeps forking: each pass finds what the last one missed. */
const MAX_KILL_PASSES = 20;

/** Same-user processes (never this one) whose starting environment holds `entry`. */
export function markedProcesses(entry: string): number[] {
  const uid = process.getuid?.();
  return procPids().filter((pid) => {
    if (pid === process.pid) return false;
    try {
      if (uid !== undefined && statSync(`/proc/${pid}`).uid !== uid) return false;
    } catch {
      // Gone.
      return false;
    }
    return carries(pid, entry);
  });
}

/** Sends `name` to every process `markedProcesses` finds; how many it signalled. */
export function signalMarkedProcesses(entry: string, name: NodeJS.Signals): number {
  return markedProcesses(entry).filter((pid) => signal(pid, name)).length;
}

/**
 * Kills every process that carries `entry`. Each pass stops what it finds (a stopped process
 * forks no more), until a pass finds none: a chain whose every generation forks the next and
 * exits would otherwise outrun passes that kill, one child always being born after the scan.
 * Then every one stopped is killed. Synchronous, so it also runs as the host exits.
 */
export function killMarkedProcesses(entry: string): void {
  const stopped = new Set<number>();
  for (let pass = 0; pass < MAX_KILL_PASSES; pass++) {
    const found = markedProcesses(entry).filter((pid) => !stopped.has(pid) || isRunning(pid));
    if (found.length === 0) break;
    for (const pid of found) {
      signal(pid, 'SIGSTOP');
      stopped.add(pid);
    }
  }
  for (const pid of stopped) signal(pid, 'SIGKILL');
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    // Exited meanwhile.
    return false;
  }
}

/** Whether a process is neither stopped nor a zombie (gone: not running either). */
function isRunning(pid: number): boolean {
  const state = procStat(pid)?.state;
  return state !== undefined && state !== 'T' && state !== 't' && state !== 'Z';
}

/** Whether a process's starting environment (NUL-separated NAME=value; a zombie's is empty) holds `entry`. */
function carries(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    return false;
  }
}

/**
 * Kills process group `pgid` when it is still one of `entry`'s: a chain whose generations each
 * fork the next and exit outruns every scan, but not its group. The group is stopped whole
 * first (all at once, so none forks meanwhile), then killed if a member carries `entry`, else
 * let go on: a number long free may name another group of the user's by now.
 */
export function killMarkedGroup(pgid: number, entry: string): void {
  if (pgid <= 1 || pgid === process.pid || !signal(-pgid, 'SIGSTOP')) return;
  const members = procPids().filter((pid) => procStat(pid)?.group === pgid);
  signal(-pgid, members.some((pid) => carries(pid, entry)) ? 'SIGKILL' : 'SIGCONT');
}

/** What a host ends as it exits: each session's marked processes and the groups its runs started. */
const killedAtExit = new Map<string, () => Iterable<number>>();
const killAllAtExit = () => {
  for (const [entry, groups] of killedAtExit) {
    for (const pgid of groups()) killMarkedGroup(pgid, entry);
    killMarkedProcesses(entry);
  }
};

/**
 * Kills the processes that carry `entry`, and the groups `groups` names that still hold one,
 * when the host exits (any exit: a second Ctrl-C, a fatal error), until disposed. A host
 * killed by SIGKILL runs nothing.
 */
export function killMarkedProcessesAtExit(entry: string, groups: () => Iterable<number> = () => []): Disposable {
  if (killedAtExit.size === 0) process.on('exit', killAllAtExit);
  killedAtExit.set(entry, groups);
  return {
    dispose: () => {
      if (!killedAtExit.delete(entry) || killedAtExit.size > 0) return;
      process.off('exit', killAllAtExit);
    },
  };
}
