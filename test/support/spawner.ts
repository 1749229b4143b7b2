import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SpawnerProcessRunner } from '../../src/core/process/spawner/spawner-process-runner';

export const SPAWNER_SOURCE = path.join(__dirname, '../../src/core/process/spawner/spawner-main.ts');
// Absolute, so the helper finds tsx whatever directory it starts in.
export const SPAWNER_EXEC_ARGV = ['--import', pathToFileURL(require.resolve('tsx')).href];

/** A spawner helper run from source through tsx, and a way to wait until runs go through it. */
export function startSpawnerFromSource(log?: (level: 'info' | 'warn', message: string) => void): {
  runner: SpawnerProcessRunner;
  ready(): Promise<void>;
} {
  const runner = new SpawnerProcessRunner({ modulePath: SPAWNER_SOURCE, execArgv: SPAWNER_EXEC_ARGV, log });
  return {
    runner,
    ready: () => untilViaHelper(runner),
  };
}

/** Warms the helper up and waits until runs go through it (a poll: the runner has no ready event). */
export async function untilViaHelper(runner: SpawnerProcessRunner): Promise<void> {
  runner.warmUp();
  const deadline = Date.now() + 20_000;
  while (!runner.viaHelper) {
    if (Date.now() > deadline) throw new Error('the spawner helper did not become ready');
    await new Promise((r) => setTimeout(r, 20));
  }
}
