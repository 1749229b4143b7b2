import { benchPayload } from './bench-payload';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandHookHandler } from '../src/core/hooks/handlers/command-handler';
import type { HookInvocation } from '../src/core/hooks/types';
import { runProcess } from '../src/core/process/run-process';
import { percentiles, type BenchRow, type BenchSuite } from './types';

const WARMUP = 20;
const ITERATIONS = 200;
const MAX_RATIO = 1.5;

async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * The command handler's own overhead: a no-op script run through CommandHookHandler
 * against the same script spawned by a bare runProcess (both through `sh -c`).
 */
const suite: BenchSuite = {
  title: 'command hooks',
  async run(): Promise<BenchRow[]> {
    const noop = join(__dirname, '../test/fixtures/hooks/noop.sh');
    const projectDir = mkdtempSync(join(tmpdir(), 'hookpilot-bench-'));
    try {
      const handler = new CommandHookHandler();
      const invocation: HookInvocation = {
        hook: {
          id: 'bench',
          name: 'noop',
          event: 'PreToolUse',
          priority: 0,
          enabled: true,
          source: { kind: 'user' },
          spec: { type: 'command', command: `"${noop}"` },
        },
        payload: benchPayload(projectDir),
        signal: new AbortController().signal,
        timeoutMs: 30_000,
        projectDir,
      };
      const bare = () =>
        runProcess({
          command: `"${noop}"`,
          shell: true,
          cwd: projectDir,
          env: process.env,
          input: JSON.stringify(invocation.payload),
          timeoutMs: 30_000,
        });
      const hooked = () => handler.run(invocation);

      for (let i = 0; i < WARMUP; i++) {
        await bare();
        await hooked();
      }
      // Alternating keeps machine-load drift from favouring either side.
      const bareSamples: number[] = [];
      const hookedSamples: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) {
        bareSamples.push(await timeMs(bare));
        hookedSamples.push(await timeMs(hooked));
      }
      const b = percentiles(bareSamples);
      const h = percentiles(hookedSamples);
      const ratio = h.p50 / b.p50;
      return [
        { name: 'bare runProcess, no-op sh script', unit: 'ms', p50: b.p50, p99: b.p99 },
        { name: 'CommandHookHandler.run, same script', unit: 'ms', p50: h.p50, p99: h.p99 },
        {
          name: 'handler / bare spawn (p50; p99 column: p99 ratio)',
          unit: 'x',
          value: ratio,
          p99: h.p99 / b.p99,
          target: `<= ${MAX_RATIO}x bare spawn`,
          ok: ratio <= MAX_RATIO,
        },
      ];
    } finally {
      rmSync(projectDir, { recursive: true, force: true });
    }
  },
};

export default suite;
