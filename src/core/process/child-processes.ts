import { readdirSync, readFileSync } from 'node:fs';

/**
 * The pids whose parent is `parent`, read from /proc (Linux). Elsewhere, or when /proc cannot
 * be read, none: callers use this only as a fallback to what they were told.
 */
export function childProcessesOf(parent: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After the parenthesised command name come the state, then the parent pid.
      const parentPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parentPid === parent) children.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return children;
}
