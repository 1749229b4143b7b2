import { execFile } from 'node:child_process';

const answers = new Map<string, boolean>();

/**
 * Whether `shell -c 'cmd'` forks to run a single command (dash) rather than exec'ing it
 * (bash, which then leaves no shell between the host and the command). A shell that evals
 * a command line always forks, so it stands for `sh -c` only when `sh -c` forks too: same
 * parent pid for the command, and a death by signal reported the same way. A clear answer
 * is kept; undefined (the probe failed or timed out on a busy machine) means ask again later.
 */
export function shellForksSingleCommands(shell: string): Promise<boolean | undefined> {
  const known = answers.get(shell);
  if (known !== undefined) return Promise.resolve(known);
  return new Promise((resolve) => {
    try {
      // The inner shell prints its parent: the outer shell if it forked, this process if it exec'd.
      const child = execFile(shell, ['-c', `${shell} -c 'echo $PPID'`], { timeout: 5_000 }, (error, stdout) => {
        const parent = Number(stdout.trim());
        if (error || child.pid === undefined || !Number.isInteger(parent) || parent <= 0) return resolve(undefined);
        const forks = parent === child.pid;
        answers.set(shell, forks);
        resolve(forks);
      });
    } catch {
      resolve(undefined);
    }
  });
}
