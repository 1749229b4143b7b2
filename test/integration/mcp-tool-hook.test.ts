import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpToolHookHandler, templated } from '../../src/core/hooks/handlers/mcp-tool-handler';
import type { HandlerSpec, HookDefinition, HookOutcome } from '../../src/core/hooks/types';
import { loadMcpDocument } from '../../src/core/mcp/mcp-config';
import { McpManager } from '../../src/core/mcp/mcp-manager';
import { toolPayload } from '../support/hook-fixtures';

const FIXTURE = path.resolve(__dirname, '../fixtures/mcp/misbehaving-server.mjs');

let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

async function connected(servers: Record<string, unknown>): Promise<McpManager> {
  manager = new McpManager({ workspaceFolder: '/tmp', env: process.env, log: () => undefined });
  await manager.start([loadMcpDocument(JSON.stringify({ mcpServers: servers }), { kind: 'cli' })]);
  return manager;
}

function hook(spec: Record<string, unknown>): HookDefinition {
  return {
    id: 'h1',
    name: 'mcp hook',
    event: 'PreToolUse',
    priority: 0,
    enabled: true,
    source: { kind: 'cli' },
    spec: { type: 'mcp_tool', ...spec } as unknown as HandlerSpec,
  };
}

function run(
  handler: McpToolHookHandler,
  spec: Record<string, unknown>,
  signal = new AbortController().signal,
  timeoutMs = 5_000,
): Promise<HookOutcome> {
  return handler.run({
    hook: hook(spec),
    payload: toolPayload('PreToolUse', 'Write', { file_path: '/ws/secret.txt', content: 'x' }),
    signal,
    timeoutMs,
    projectDir: '/ws',
  });
}

describe('mcp_tool hooks', () => {
  it('templates input from the event and reads the tool text like command stdout (a JSON deny decides)', async () => {
    const handler = new McpToolHookHandler(() => manager);
    await connected({ guard: { command: process.execPath, args: [FIXTURE] } });
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: '${tool_input.file_path} is off limits',
      },
    });
    const outcome = await run(handler, { server: 'guard', tool: 'say', input: { text: deny } });
    expect(outcome).toMatchObject({ status: 'success', effects: { decision: 'deny', reason: '/ws/secret.txt is off limits' } });
  });

  it("cuts a long answer's texts as a command hook's are, and a deny quoting a huge input stays a deny", async () => {
    const handler = new McpToolHookHandler(() => manager);
    await connected({ guard: { command: process.execPath, args: [FIXTURE] } });
    const long = 'c'.repeat(200_000);
    const deny = JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: long },
    });
    const cut = await run(handler, { server: 'guard', tool: 'say', input: { text: deny } });
    expect(cut).toMatchObject({ status: 'success', effects: { decision: 'deny' } });
    const reason = cut.status === 'success' ? (cut.effects.reason ?? '') : '';
    expect(reason.length).toBeLessThan(10_000);
    const huge = 'p'.repeat(1_100_000);
    const quoting = JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: huge },
    });
    const denied = await run(handler, { server: 'guard', tool: 'say', input: { text: quoting } });
    expect(denied).toMatchObject({ status: 'success', effects: { decision: 'deny' } });
  });

  it('a server that is not connected, an isError result and a timeout are non-blocking errors', async () => {
    const handler = new McpToolHookHandler(() => manager);
    expect(await run(handler, { server: 'guard', tool: 'say', input: { text: '' } })).toMatchObject({
      status: 'error',
      error: expect.stringContaining('not connected'),
    });
    await connected({
      guard: { command: process.execPath, args: [FIXTURE] },
      down: { command: process.execPath, args: [FIXTURE], env: { MCP_FIXTURE_EXIT_AT_START: '1' } },
    });
    expect(await run(handler, { server: 'down', tool: 'say' })).toMatchObject({
      status: 'error',
      error: expect.stringContaining('refusing to start'),
    });
    expect(await run(handler, { server: 'guard', tool: 'fail' })).toMatchObject({
      status: 'error',
      error: expect.stringContaining('it went wrong'),
    });
    expect(await run(handler, { server: 'guard', tool: 'hang' }, new AbortController().signal, 200)).toMatchObject({ status: 'timeout' });
  });

  it('a whole-string reference keeps its type; an unknown path is empty', () => {
    const payload = toolPayload('PreToolUse', 'Edit', { file_path: '/a', replace_all: true });
    expect(
      templated(
        { all: '${tool_input.replace_all}', msg: 'edit ${tool_input.file_path} in ${cwd}${nope.x}', list: ['${tool_name}'] },
        payload,
      ),
    ).toEqual({
      all: true,
      msg: 'edit /a in /tmp',
      list: ['Edit'],
    });
    // Only own properties: a path cannot climb into prototypes.
    expect(templated('${tool_input.constructor}', payload)).toBe('');
  });
});
