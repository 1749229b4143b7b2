import { setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AgentSession } from '../src/core/agent/agent-session';
import { OpenAIChatModel } from '../src/core/agent/llm/openai-chat-model';
import { denyingApprover } from '../src/core/agent/permissions/permission-settings';
import { HookEngine } from '../src/core/engine/hook-engine';
import { loadHooksValue } from '../src/core/hooks/config/config-loader';
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
}

const SETUPS: Setup[] = [
  { name: 'no hooks', config: {} },
  {
    name: '2 command hooks (PreToolUse + PostToolUse, exit 0)',
    config: { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `"${NOOP_SCRIPT}"` }] }], PostToolUse: [{ hooks: [{ type: 'command', command: `"${NOOP_SCRIPT}"` }] }] } },
  },
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
async function runSession(engine: HookEngine, projectDir: string, storageDir: string, baseURL: string): Promise<{ perCall: number[]; wallMs: number }> {
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
  // The openai SDK leaves one abort listener per request on the turn's signal; 30 requests are expected here.
  const controller = new AbortController();
  setMaxListeners(CALLS * 2, controller.signal);
  const outcome = await session.prompt('run true thirty times', controller.signal);
  const wallMs = performance.now() - started;
  await session.end();
  if (outcome.reason !== 'completed' || perCall.length !== CALLS) throw new Error(`bench session ended with ${outcome.reason} after ${perCall.length} calls: ${outcome.error ?? ''}`);
  return { perCall, wallMs };
}

/**
 * The cost of hooks on a real agent session: 30 Bash `true` calls against the scripted
 * model on 127.0.0.1, in-process AgentSession in bypassPermissions, with no hooks, with a
 * no-op command hook on PreToolUse and PostToolUse, and with an rpc server intercepting both.
 */
const suite: BenchSuite = {
  title: 'agent tool calls',
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const server = await startModelServer(script);
    const p50ByName = new Map<string, number>();
    try {
      for (const setup of SETUPS) {
        const projectDir = mkdtempSync(join(tmpdir(), 'hookpilot-agent-bench-'));
        const storageDir = join(projectDir, '.storage');
        const engine = new HookEngine({ projectDir, storageDir, trusted: true });
        try {
          await engine.reload([loadHooksValue(setup.config, { kind: 'cli' })]);
          if (setup.config.servers) await waitForRpc(engine);
          for (let i = 0; i < WARMUP_SESSIONS; i++) await runSession(engine, projectDir, storageDir, server.url);
          const perCall: number[] = [];
          let wall = 0;
          for (let i = 0; i < SESSIONS; i++) {
            const session = await runSession(engine, projectDir, storageDir, server.url);
            perCall.push(...session.perCall);
            wall += session.wallMs;
          }
          const { p50, p99 } = percentiles(perCall);
          p50ByName.set(setup.name, p50);
          rows.push({ name: `${setup.name}: one tool call`, unit: 'ms', p50, p99 });
          rows.push({ name: `${setup.name}: session wall time / call (with the model round trip)`, unit: 'ms', value: wall / (SESSIONS * CALLS) });
        } finally {
          await engine.dispose();
          rmSync(projectDir, { recursive: true, force: true });
        }
      }
    } finally {
      await server.close();
    }
    const bare = p50ByName.get(SETUPS[0].name) ?? 0;
    for (const setup of SETUPS.slice(1)) {
      const added = (p50ByName.get(setup.name) ?? 0) - bare;
      // The target is on what the hooks add to a call, not on the Bash tool's own spawn.
      const target = setup.name.startsWith('2 command') ? { target: `<= ${TARGET_MS} ms per call`, ok: added <= TARGET_MS } : {};
      rows.push({ name: `${setup.name}: added per call (p50 - no hooks p50)`, unit: 'ms', value: added, ...target });
    }
    return rows;
  },
};

export default suite;
