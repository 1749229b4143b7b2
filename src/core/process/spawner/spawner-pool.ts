import { availableParallelism } from 'node:os';
import type { Disposable } from '../../events-emitter';
import type { ProcessRunner } from '../process-runner';
import type { ProcessResult, RunProcessOptions } from '../run-process';
import { SpawnerProcessRunner, type SpawnerProcessRunnerOptions } from './spawner-process-runner';

/** Two helpers let the two hooks of a typical group fork at the same time; more buys little. */
const MAX_HELPERS = 2;

/**
 * A few spawner helpers: one process forks one child at a time, so hooks that run in
 * parallel (a priority group) are spread over helpers, to the least busy ready one.
 */
export class SpawnerPool implements ProcessRunner, Disposable {
  private readonly helpers: SpawnerProcessRunner[];

  constructor(options: SpawnerProcessRunnerOptions & { size?: number }) {
    const size = Math.max(1, options.size ?? Math.min(MAX_HELPERS, availableParallelism()));
    this.helpers = Array.from({ length: size }, () => new SpawnerProcessRunner(options));
  }

  /** Whether every helper has started and takes runs. */
  get ready(): boolean {
    return this.helpers.every((h) => h.viaHelper);
  }

  warmUp(): void {
    for (const helper of this.helpers) helper.warmUp();
  }

  run(options: RunProcessOptions): Promise<ProcessResult> {
    // A helper that died is started again here, not only on the next reload.
    for (const helper of this.helpers) if (!helper.viaHelper) helper.warmUp();
    const ready = this.helpers.filter((h) => h.viaHelper);
    // None ready yet: the first helper spawns directly meanwhile (and starts itself).
    if (ready.length === 0) return this.helpers[0].run(options);
    const leastBusy = ready.reduce((best, h) => (h.load < best.load ? h : best));
    return leastBusy.run(options);
  }

  dispose(): void {
    for (const helper of this.helpers) helper.dispose();
  }
}
