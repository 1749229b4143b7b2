import { execFile } from 'node:child_process';

const probes = new Map<string, Promise<boolean>>();

/**
 * Whether `shell -c 'cmd'` forks to run a single command (dash) rather than exec'ing it
 * (bash, which then leaves no shell between the host and the command). A shell that evals
 * a command line always forks, so it stands for `sh -c` only when `sh -c` forks too: same
 * parent pid for the command, and a death by signal reported the same way. Asked once.
 */
export function shellForksSingleCommands(shell: string): Promise<boolean> {
  let probe = probes.get(shell);
  if (!probe) {
    probe = new Promise<boolean>((resolve) => {
      // The inner shell prints its parent: the outer shell if it forked, this process if it exec'd.
      const child = execFile(shell, ['-c', `${shell} -c 'echo $PPID'`], { timeout: 5_000 }, (error, stdout) => {
        resolve(!error && child.pid !== undefined && Number(stdout.trim()) === child.pid);
      });
    });
    probes.set(shell, probe);
  }
  return probe;
}
