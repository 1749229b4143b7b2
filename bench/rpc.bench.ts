import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { rpcHookDefinitions } from '../src/core/hooks/handlers/rpc/rpc-hook-definitions';
import { RpcHookHandler } from '../src/core/hooks/handlers/rpc/rpc-hook-handler';
import { RpcServerPool } from '../src/core/hooks/handlers/rpc/rpc-server-pool';
import type { HookDefinition, HookPayload, ServerDefinition } from '../src/core/hooks/types';
import { percentiles, type BenchRow, type BenchSuite } from './types';

// Both processes JIT-compile the hot path; with a short warm-up the first samples measure that.
const WARMUP = 1000;
const ITERATIONS = 1000;

async function waitReady(pool: RpcServerPool, name: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const status = pool.status(name);
    if (status?.state === 'ready') return;
    if (status?.state === 'failed') throw new Error(status.lastError);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`rpc server ${name} did not become ready`);
}

async function measure(iterations: number, once: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await once();
    samples.push((performance.now() - t0) * 1000);
  }
  return samples;
}

// The example policy server: a real Node process deciding on a real PreToolUse payload.
const suite: BenchSuite = {
  title: 'rpc hooks',
  async run(): Promise<BenchRow[]> {
    const projectDir = mkdtempSync(join(tmpdir(), 'hookpilot-rpc-bench-'));
    const server: ServerDefinition = {
      name: 'policy',
      command: [process.execPath, resolve(__dirname, '../examples/rpc-policy-server/server.js')],
      observe: [],
      intercept: [],
      enabled: true,
      priority: 0,
      source: { kind: 'cli' },
    };
    const pool = new RpcServerPool({ projectDir });
    try {
      await pool.sync([server]);
      await waitReady(pool, server.name);
      const hooks = rpcHookDefinitions(server, pool.capabilities(server.name));
      const hook = (event: string): HookDefinition => {
        const found = hooks.find((h) => h.event === event);
        if (!found) throw new Error(`no ${event} hook`);
        return found;
      };
      const handler = new RpcHookHandler(pool);
      const signal = new AbortController().signal;
      const payload = (event: 'PreToolUse' | 'PostToolUse'): HookPayload => ({
        hook_event_name: event,
        session_id: 'bench',
        transcript_path: join(projectDir, 'transcript.jsonl'),
        cwd: projectDir,
        tool_name: 'Bash',
        tool_input: { command: 'git status && ls -la src' },
        tool_use_id: 'toolu_bench',
      });
      const invoke = (h: HookDefinition, body: HookPayload) => async () => {
        const outcome = await handler.run({ hook: h, payload: body, signal, timeoutMs: 5000, projectDir });
        if (outcome.status !== 'success') throw new Error(`bench hook failed: ${outcome.status}`);
      };

      const intercept = invoke(hook('PreToolUse'), payload('PreToolUse'));
      await measure(WARMUP, intercept);
      const roundTrip = percentiles(await measure(ITERATIONS, intercept));

      const observe = invoke(hook('PostToolUse'), payload('PostToolUse'));
      await measure(WARMUP, observe);
      const notify = percentiles(await measure(ITERATIONS, observe));

      return [
        { name: 'rpc intercept round trip (PreToolUse)', unit: 'us', ...roundTrip, target: 'p50 <= 500 us', ok: roundTrip.p50 <= 500 },
        { name: 'rpc observe notification (send only)', unit: 'us', ...notify },
      ];
    } finally {
      await pool.dispose();
      rmSync(projectDir, { recursive: true, force: true });
    }
  },
};

export default suite;
