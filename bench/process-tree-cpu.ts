import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times: 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

interface ProcessCpu {
  /** This process's own user + system time, ms. */
  own: number;
  /** What its children that already exited and were waited for used, ms. */
  reaped: number;
  children: number[];
}

function processCpu(pid: number): ProcessCpu | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (...values: string[]) => (values.reduce((sum, v) => sum + Number(v), 0) * 1000) / TICKS_PER_SECOND;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    return { own: ms(fields[11], fields[12]), reaped: ms(fields[13], fields[14]), children };
  } catch {
    return undefined;
  }
}

/**
 * CPU time used so far by a process and everything it started (helpers, shells, hook scripts):
 * the machine's work for a session, which unlike wall time does not depend on how busy the
 * machine is. Undefined where /proc does not say (not Linux) or once the process is gone.
 */
export function processTreeCpuMs(pid: number): number | undefined {
  const root = processCpu(pid);
  if (!root) return undefined;
  let total = root.own + root.reaped;
  const pending = [...root.children];
  for (let child = pending.pop(); child !== undefined; child = pending.pop()) {
    const cpu = processCpu(child);
    if (!cpu) continue;
    total += cpu.own + cpu.reaped;
    pending.push(...cpu.children);
  }
  return total;
}

/** Mean CPU per step between two steps, from one sample per step (index = step). */
export function cpuPerStep(samples: ReadonlyArray<number | undefined>, from: number, to: number): number | undefined {
  const start = samples[from];
  const end = samples[Math.min(to, samples.length - 1)];
  if (start === undefined || end === undefined || to <= from) return undefined;
  return (end - start) / (Math.min(to, samples.length - 1) - from);
}
