import { afterEach, describe, expect, it, vi } from 'vitest';
import { actions } from '../../src/core/hooks/agent-hook';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent, toolMessageSent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// AstroResearch's advisory PermissionRequired from PostToolUse: recorded and shown, never blocking.

const bypass = { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) };
const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
const postHook = (output: unknown) =>
  hooksJson({ PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo '${JSON.stringify(output)}'` }] }] });
const required = (value: unknown) => ({ hookSpecificOutput: { hookEventName: 'PostToolUse', hookpilotPermissionRequired: value } });

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function records(harness: AgentHarness) {
  await harness.engine.dispatcher.drain(5_000);
  return (await harness.engine.audit.read(harness.session.id)).records;
}

describe('PermissionRequired (PostToolUse, advisory)', () => {
  it('a command hook reports it: the call still ran, its own audit record names the permission, the tool card shows it', async () => {
    h = await startAgent(
      { '.vscode/hooks.json': postHook(required({ permission: 'network access', tool_name: 'curl' })) },
      [bash('b1', 'echo fetched'), text('done')],
      { session: bypass },
    );
    const outcome = await h.session.prompt('fetch');
    expect(outcome.reason).toBe('completed');
    expect(outcome.toolCalls[0]).toMatchObject({ outcome: 'executed' });
    expect(toolMessageSent(h.server, 'b1')).toBe('fetched');
    const finished = h.events.find((e) => e.type === 'tool_finished');
    expect(finished).toMatchObject({
      hooks: expect.arrayContaining([
        expect.objectContaining({ kind: 'warning', event: 'PostToolUse', detail: 'needed permission: network access' }),
      ]),
    });
    expect(await records(h)).toContainEqual(
      expect.objectContaining({
        type: 'permission_required',
        tool_name: 'curl',
        tool_use_id: 'b1',
        permission: 'network access',
        hook_name: expect.stringContaining('echo'),
      }),
    );
  });

  it("an in-process hook reports it with actions.permissionRequired; the tool name defaults to the call's", async () => {
    h = await startAgent({}, [bash('b1', 'echo hi'), text('done')], { session: bypass });
    h.engine.addInProcessHook({ name: 'post-auditor', postToolUse: () => actions.permissionRequired('shell execution') });
    await h.session.prompt('run');
    await vi.waitFor(async () =>
      expect(await records(h!)).toContainEqual(
        expect.objectContaining({
          type: 'permission_required',
          tool_name: 'Bash',
          tool_use_id: 'b1',
          permission: 'shell execution',
          hook_name: 'post-auditor',
        }),
      ),
    );
  });

  it('a malformed report is a clear hook error, not a silent record', async () => {
    h = await startAgent({ '.vscode/hooks.json': postHook(required({ permission: '' })) }, [bash('b1', 'echo hi'), text('done')], {
      session: bypass,
    });
    const outcome = await h.session.prompt('run');
    expect(outcome.toolCalls[0]).toMatchObject({ outcome: 'executed' });
    const all = await records(h);
    expect(all.some((r) => r.type === 'permission_required')).toBe(false);
    expect(all).toContainEqual(
      expect.objectContaining({
        type: 'hook_run',
        event: 'PostToolUse',
        status: 'error',
        error: expect.stringContaining('hookpilotPermissionRequired'),
      }),
    );
  });
});
