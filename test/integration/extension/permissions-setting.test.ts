import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stub } from '../../support/vscode-stub';
import { startHost, until, type HostHarness } from './extension-harness';

let h: HostHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('hookpilot.permissions in the extension', () => {
  it('relative additional directories resolve against the workspace folder; the mode comes from hookpilot.permissionMode', async () => {
    h = await startHost(
      {},
      {
        setup: () => {
          stub.setConfig(
            'hookpilot.permissions',
            { allow: ['Read'], deny: ['Bash(rm *)'], additionalDirectories: ['../shared', '/abs/dir'] },
            'globalValue',
          );
          stub.setConfig('hookpilot.permissionMode', 'plan', 'globalValue');
        },
      },
    );
    const config = h.root.engineHost['options'].config;
    expect(config.permissions(h.workspace.dir)).toEqual({
      mode: 'plan',
      allow: ['Read'],
      deny: ['Bash(rm *)'],
      ask: [],
      additionalDirectories: [path.resolve(h.workspace.dir, '../shared'), '/abs/dir'],
    });
  });

  it('an invalid value grants nothing (VS Code only warns about it): no rule and no directory of it applies', async () => {
    h = await startHost(
      {},
      { setup: () => stub.setConfig('hookpilot.permissions', { allow: 'Bash(*)', additionalDirectories: ['/'] }, 'globalValue') },
    );
    const config = h.root.engineHost['options'].config;
    expect(config.permissions(h.workspace.dir)).toEqual({ mode: 'default', allow: [], deny: [], ask: [], additionalDirectories: [] });
    expect(stub.state.logLines).toContainEqual({
      level: 'warn',
      message: expect.stringMatching(/^user settings: "hookpilot\.permissions\.allow": /),
    });
  });

  it('a deny rule that does not parse is kept and denies its whole tool, with a warning naming it', async () => {
    h = await startHost(
      {},
      { setup: () => stub.setConfig('hookpilot.permissions', { deny: ['Read(.env)', 'Bash(rm -rf *'] }, 'globalValue') },
    );
    const config = h.root.engineHost['options'].config;
    expect(config.permissions(h.workspace.dir)).toMatchObject({ deny: ['Read(.env)', 'Bash(rm -rf *'] });
    const said =
      'user settings: "hookpilot.permissions.deny.1": "Bash(rm -rf *" is not a rule like Bash(git *); as it stands it denies every Bash call.';
    expect(stub.state.logLines).toContainEqual({ level: 'warn', message: said });
    expect(stub.state.messages).toContainEqual(expect.objectContaining({ level: 'warning', message: `Hookpilot: ${said}` }));
  });

  const USER = { allow: ['Read'], deny: ['Bash(rm *)'] };
  const held = () => h?.root.engineHost.pendingChanges ?? [];
  const permissionWarnings = () => stub.state.logLines.filter((l) => l.level === 'warn' && l.message.includes('hookpilot.permission'));

  it("the workspace's lists add to the user's: its empty deny list does not erase the user's deny rules", async () => {
    h = await startHost(
      {},
      {
        setup: () => {
          stub.setConfig('hookpilot.permissions', USER, 'globalValue');
          stub.setConfig('hookpilot.permissionMode', 'plan', 'globalValue');
          stub.setConfig('hookpilot.permissions', { deny: [], allow: ['Bash(npm test)'], additionalDirectories: ['/'] }, 'workspaceValue');
        },
      },
    );
    const config = h.root.engineHost['options'].config;
    expect(config.permissions(h.workspace.dir)).toEqual({
      mode: 'plan',
      allow: ['Read', 'Bash(npm test)'],
      deny: ['Bash(rm *)'],
      ask: [],
      // `/` would open the home folder: a workspace's settings may not add it.
      additionalDirectories: [],
    });
    expect(stub.state.logLines).toContainEqual({
      level: 'warn',
      message: expect.stringMatching(/^workspace settings: the additional directory "\/" is not used/),
    });
    // The workspace's mode, when it sets one, is the mode (as any setting's workspace value).
    stub.setConfig('hookpilot.permissionMode', 'acceptEdits', 'workspaceValue');
    await until(() => held().length > 0, 'the held settings change');
    expect(config.permissions(h.workspace.dir).mode).toBe('plan');
    await h.root.engineHost.applyPending(held()[0].id);
    expect(config.permissions(h.workspace.dir)).toMatchObject({ mode: 'acceptEdits', deny: ['Bash(rm *)'] });
    // A person sees that the workspace chose the mode, once.
    config.permissions(h.workspace.dir);
    const told = stub.state.messages.filter((m) => m.message.includes('the permission mode is acceptEdits (your settings: plan)'));
    expect(told).toEqual([expect.objectContaining({ level: 'warning' })]);
  });

  it("an invalid workspace value is dropped alone, said once in the log: the user's rules and mode still apply", async () => {
    h = await startHost(
      {},
      {
        setup: () => {
          stub.setConfig('hookpilot.permissions', USER, 'globalValue');
          stub.setConfig('hookpilot.permissionMode', 'plan', 'globalValue');
          stub.setConfig('hookpilot.permissions', { ask: 'oops', allow: ['Bash(*)'] }, 'workspaceValue');
          stub.setConfig('hookpilot.permissionMode', 'yolo', 'workspaceValue');
        },
      },
    );
    const config = h.root.engineHost['options'].config;
    const expected = { mode: 'plan', ...USER, ask: [], additionalDirectories: [] };
    expect(config.permissions(h.workspace.dir)).toEqual(expected);
    expect(config.permissions(h.workspace.dir)).toEqual(expected);
    expect(permissionWarnings().map((l) => l.message)).toEqual([
      expect.stringMatching(/^workspace settings: "hookpilot\.permissions\.ask": .* is ignored/),
      expect.stringMatching(/^workspace settings: "hookpilot\.permissionMode": .* is ignored/),
    ]);
  });

  it('the applied copy of the workspace settings adds to the user rules; a change no person made is held out', async () => {
    h = await startHost(
      {},
      {
        setup: () => {
          stub.setConfig('hookpilot.permissions', USER, 'globalValue');
          stub.setConfig('hookpilot.permissions', { deny: ['Read(.env)'] }, 'workspaceValue');
        },
      },
    );
    stub.setConfig('hookpilot.permissions', { deny: [], allow: ['Bash(*)'] }, 'workspaceValue');
    await until(() => held().length > 0, 'the held settings change');
    const config = h.root.engineHost['options'].config;
    expect(config.permissions(h.workspace.dir)).toMatchObject({ allow: ['Read'], deny: ['Bash(rm *)', 'Read(.env)'] });
  });

  it('an untrusted workspace adds nothing, and its bad value takes nothing away', async () => {
    h = await startHost(
      {},
      {
        trusted: false,
        setup: () => {
          stub.setConfig('hookpilot.permissions', USER, 'globalValue');
          stub.setConfig('hookpilot.permissions', { ask: 'oops', allow: ['Bash(*)'], additionalDirectories: ['/'] }, 'workspaceValue');
        },
      },
    );
    const config = h.root.engineHost['options'].config;
    expect(config.permissions(h.workspace.dir)).toEqual({ mode: 'default', ...USER, ask: [], additionalDirectories: [] });
    expect(permissionWarnings()).toEqual([]);
  });
});
