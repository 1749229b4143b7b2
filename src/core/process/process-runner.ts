import { runProcess, type ProcessResult, type RunProcessOptions } from './run-process';

/** Runs one short-lived process to completion: in this process, or in a spawner helper. */
export interface ProcessRunner {
  run(options: RunProcessOptions): Promise<ProcessResult>;
}

/** Forks from the calling process itself. */
export const directProcessRunner: ProcessRunner = { run: runProcess };
