import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpawnerProcessRunner } from '../src/core/process/spawner/spawner-process-runner';
import { processTreeCpuMs } from './process-tree-cpu';
import { percentiles, type BenchRow, type BenchSuite } from './types';

const WARMUP = 20;
const ITERATIONS = 200;
/** An editor's environment holds 50 to 100 variables; the bench's own holds what CI gives it. */
const EXTRA_VARIABLES = 40;

/**
 * A no-op command hook through a spawner helper, as the extension runs it, in a host whose
 * environment holds EXTRA_VARIABLES more variables, which the hook gets too: wall time and
 * CPU (this process, the helper and the shells) per run. A waiting shell reads its command
 * line one byte per system call, so what the line exports shows here.
 */
const suite: BenchSuite = {
  title: 'command hooks in a large environment',
  async run(): Promise<BenchRow[]> {
    const noop = join(__dirname, '../test/fixtures/hooks/noop.sh');
    const cwd = mkdtempSync(join(tmpdir(), 'hookpilot-bench-env-'));
    const added = Array.from({ length: EXTRA_VARIABLES }, (_, i) => `HOOKPILOT_BENCH_VALUE_${i}`);
    for (const name of added) process.env[name] = `/opt/bench/${name.toLowerCase()}/bin:/usr/local/share/${name}`;
    // Forked now, the helper starts with the larger environment, as it would in such a host.
    const runner = new SpawnerProcessRunner({ modulePath: join(__dirname, '../dist/process-spawner.js') });
    try {
      runner.warmUp();
      while (!runner.viaHelper) await new Promise((r) => setTimeout(r, 20));
      const env = { ...process.env, CLAUDE_PROJECT_DIR: cwd };
      const run = () => runner.run({ command: `"${noop}"`, shell: true, cwd, env, input: '{"hook_event_name":"PreToolUse"}' });
      for (let i = 0; i < WARMUP; i++) await run();
      const samples: number[] = [];
      const cpuBefore = processTreeCpuMs(process.pid);
      for (let i = 0; i < ITERATIONS; i++) {
        const started = performance.now();
        await run();
        samples.push(performance.now() - started);
      }
      const cpuAfter = processTreeCpuMs(process.pid);
      const rows: BenchRow[] = [
        {
          name: `no-op hook via a spawner helper, ${EXTRA_VARIABLES} more variables in the environment`,
          unit: 'ms',
          ...percentiles(samples),
        },
      ];
      if (cpuBefore !== undefined && cpuAfter !== undefined)
        rows.push({
          name: 'same: CPU per run (this process, the helper, the shells)',
          unit: 'ms',
          value: (cpuAfter - cpuBefore) / ITERATIONS,
        });
      return rows;
    } finally {
      runner.dispose();
      for (const name of added) delete process.env[name];
      rmSync(cwd, { recursive: true, force: true });
    }
  },
};

export default suite;
