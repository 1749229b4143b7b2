import { existsSync } from 'node:fs';
import type { ProcessRunner } from '../../src/core/process/process-runner';
import { PrestartedShells } from '../../src/core/process/prestarted-shells';
import { runProcess, type ProcessResult, type RunProcessOptions } from '../../src/core/process/run-process';

/** Resolves once `shells` has a waiting shell; throws after `withinMs`. */
export async function untilWaiting(shells: PrestartedShells, count = 1, withinMs = 5_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (shells.waiting < count) {
    if (Date.now() > deadline) throw new Error(`no ${count} prestarted shell(s) after ${withinMs} ms (waiting: ${shells.waiting})`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Runs every shell command through a prestarted shell: a no-op run with the same directory
 * and environment first, so a shell waits for exactly this request, and fails loudly when
 * the run does not take it.
 */
export class ThroughPrestartedShell implements ProcessRunner {
  readonly shells = new PrestartedShells();

  async run(options: RunProcessOptions): Promise<ProcessResult> {
    const fits = options.shell === true && !options.args?.length && !options.command.includes('\n') && existsSync(options.cwd);
    if (!fits) return runProcess(options, this.shells);
    await runProcess({ command: 'true', shell: true, cwd: options.cwd, env: options.env }, this.shells);
    await untilWaiting(this.shells);
    const before = this.shells.waiting;
    const result = runProcess(options, this.shells);
    if (!options.signal?.aborted && this.shells.waiting !== before - 1) throw new Error('the run did not take the waiting shell');
    return result;
  }

  dispose(): void {
    this.shells.dispose();
  }
}
