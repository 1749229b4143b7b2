import { procPids, procStat } from './proc-stat';

/**
 * The pids whose parent is `parent`, read from /proc (Linux). Elsewhere, or when /proc cannot
 * be read, none: callers use this only as a fallback to what they were told.
 */
export function childProcessesOf(parent: number): number[] {
  return procPids().filter((pid) => procStat(pid)?.parent === parent);
}
