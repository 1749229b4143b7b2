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

/** Same-user processes (never this one) for which `test` holds. */
function ownProcesses(test: (pid: number) => boolean): number[] {
  const uid = process.getuid?.();
  return procPids().filter((pid) => {
    if (pid === process.pid || !test(pid)) return false;
    try {
      return uid === undefined || statSync(`/proc/${pid}`).uid === uid;
    } catch {
      // Gone.
      return false;
    }
  });
}

/** Same-user processes (never this one) whose starting environment holds `entry`. */
export function markedProcesses(entry: string): number[] {
  return ownProcesses((pid) => carries(pid, entry));
}

/**
 * Same-user processes in session `sid`. A run starts as the leader of a session of its own;
 * job control (`set -m`) moves a job to a group of its own, and a subshell that never execs
 * holds only the environment its shell started with (no marker a line exported), but neither
 * leaves the session: only `setsid` does.
 */
export function sessionProcesses(sid: number): number[] {
  return ownProcesses((pid) => procStat(pid)?.session === sid);
}

/** Sends `name` to every process `markedProcesses` finds; how many it signalled. */
export function signalMarkedProcesses(entry: string, name: NodeJS.Signals): number {
  return markedProcesses(entry).filter((pid) => signal(pid, name)).length;
}

/** Sends `name` to every process of session `sid`. */
export function signalSessionProcesses(sid: number, name: NodeJS.Signals): void {
  for (const pid of sessionProcesses(sid)) signal(pid, name);
}

/**
 * Kills every process that carries `entry`. Each pass stops what it finds (a stopped process
 * forks no more), until a pass finds none: a chain whose every generation forks the next and
 * exits would otherwise outrun passes that kill, one child always being born after the scan.
 * Then every one stopped is killed. Synchronous, so it also runs as the host exits.
 */
export function killMarkedProcesses(entry: string): void {
  killFound(() => markedProcesses(entry));
}

/** Kills every process of session `sid`, as killMarkedProcesses does those it finds. */
export function killSessionProcesses(sid: number): void {
  killFound(() => sessionProcesses(sid));
}

function killFound(find: () => number[]): void {
  const stopped = new Set<number>();
  for (let pass = 0; pass < MAX_KILL_PASSES; pass++) {
    const found = find().filter((pid) => !stopped.has(pid) || isRunning(pid));
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
 * The process groups of one session's runs: what stays in them ends with the session, however
 * fast it forks (a chain whose generations each fork the next and exit outruns every scan, not
 * its group) and whatever it did to its environment. A number names the run's group only while
 * the group lives: once it has emptied, the number may soon be another program's group (pid_max
 * is often 32768). So a group counts as the run's only while it holds a process that started
 * no later than a moment it surely was the run's, or one that carries the session's marker; any
 * other is never signalled.
 */
export class RunGroups {
  /** Each group, and the latest start (clock ticks after boot) of a process known to have started while the group surely was the run's. */
  private readonly seen = new Map<number, number>();

  /** `entry`: the session's marker, in every process of its runs. */
  constructor(private readonly entry: string) {}

  /** Notes the group of a run that has just started: its first process, the group's leader. */
  started(pgid: number): void {
    const leader = procStat(pgid);
    if (leader?.group === pgid) this.seen.set(pgid, leader.started);
  }

  /**
   * Notes the group of a run that has just ended (all it holds is the run's), and moves on
   * the moment of each other group still shown to be the run's; forgets those that have
   * emptied (this one too, when it left nothing), as their numbers are free.
   */
  ended(pgid: number): void {
    for (const group of this.seen.keys()) if (!groupExists(group)) this.seen.delete(group);
    // Most runs leave nothing behind: then there is nothing to read in /proc, whose scan costs milliseconds.
    if (!groupExists(pgid)) return;
    const { latestStart, runs } = this.survey();
    this.seen.set(pgid, latestStart);
    for (const group of this.seen.keys()) if (runs.has(group)) this.seen.set(group, latestStart);
  }

  /**
   * Kills each group still the run's, whole and at once, then forgets them all. A pass may miss
   * a chain's members, each gone as soon as it is looked at: passes go on while a group that
   * exists has not been shown to be the run's. Synchronous, so it also runs as the host exits.
   * Returns the groups it signalled.
   */
  killAll(): number[] {
    const pending = new Set(this.seen.keys());
    const killed: number[] = [];
    for (let pass = 0; pass < MAX_KILL_PASSES && pending.size > 0; pass++) {
      const { runs } = this.survey();
      for (const group of pending) {
        if (runs.has(group) && signal(-group, 'SIGKILL')) killed.push(group);
        if (runs.has(group) || !groupExists(group)) pending.delete(group);
      }
    }
    this.seen.clear();
    return killed;
  }

  /**
   * The groups a process now shows to be still the run's, and the latest start of a process
   * read: a moment no later than the scan. Newest first: a chain's member is read before it is gone.
   */
  private survey(): { latestStart: number; runs: Set<number> } {
    const runs = new Set<number>();
    let latestStart = 0;
    for (const pid of procPids().reverse()) {
      const stat = procStat(pid);
      if (stat === undefined) continue;
      latestStart = Math.max(latestStart, stat.started);
      const seen = this.seen.get(stat.group);
      if (seen !== undefined && (stat.started <= seen || carries(pid, this.entry))) runs.add(stat.group);
    }
    return { latestStart, runs };
  }
}

/** Whether process group `pgid` has a process: the kernel knows at once, where a scan of /proc may miss a chain's members. */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    // Another user's process in it (a setuid program) still holds the number.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a host ends as it exits: each session's marked processes and the groups its runs started. */
const killedAtExit = new Map<string, RunGroups | undefined>();
const killAllAtExit = () => {
  for (const [entry, groups] of killedAtExit) {
    groups?.killAll();
    killMarkedProcesses(entry);
  }
};

/**
 * Kills the processes that carry `entry`, and the groups still in `groups`, when the host
 * exits (any exit: a second Ctrl-C, a fatal error), until disposed. A host killed by SIGKILL
 * runs nothing.
 */
export function killMarkedProcessesAtExit(entry: string, groups?: RunGroups): Disposable {
  if (killedAtExit.size === 0) process.on('exit', killAllAtExit);
  killedAtExit.set(entry, groups);
  return {
    dispose: () => {
      if (!killedAtExit.delete(entry) || killedAtExit.size > 0) return;
      process.off('exit', killAllAtExit);
    },
  };
}
