import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, REPO_ROOT, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type RecordedRequest, type ScriptedReply } from '../support/model-server';

// An MCP server whose tool list changes while the CLI runs (notifications/tools/list_changed):
// the next model request offers the new list, and a tool no longer listed cannot be called.

const CHANGING = path.join(REPO_ROOT, 'test/fixtures/mcp/changing-tools-server.mjs');
const mcpJson = JSON.stringify({ mcpServers: { dyn: { command: process.execPath, args: [CHANGING] } } });
const call = (id: string, name: string, args: Record<string, unknown>): ScriptedReply => toolCalls([{ id, name, arguments: args }]);
const offered = (request: RecordedRequest) =>
  (request.body as { tools?: Array<{ function: { name: string } }> }).tools?.map((t) => t.function.name) ?? [];

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('an MCP server changes its tool list mid-session', () => {
  it('a tool added by a call is offered in the next request and runs through the gate; a removed one is gone', async () => {
    const script = [
      call('c1', 'mcp__dyn__add_tool', { name: 'shout' }),
      call('c2', 'mcp__dyn__shout', { text: 'hello' }),
      call('c3', 'mcp__dyn__remove_tool', { name: 'shout' }),
      call('c4', 'mcp__dyn__shout', { text: 'again' }),
      text('done'),
    ];
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson }, script);
    const result = jsonResult(await bed.run(['change the tools', '--allowed-tools', 'mcp__dyn', '--output-format', 'json']));

    const requests = bed.server.requests;
    expect(offered(requests[0])).not.toContain('mcp__dyn__shout');
    expect(offered(requests[1])).toContain('mcp__dyn__shout');
    expect(offered(requests[2])).toContain('mcp__dyn__shout');
    expect(offered(requests[3])).not.toContain('mcp__dyn__shout');
    expect(result.tool_calls.map((c) => [c.name, c.outcome])).toEqual([
      ['mcp__dyn__add_tool', 'executed'],
      ['mcp__dyn__shout', 'executed'],
      ['mcp__dyn__remove_tool', 'executed'],
      ['mcp__dyn__shout', 'failed'],
    ]);
    expect(toolMessageSent(bed.server, 'c2')).toContain('shout: hello');
    expect(toolMessageSent(bed.server, 'c4')).toContain('there is no tool named "mcp__dyn__shout"');
  });

  it('a new tool needs a rule like any other: without one it is denied headless', async () => {
    const script = [call('c1', 'mcp__dyn__add_tool', { name: 'wipe' }), call('c2', 'mcp__dyn__wipe', { text: 'all' }), text('done')];
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson }, script);
    const result = jsonResult(await bed.run(['change the tools', '--allowed-tools', 'mcp__dyn__add_tool', '--output-format', 'json']));
    expect(offered(bed.server.requests[1])).toContain('mcp__dyn__wipe');
    expect(result.tool_calls.map((c) => c.outcome)).toEqual(['executed', 'denied']);
  });

  it('--disallowed-tools keeps a tool the server adds later out of the list', async () => {
    const script = [call('c1', 'mcp__dyn__add_tool', { name: 'wipe' }), text('done')];
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson }, script);
    const args = ['change the tools', '--allowed-tools', 'mcp__dyn', '--disallowed-tools', 'mcp__dyn__wipe', '--output-format', 'json'];
    expect(jsonResult(await bed.run(args)).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    expect(offered(bed.server.requests[1])).toContain('mcp__dyn__add_tool');
    expect(offered(bed.server.requests[1])).not.toContain('mcp__dyn__wipe');
  });
});
