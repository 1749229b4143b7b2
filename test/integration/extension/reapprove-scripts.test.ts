import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostToManager } from '../../../src/shared/manager-protocol';
import { text } from '../../support/model-server';
import { stub, type FakeWebview } from '../../support/vscode-stub';
import { hooksJson } from '../../support/workspace';
import { startChat, until, type ChatHarness } from './extension-harness';

type HooksMessage = Extract<HostToManager, { type: 'hooks' }>;

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const lastHooks = (webview: FakeWebview) => webview.ofType<HooksMessage>('hooks').at(-1)?.hooks;

describe('Hook Manager: a hook whose script changed', () => {
  it('shows the change on its row, fails instead of running, and runs again once re-approved', async () => {
    h = await startChat(
      {
        'hooks/note.js': `process.stdout.write('v1');`,
        '.vscode/hooks.json': hooksJson({
          UserPromptSubmit: [{ hooks: [{ type: 'command', name: 'note', command: 'node hooks/note.js' }] }],
        }),
      },
      [text('first'), text('second')],
    );
    await stub.state.commands.get('hookpilot.openHookManager')?.();
    const webview = stub.state.panels[0].webview;
    webview.send({ type: 'ready' });
    const row = await until(() => lastHooks(webview)?.find((v) => v.name === 'note'), 'the note hook');
    expect(row.scriptChanged).toBeUndefined();

    writeFileSync(h.workspace.file('hooks/note.js'), `require('fs').writeFileSync('ran-v2', 'x');`);
    await h.prompt('one');
    const changed = await until(() => lastHooks(webview)?.find((v) => v.id === row.id && v.runCount === 1), 'the failed run');
    expect(changed).toMatchObject({
      scriptChanged: 'script changed since it was approved: hooks/note.js',
      lastResult: { status: 'error' },
    });

    webview.send({ type: 'approveScripts', id: row.id });
    await until(() => lastHooks(webview)?.find((v) => v.id === row.id && v.scriptChanged === undefined), 'the re-approved row');
    await h.prompt('two');
    const ran = await until(() => lastHooks(webview)?.find((v) => v.id === row.id && v.runCount === 2), 'the second run');
    expect(ran.lastResult?.status).toBe('success');
  });
});
