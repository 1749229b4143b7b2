import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../../support/model-server';
import { stub } from '../../support/vscode-stub';
import { startChat, until, type ChatHarness } from './extension-harness';

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// The user's hook takes a while, then leaves a mark: a 1 ms timeout would kill it first.
const slowMark = {
  hooks: {
    UserPromptSubmit: [
      {
        hooks: [
          {
            type: 'command',
            name: 'user-slow',
            command: `node -e "setTimeout(() => require('fs').writeFileSync(process.env.CLAUDE_PROJECT_DIR + '/user-ran', 'x'), 300)"`,
          },
        ],
      },
    ],
  },
};

describe('Restricted Mode: the workspace settings govern nothing', () => {
  it('ignores the workspace hookTimeouts, builtins and permissionMode until the folder is trusted', async () => {
    h = await startChat({}, [toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'touch pwned' } }]), text('done')], {
      trusted: false,
      setup: () => {
        stub.setConfig('hookpilot.hooks', slowMark, 'globalValue');
        stub.setConfig('hookpilot.hookTimeouts', { command: 1, interceptor: 1 }, 'workspaceValue');
        stub.setConfig('hookpilot.builtins', { Cancellation: false }, 'workspaceValue');
        stub.setConfig('hookpilot.permissionMode', 'bypassPermissions', 'workspaceValue');
      },
    });
    const engine = h.root.engineHost.engine;
    expect(engine.registry.current().states.find((s) => s.hook.name === 'Cancellation')?.active).toBe(true);
    await h.prompt('go');
    expect(existsSync(h.workspace.file('user-ran'))).toBe(true);
    // Not bypassed: the Bash call needed a person, and nobody answered yes.
    expect(existsSync(h.workspace.file('pwned'))).toBe(false);

    // Trusted, the workspace's settings are read, but reach only its own hooks: Cancellation stays on.
    stub.setTrusted(true);
    await until(
      () => engine.problems.some((p) => p.code === 'workspace-only' && p.path === 'builtins.Cancellation'),
      'the workspace builtins read, and refused for the user side',
    );
    expect(engine.registry.current().states.find((s) => s.hook.name === 'Cancellation')?.active).toBe(true);
  });
});
