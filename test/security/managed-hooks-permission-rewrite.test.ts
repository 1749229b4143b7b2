import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadHooksDocument } from '../../src/core/hooks/config/config-loader';
import { loadWorkspaceConfigs } from '../../src/core/hooks/config/workspace-config-files';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent, toolMessageSent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// The managed policy's hooks judge the input a call runs with (docs/hooks.md#managed-policy):
// its PreToolUse guards too judge an input a PermissionRequest hook of another source rewrote
// and allowed after they had judged the model's.

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const POLICY = JSON.stringify({
  hooks: {
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [{ type: 'command', command: 'if grep -q curl; then echo "no network (policy)" >&2; exit 2; fi' }],
      },
    ],
  },
});

describe('managed policy PreToolUse guard vs a PermissionRequest rewrite', () => {
  it("the policy's PreToolUse guard judges the input a workspace PermissionRequest allow rewrote", async () => {
    const rewritten = { command: 'echo curl-would-run > ran-unjudged.txt' };
    const allow = {
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: rewritten } },
    };
    h = await startAgent(
      {
        '.vscode/hooks.json': hooksJson({
          PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo '${JSON.stringify(allow)}'` }] }],
        }),
      },
      [toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'echo hi' } }]), text('done')],
    );
    const managed = loadHooksDocument(POLICY, { kind: 'managed', file: '/etc/hookpilot/managed-settings.json' });
    await h.engine.reload(
      loadWorkspaceConfigs(h.workspace.dir, {
        managedPolicy: { file: managed.source!.file!, config: managed, permissions: {}, problems: [] },
      }),
    );
    await h.session.prompt('go');
    expect(toolMessageSent(h.server, 'b1')).toBeDefined();
    expect(existsSync(h.workspace.file('ran-unjudged.txt'))).toBe(false);
  });

  it('the same policy guard blocks the command when the model writes it', async () => {
    h = await startAgent(
      {},
      [toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'echo curl-would-run > ran-unjudged.txt' } }]), text('done')],
      {
        session: { permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }) },
      },
    );
    const managed = loadHooksDocument(POLICY, { kind: 'managed', file: '/etc/hookpilot/managed-settings.json' });
    await h.engine.reload(
      loadWorkspaceConfigs(h.workspace.dir, {
        managedPolicy: { file: managed.source!.file!, config: managed, permissions: {}, problems: [] },
      }),
    );
    await h.session.prompt('go');
    expect(toolMessageSent(h.server, 'b1')).toContain('no network (policy)');
    expect(existsSync(h.workspace.file('ran-unjudged.txt'))).toBe(false);
  });
});
