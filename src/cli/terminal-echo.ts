import { spawnSync } from 'node:child_process';

/** Turns the terminal's echo of typed characters off for a secret and on again after it. */
export interface TerminalEcho {
  off(): void;
  on(): void;
}

/**
 * The echo of the terminal on this process's stdin, switched with `stty` (the line discipline
 * stays as it is: lines, erase, Ctrl-C). If the process exits while echo is off, it is turned
 * back on first. Where `stty` cannot run (Windows), what is typed is shown.
 */
export function sttyEcho(): TerminalEcho {
  const stty = (setting: string) => spawnSync('stty', [setting], { stdio: ['inherit', 'ignore', 'ignore'] });
  const restore = () => stty('echo');
  return {
    off() {
      if (stty('-echo').status === 0) process.once('exit', restore);
    },
    on() {
      process.removeListener('exit', restore);
      restore();
    },
  };
}
