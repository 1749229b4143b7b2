import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stub } from '../../support/vscode-stub';
import { startHost, type HostHarness } from './extension-harness';

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
  });
});
