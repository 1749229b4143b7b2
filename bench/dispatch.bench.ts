import { benchPayload } from './bench-payload';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentHookDefinitions } from '../src/core/hooks/agent-hook-definitions';
import type { AgentHook } from '../src/core/hooks/agent-hook';
import { HookDispatcher } from '../src/core/hooks/dispatcher';
import { BuiltinHookHandler } from '../src/core/hooks/handlers/builtin-handler';
import { HookRegistry } from '../src/core/hooks/registry';
import type { HookDefinition, HookHandler } from '../src/core/hooks/types';
import { percentiles, type BenchRow, type BenchSuite } from './types';

const unused: HookHandler = { run: () => Promise.reject(new Error('unused')) };

function engine(defs: HookDefinition[], builtin: BuiltinHookHandler, projectDir: string): HookDispatcher {
  const registry = new HookRegistry({ trusted: true });
  registry.load(defs);
  return new HookDispatcher({
    snapshot: () => registry.current(),
    handlers: { builtin, command: unused, rpc: unused, http: unused },
    projectDir,
  });
}

const payload = benchPayload;

/** Per-call cost in µs, measured in batches so the timer's own cost does not dominate. */
async function perCallMicros(fn: () => Promise<unknown>, batches: number, batchSize: number): Promise<number[]> {
  for (let i = 0; i < batchSize * 5; i++) await fn();
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const start = performance.now();
    for (let i = 0; i < batchSize; i++) await fn();
    samples.push(((performance.now() - start) * 1000) / batchSize);
  }
  return samples;
}

const suite: BenchSuite = {
  title: 'dispatch',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'hookpilot-bench-'));
    const rows: BenchRow[] = [];
    try {
      const p = payload(dir);
      const empty = engine([], new BuiltinHookHandler(), dir);
      const none = percentiles(await perCallMicros(() => empty.dispatch(p), 200, 1000));
      rows.push({ name: 'dispatch, no subscriber', unit: 'µs/call', ...none, target: '<= 2 µs', ok: none.p50 <= 2 });

      const builtin = new BuiltinHookHandler();
      const defs = Array.from({ length: 10 }, (_, i) => {
        const hook: AgentHook = { name: `b${i}`, preToolUse: () => (i === 3 ? { additionalContext: 'ctx' } : undefined) };
        const list = agentHookDefinitions(hook, { idPrefix: `b${i}`, source: { kind: 'builtin' } });
        for (const d of list) builtin.register(d.id, hook);
        return list;
      }).flat();
      const ten = engine(defs, builtin, dir);
      const tenStats = percentiles(await perCallMicros(() => ten.dispatch(p), 200, 200));
      rows.push({ name: 'dispatch, 10 in-process hooks', unit: 'µs/call', ...tenStats, target: 'p50 <= 50 µs', ok: tenStats.p50 <= 50 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  },
};

export default suite;
