import { availableParallelism } from 'node:os';
import type { Disposable } from '../../events-emitter';
import type { ProcessRunner } from '../process-runner';
import type { ProcessResult, RunProcessOptions } from '../run-process';
import { SpawnerProcessRunner, type SpawnerProcessRunnerOptions } from './spawner-process-runner';

/** Two helpers let the two hooks of a typical group fork at the same time; more buys little. */
const MAX_HELPERS = 2;

/**
 * A few spawner helpers: one process forks one child at a time, so hooks that run in
 * parallel (a priority group) are spread over helpers, to the least busy ready one. Among
 * equally busy helpers the one used longest ago gets the run: a helper that just ran a
 * process is starting its replacement shell (a fork that holds its event loop), so
 * consecutive hooks (PreToolUse, then PostToolUse) do not queue behind that start.
 */
export class SpawnerPool implements ProcessRunner, Disposable {
  private readonly helpers: SpawnerProcessRunner[];
  /** helpers[i] last took a run at lastUsed[i] (a counter, not a clock). */
  private readonly lastUsed: number[];
  private runs = 0;

  constructor(options: SpawnerProcessRunnerOptions & { size?: number }) {
    const size = Math.max(1, options.size ?? Math.min(MAX_HELPERS, availableParallelism()));
    this.helpers = Array.from({ length: size }, () => new SpawnerProcessRunner(options));
    this.lastUsed = this.helpers.map(() => 0);
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
    const ready = this.helpers.map((_, i) => i).filter((i) => this.helpers[i].viaHelper);
    // None ready yet: the first helper spawns directly meanwhile (and starts itself).
    if (ready.length === 0) return this.helpers[0].run(options);
    const load = (i: number) => this.helpers[i].load;
    const chosen = ready.reduce((best, i) =>
      load(i) < load(best) || (load(i) === load(best) && this.lastUsed[i] < this.lastUsed[best]) ? i : best,
    );
    this.lastUsed[chosen] = ++this.runs;
    return this.helpers[chosen].run(options);
  }

  dispose(): void {
    for (const helper of this.helpers) helper.dispose();
  }
}
