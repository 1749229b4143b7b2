import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The resident memory of a running process, in MiB (0 once it is gone). */
function residentMiB(pid: number | undefined): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs `start` (which reports the child it spawns), sampling the child's resident memory and
 * killing it past 1.5 GiB: a regression must not exhaust the shared machine. The result, the
 * peak in MiB, and whether it was killed.
 */
export async function watchingPeakMemory<R>(
  start: (onSpawn: (child: ChildProcess) => void) => Promise<R>,
): Promise<{ result: R; peakMiB: number; killed: boolean }> {
  let peakMiB = 0;
  let killed = false;
  let watchdog: NodeJS.Timeout | undefined;
  try {
    const result = await start((child) => {
      watchdog = setInterval(() => {
        peakMiB = Math.max(peakMiB, residentMiB(child.pid));
        if (peakMiB > 1536 && !killed) {
          killed = true;
          child.kill('SIGKILL');
        }
      }, 50);
    });
    return { result, peakMiB, killed };
  } finally {
    clearInterval(watchdog);
  }
}
