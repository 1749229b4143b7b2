import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AgentSession } from '../src/core/agent/agent-session';
import { OpenAIChatModel } from '../src/core/agent/llm/openai-chat-model';
import { denyingApprover } from '../src/core/agent/permissions/permission-settings';
import { HookEngine } from '../src/core/engine/hook-engine';
import { loadHooksValue } from '../src/core/hooks/config/config-loader';
import { runProcess } from '../src/core/process/run-process';
import { startModelServer, text, toolCalls, type RecordedRequest } from '../test/support/model-server';
import { percentiles, type BenchRow, type BenchSuite } from './types';

const CALLS = 30;
const SESSIONS = 4;
const WARMUP_SESSIONS = 1;
const TARGET_MS = 15;

const NOOP_SCRIPT = resolve(__dirname, '../test/fixtures/hooks/noop.sh');
const NOOP_RPC_SERVER = resolve(__dirname, '../test/fixtures/cli/noop-rpc-server.js');

interface Setup {
  name: string;
  config: Record<string, unknown>;
  /** Command hooks through the spawner helpers, as the extension runs them (the CLI spawns directly). */
  spawnerHelpers?: boolean;
}

const TWO_COMMAND_HOOKS = {
  hooks: {
    PreToolUse: [{ hooks: [{ type: 'command', command: `"${NOOP_SCRIPT}"` }] }],
    PostToolUse: [{ hooks: [{ type: 'command', command: `"${NOOP_SCRIPT}"` }] }],
  },
};

const SETUPS: Setup[] = [
  { name: 'no hooks', config: {} },
  { name: '2 command hooks (PreToolUse + PostToolUse, exit 0), spawned directly (CLI)', config: TWO_COMMAND_HOOKS },
  { name: '2 command hooks, via the spawner helpers (extension)', config: TWO_COMMAND_HOOKS, spawnerHelpers: true },
  {
    name: '2 rpc hooks (PreToolUse + PostToolUse intercepts)',
    config: { servers: { noop: { command: [process.execPath, NOOP_RPC_SERVER], intercept: ['PreToolUse', 'PostToolUse'] } } },
  },
];

/** Bash `true` until the conversation holds CALLS tool results, then a final answer: the same script for every session. */
function script(request: RecordedRequest) {
  const done = request.body.messages.filter((m) => m.role === 'tool').length;
  return done < CALLS ? toolCalls([{ name: 'Bash', arguments: { command: 'true' } }]) : text('done');
}

async function waitForRpc(engine: HookEngine): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const status = engine.rpcPool.status('noop');
    if (status?.state === 'ready') return;
    if (status?.state === 'failed') throw new Error(status.lastError);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the noop rpc server did not become ready');
}

/** One session of CALLS tool calls: each call's duration (hooks, gate, the tool) and the session's wall time. */
async function runSession(
  engine: HookEngine,
  projectDir: string,
  storageDir: string,
  baseURL: string,
): Promise<{ perCall: number[]; wallMs: number }> {
  const session = new AgentSession({
    workspaceRoot: projectDir,
    model: new OpenAIChatModel({ baseURL, maxRetries: 0 }),
    modelName: 'scripted-model',
    dispatcher: engine.dispatcher,
    approver: denyingApprover,
    permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }),
    transcriptDir: join(storageDir, 'transcripts'),
    maxSteps: CALLS + 5,
    cancellation: engine.builtins.cancellation,
  });
  const perCall: number[] = [];
  session.onEvent((e) => {
    if (e.type === 'tool_finished') perCall.push(e.durationMs);
  });
  await session.start('startup');
  const started = performance.now();
  const controller = new AbortController();
  const outcome = await session.prompt('run true thirty times', controller.signal);
  const wallMs = performance.now() - started;
  await session.end();
  if (outcome.reason !== 'completed' || perCall.length !== CALLS)
    throw new Error(`bench session ended with ${outcome.reason} after ${perCall.length} calls: ${outcome.error ?? ''}`);
  return { perCall, wallMs };
}

/** The floor for a command hook: one spawn of the same no-op script, timed in the same rounds. */
async function bareSpawns(projectDir: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await runProcess({ command: `"${NOOP_SCRIPT}"`, shell: true, cwd: projectDir, env: process.env, input: '{}', timeoutMs: 30_000 });
    samples.push(performance.now() - started);
  }
  return samples;
}

interface Prepared extends Setup {
  engine: HookEngine;
  projectDir: string;
  storageDir: string;
  perCall: number[];
  wallMs: number;
}

/**
 * The cost of hooks on a real agent session: 30 Bash `true` calls against the scripted
 * model on 127.0.0.1, in-process AgentSession in bypassPermissions, with no hooks, with a
 * no-op command hook on PreToolUse and PostToolUse, and with an rpc server intercepting both.
 * The setups take turns session by session, so a change in machine load hits all of them.
 */
const suite: BenchSuite = {
  title: 'agent tool calls',
  async run(): Promise<BenchRow[]> {
    const server = await startModelServer(script);
    const prepared: Prepared[] = [];
    const spawns: number[] = [];
    try {
      for (const setup of SETUPS) {
        const projectDir = mkdtempSync(join(tmpdir(), 'hookpilot-agent-bench-'));
        const storageDir = join(projectDir, '.storage');
        // The helpers are the ones `npm run bench` builds.
        const engine = new HookEngine({
          projectDir,
          storageDir,
          trusted: true,
          spawnerModulePath: setup.spawnerHelpers ? join(__dirname, '../dist/process-spawner.js') : undefined,
        });
        prepared.push({ ...setup, engine, projectDir, storageDir, perCall: [], wallMs: 0 });
        await engine.reload([loadHooksValue(setup.config, { kind: 'cli' })]);
        if (setup.config.servers) await waitForRpc(engine);
      }
      for (let round = 0; round < WARMUP_SESSIONS + SESSIONS; round++) {
        for (const p of prepared) {
          const session = await runSession(p.engine, p.projectDir, p.storageDir, server.url);
          if (round < WARMUP_SESSIONS) continue;
          p.perCall.push(...session.perCall);
          p.wallMs += session.wallMs;
        }
        if (round >= WARMUP_SESSIONS) spawns.push(...(await bareSpawns(prepared[0].projectDir)));
      }
    } finally {
      for (const p of prepared) {
        await p.engine.dispose();
        rmSync(p.projectDir, { recursive: true, force: true });
      }
      await server.close();
    }

    const rows: BenchRow[] = [];
    const p50s = prepared.map((p) => percentiles(p.perCall).p50);
    for (const p of prepared) {
      rows.push({ name: `${p.name}: one tool call`, unit: 'ms', ...percentiles(p.perCall) });
      rows.push({
        name: `${p.name}: session wall time / call (with the model round trip)`,
        unit: 'ms',
        value: p.wallMs / (SESSIONS * CALLS),
      });
    }
    rows.push({ name: 'reference: one bare spawn of the no-op hook script', unit: 'ms', ...percentiles(spawns) });
    prepared.slice(1).forEach((p, i) => {
      const added = p50s[i + 1] - p50s[0];
      // The target is on what the hooks add to a call, not on the Bash tool's own spawn.
      const target = p.config === TWO_COMMAND_HOOKS ? { target: `<= ${TARGET_MS} ms per call`, ok: added <= TARGET_MS } : {};
      rows.push({ name: `${p.name}: added per call (p50 - no hooks p50)`, unit: 'ms', value: added, ...target });
    });
    return rows;
  },
};

export default suite;
