import { benchPayload } from './bench-payload';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HookDispatcher } from '../src/core/hooks/dispatcher';
import { BuiltinHookHandler } from '../src/core/hooks/handlers/builtin-handler';
import { CommandHookHandler } from '../src/core/hooks/handlers/command-handler';
import { HookRegistry } from '../src/core/hooks/registry';
import type { HookDefinition, HookHandler } from '../src/core/hooks/types';
import { directProcessRunner, LocalProcessRunner, type ProcessRunner } from '../src/core/process/process-runner';
import type { RunProcessOptions } from '../src/core/process/run-process';
import { SpawnerPool } from '../src/core/process/spawner/spawner-pool';

/**
 * Run as its own process (`node --import tsx bench/command-hooks-host.ts BALLAST_MB`): a host
 * holding BALLAST_MB of live heap, as an extension host does, dispatching two no-op command
 * hooks (spawned on demand from itself, from itself with prestarted shells, and through the
 * spawner helpers) against a bare spawn of the same script: exec'd directly, no shell.
 * Prints the samples as JSON.
 */
const ROUNDS = 210;
const WARMUP = 10;
/**
 * Hooks do not come back to back: a model call or a tool runs between two dispatches. Every
 * variant is followed by the same pause, in which prestarted shells are started again.
 */
const BETWEEN_DISPATCHES_MS = 10;
const unused: HookHandler = { run: () => Promise.reject(new Error('unused')) };
const script = join(__dirname, '../test/fixtures/hooks/noop.sh');

/** Live objects the size of a busy host's heap: fork copies the page tables of all of it. */
function ballast(mb: number): unknown[] {
  return Array.from({ length: mb }, () => Array.from({ length: 1024 * 12 }, (_, i) => ({ i })));
}

function dispatcher(runner: ProcessRunner, dir: string): HookDispatcher {
  const registry = new HookRegistry({ trusted: true });
  const hook = (id: string): HookDefinition => ({
    id,
    name: id,
    event: 'PreToolUse',
    priority: 0,
    enabled: true,
    source: { kind: 'user' },
    spec: { type: 'command', command: `"${script}"` },
  });
  registry.load([hook('c1'), hook('c2')]);
  return new HookDispatcher({
    snapshot: () => registry.current(),
    handlers: { builtin: new BuiltinHookHandler(), command: new CommandHookHandler({ runner }), rpc: unused, http: unused },
    projectDir: dir,
  });
}

/** How long starting one process holds the host's thread (its event loop cannot run meanwhile). */
function blockedMs(runner: ProcessRunner, options: RunProcessOptions): { ms: number; done: Promise<unknown> } {
  const start = performance.now();
  const done = runner.run(options);
  return { ms: performance.now() - start, done };
}

async function main(): Promise<void> {
  const kept = ballast(Number(process.argv[2] ?? 0));
  const dir = mkdtempSync(join(tmpdir(), 'hookpilot-bench-'));
  const pool = new SpawnerPool({ modulePath: join(__dirname, '../dist/process-spawner.js') });
  const runners: Array<{ dispose(): void }> = [pool];
  try {
    pool.warmUp();
    for (const deadline = Date.now() + 10_000; !pool.ready; await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > deadline) throw new Error('dist/process-spawner.js did not start: run `npm run build`');
    }
    const payload = benchPayload(dir);
    const bareOptions: RunProcessOptions = {
      command: script,
      cwd: dir,
      env: process.env,
      input: JSON.stringify(payload),
      timeoutMs: 30_000,
    };
    const hookOptions: RunProcessOptions = { ...bareOptions, command: `"${script}"`, shell: true };
    const local = new LocalProcessRunner();
    runners.push(local);
    const onDemand = dispatcher(directProcessRunner, dir);
    const prestarted = dispatcher(local, dir);
    const viaPool = dispatcher(pool, dir);
    const samples = {
      bare: [] as number[],
      bareTwo: [] as number[],
      onDemand: [] as number[],
      prestarted: [] as number[],
      pool: [] as number[],
      blockedOnDemand: [] as number[],
      blockedPrestarted: [] as number[],
      blockedPool: [] as number[],
    };
    const time = async (fn: () => Promise<unknown>) => {
      const start = performance.now();
      await fn();
      const ms = performance.now() - start;
      await new Promise((r) => setTimeout(r, BETWEEN_DISPATCHES_MS));
      return ms;
    };
    const blocked = async (runner: ProcessRunner) => {
      const b = blockedMs(runner, hookOptions);
      await time(() => b.done);
      return b.ms;
    };
    // Interleaved, so a change in machine load hits every variant alike.
    for (let round = 0; round < ROUNDS; round++) {
      const bare = await time(() => directProcessRunner.run(bareOptions));
      const bareTwo = await time(() => Promise.all([directProcessRunner.run(bareOptions), directProcessRunner.run(bareOptions)]));
      const o = await time(() => onDemand.dispatch(payload));
      const l = await time(() => prestarted.dispatch(payload));
      const p = await time(() => viaPool.dispatch(payload));
      const bo = await blocked(directProcessRunner);
      const bl = await blocked(local);
      const bp = await blocked(pool);
      if (round < WARMUP) continue;
      samples.bare.push(bare);
      samples.bareTwo.push(bareTwo);
      samples.onDemand.push(o);
      samples.prestarted.push(l);
      samples.pool.push(p);
      samples.blockedOnDemand.push(bo);
      samples.blockedPrestarted.push(bl);
      samples.blockedPool.push(bp);
    }
    process.stdout.write(JSON.stringify({ rssMb: process.memoryUsage().rss / 1e6, heldItems: kept.length, ...samples }));
  } finally {
    for (const runner of runners) runner.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
