import { spawnSync } from 'node:child_process';

/** Turns the terminal's echo of typed characters off for a secret and on again after it. */
export interface TerminalEcho {
  off(): void;
  on(): void;
}

/** What ends the process without its `exit` event at a person's hand: Ctrl-\ (SIGQUIT), closing the terminal (SIGHUP). */
const ENDING_SIGNALS: NodeJS.Signals[] = ['SIGQUIT', 'SIGHUP'];

/**
 * The echo of the terminal on this process's stdin, switched with `stty` (the line discipline
 * stays as it is: lines, erase, Ctrl-C). If the process exits, or a signal above ends it, while
 * echo is off, it is turned back on first. Where `stty` cannot run (Windows), what is typed is shown.
 */
export function sttyEcho(): TerminalEcho {
  const stty = (setting: string) => spawnSync('stty', [setting], { stdio: ['inherit', 'ignore', 'ignore'] });
  const restore = () => stty('echo');
  const restoreAndEnd = (signal: NodeJS.Signals) => {
    on();
    // Its listener is gone: the signal now does what it would have done.
    process.kill(process.pid, signal);
  };
  const on = () => {
    process.removeListener('exit', restore);
    for (const signal of ENDING_SIGNALS) process.removeListener(signal, restoreAndEnd);
    restore();
  };
  return {
    off() {
      if (stty('-echo').status !== 0) return;
      process.once('exit', restore);
      for (const signal of ENDING_SIGNALS) process.once(signal, restoreAndEnd);
    },
    on,
  };
}
