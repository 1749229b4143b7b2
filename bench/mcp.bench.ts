import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AgentSession } from '../src/core/agent/agent-session';
import { OpenAIChatModel } from '../src/core/agent/llm/openai-chat-model';
import { denyingApprover } from '../src/core/agent/permissions/permission-settings';
import { HookEngine } from '../src/core/engine/hook-engine';
import { loadHooksValue } from '../src/core/hooks/config/config-loader';
import { loadMcpDocument } from '../src/core/mcp/mcp-config';
import { McpManager } from '../src/core/mcp/mcp-manager';
import { createMcpTool } from '../src/core/mcp/mcp-tool';
import { startModelServer, text, toolCalls, type RecordedRequest } from '../test/support/model-server';
import { percentiles, type BenchRow, type BenchSuite } from './types';

const CALLS = 30;
const SESSIONS = 3;
const NOOP_SCRIPT = resolve(__dirname, '../test/fixtures/hooks/noop.sh');
const MCP_SERVER = resolve(__dirname, '../test/fixtures/mcp/misbehaving-server.mjs');
const TWO_COMMAND_HOOKS = {
  hooks: {
    PreToolUse: [{ matcher: 'mcp__.*', hooks: [{ type: 'command', command: `"${NOOP_SCRIPT}"` }] }],
    PostToolUse: [{ matcher: 'mcp__.*', hooks: [{ type: 'command', command: `"${NOOP_SCRIPT}"` }] }],
  },
};

/** The server's echo tool until the conversation holds CALLS results, then a final answer. */
function script(request: RecordedRequest) {
  const done = request.body.messages.filter((m) => m.role === 'tool').length;
  return done < CALLS ? toolCalls([{ name: 'mcp__bench__echo', arguments: { text: 'hi' } }]) : text('done');
}

async function session(
  engine: HookEngine,
  tools: ReturnType<typeof createMcpTool>[],
  projectDir: string,
  baseURL: string,
): Promise<number[]> {
  const agent = new AgentSession({
    workspaceRoot: projectDir,
    model: new OpenAIChatModel({ baseURL, maxRetries: 0 }),
    modelName: 'scripted-model',
    dispatcher: engine.dispatcher,
    approver: denyingApprover,
    // The default mode: the allow rule for the server is what lets each call through the gate.
    permissions: () => ({ mode: 'default', allow: ['mcp__bench'], deny: [], ask: [], additionalDirectories: [] }),
    transcriptDir: join(projectDir, '.storage', 'transcripts'),
    maxSteps: CALLS + 5,
    extraTools: tools,
  });
  const perCall: number[] = [];
  agent.onEvent((e) => e.type === 'tool_finished' && e.outcome === 'executed' && perCall.push(e.durationMs));
  await agent.start('startup');
  await agent.prompt('echo thirty times');
  await agent.end();
  if (perCall.length !== CALLS) throw new Error(`the MCP bench session ran ${perCall.length} of ${CALLS} calls`);
  return perCall;
}

/**
 * One MCP tool call (a stdio server built on the SDK, its echo tool) through the whole gate:
 * with no hooks, and with a no-op command hook on PreToolUse and PostToolUse matching mcp__.*.
 */
const suite: BenchSuite = {
  title: 'MCP tool calls',
  async run(): Promise<BenchRow[]> {
    const server = await startModelServer(script);
    const projectDir = mkdtempSync(join(tmpdir(), 'hookpilot-mcp-bench-'));
    const manager = new McpManager({ workspaceFolder: projectDir, env: process.env, log: () => undefined });
    const engines = [
      new HookEngine({ projectDir, storageDir: join(projectDir, '.storage'), trusted: true }),
      new HookEngine({ projectDir, storageDir: join(projectDir, '.storage2'), trusted: true }),
    ];
    const samples: number[][] = [[], []];
    try {
      await manager.start([
        loadMcpDocument(JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [MCP_SERVER] } } }), { kind: 'cli' }),
      ]);
      const tools = manager.tools().map((info) => createMcpTool(info, manager));
      await engines[0].reload([loadHooksValue({}, { kind: 'cli' })]);
      await engines[1].reload([loadHooksValue(TWO_COMMAND_HOOKS, { kind: 'cli' })]);
      // The first round warms up; the setups take turns so machine load hits both.
      for (let round = 0; round <= SESSIONS; round++) {
        for (const [i, engine] of engines.entries()) {
          const perCall = await session(engine, tools, projectDir, server.url);
          if (round > 0) samples[i].push(...perCall);
        }
      }
    } finally {
      await manager.stop();
      for (const engine of engines) await engine.dispose();
      await server.close();
      rmSync(projectDir, { recursive: true, force: true });
    }
    const [bare, hooked] = samples.map((s) => percentiles(s));
    return [
      { name: 'one MCP tool call through the gate (stdio echo), no hooks', unit: 'ms', ...bare },
      { name: 'one MCP tool call through the gate, 2 command hooks (PreToolUse + PostToolUse)', unit: 'ms', ...hooked },
      { name: 'MCP: added by the 2 command hooks (p50 - no hooks p50)', unit: 'ms', value: hooked.p50 - bare.p50 },
    ];
  },
};

export default suite;
