import type { Disposable } from '../events-emitter';
import { PrestartedShells } from './prestarted-shells';
import { runProcess, type ProcessResult, type RunProcessOptions } from './run-process';

/** Runs one short-lived process to completion: in this process, or in a spawner helper. */
export interface ProcessRunner {
  run(options: RunProcessOptions): Promise<ProcessResult>;
}

/** Forks from the calling process itself, each time. */
export const directProcessRunner: ProcessRunner = { run: (options) => runProcess(options) };

/** Forks from the calling process, ahead of need where it can (see PrestartedShells). */
export class LocalProcessRunner implements ProcessRunner, Disposable {
  private readonly shells = new PrestartedShells();

  run(options: RunProcessOptions): Promise<ProcessResult> {
    return runProcess(options, this.shells);
  }

  dispose(): void {
    this.shells.dispose();
  }
}
