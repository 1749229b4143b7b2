import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { Disposable } from '../events-emitter';

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
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (uid !== undefined && statSync(`/proc/${name}`).uid !== uid) continue;
      // NUL-separated NAME=value pairs; a zombie's reads as empty.
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) found.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Sends `signal` to every process `markedProcesses` finds; how many it signalled. */
export function signalMarkedProcesses(entry: string, signal: NodeJS.Signals): number {
  let signalled = 0;
  for (const pid of markedProcesses(entry)) {
    try {
      process.kill(pid, signal);
      signalled++;
    } catch {
      // Exited meanwhile.
    }
  }
  return signalled;
}

/**
 * SIGKILLs every process that carries `entry`, again while a pass still finds one (a child
 * forked between the scan and the kill carries it too). Synchronous, so it also runs as the
 * host exits.
 */
export function killMarkedProcesses(entry: string): void {
  for (let pass = 0; pass < MAX_KILL_PASSES; pass++) if (signalMarkedProcesses(entry, 'SIGKILL') === 0) return;
}

const killedAtExit = new Set<string>();
const killAllAtExit = () => {
  for (const entry of killedAtExit) killMarkedProcesses(entry);
};

/**
 * Kills the processes that carry `entry` when the host exits (any exit: a second Ctrl-C, a
 * fatal error), until disposed. A host killed by SIGKILL runs nothing.
 */
export function killMarkedProcessesAtExit(entry: string): Disposable {
  if (killedAtExit.size === 0) process.on('exit', killAllAtExit);
  killedAtExit.add(entry);
  return {
    dispose: () => {
      if (!killedAtExit.delete(entry) || killedAtExit.size > 0) return;
      process.off('exit', killAllAtExit);
    },
  };
}
