import { existsSync, writeFileSync } from 'node:fs';
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
const lastHooksCount = (webview: FakeWebview) => webview.ofType<HooksMessage>('hooks').length;

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
      scriptChanged: { files: ['hooks/note.js'], more: 0, fingerprint: expect.any(String) },
      lastResult: { status: 'error' },
    });

    webview.send({ type: 'approveScripts', id: row.id, fingerprint: changed.scriptChanged?.fingerprint ?? '' });
    await until(() => lastHooks(webview)?.find((v) => v.id === row.id && v.scriptChanged === undefined), 'the re-approved row');
    await h.prompt('two');
    const ran = await until(() => lastHooks(webview)?.find((v) => v.id === row.id && v.runCount === 2), 'the second run');
    expect(ran.lastResult?.status).toBe('success');
  });

  it('lists every changed file; a file rewritten after the row listed it is not approved: refused, said, and the row listed again', async () => {
    h = await startChat(
      {
        'hooks/note.js': `require('./lib.js'); process.stdout.write('v1');`,
        'hooks/lib.js': `module.exports = 1;`,
        '.vscode/hooks.json': hooksJson({
          UserPromptSubmit: [{ hooks: [{ type: 'command', name: 'note', command: 'node hooks/note.js' }] }],
        }),
      },
      [text('first'), text('second'), text('third')],
    );
    await stub.state.commands.get('hookpilot.openHookManager')?.();
    const webview = stub.state.panels[0].webview;
    webview.send({ type: 'ready' });
    const row = await until(() => lastHooks(webview)?.find((v) => v.name === 'note'), 'the note hook');

    // The agent edits the entry script harmlessly and the module beside it too.
    writeFileSync(h.workspace.file('hooks/note.js'), `require('./lib.js'); process.stdout.write('v2');`);
    writeFileSync(h.workspace.file('hooks/lib.js'), `module.exports = 2;`);
    await h.prompt('one');
    const listed = await until(() => lastHooks(webview)?.find((v) => v.id === row.id && v.runCount === 1), 'the failed run');
    expect(listed.scriptChanged).toMatchObject({ files: ['hooks/lib.js', 'hooks/note.js'], more: 0 });

    // After the person read both, the module is rewritten; the click comes with what the row listed.
    writeFileSync(
      h.workspace.file('hooks/lib.js'),
      `require('fs').writeFileSync(require('path').join(__dirname, '..', 'PWNED'), 'x'); module.exports = 3;`,
    );
    const posts = lastHooksCount(webview);
    webview.send({ type: 'approveScripts', id: row.id, fingerprint: listed.scriptChanged?.fingerprint ?? '' });
    const refusal = await until(() => stub.state.messages.find((m) => m.level === 'error'), 'the refusal');
    expect(refusal.message).toBe(
      'Hookpilot: the scripts of "note" changed after the Hook Manager listed them, so nothing was approved: read the files it lists now, then re-approve',
    );
    const relisted = await until(
      () => lastHooksCount(webview) > posts && lastHooks(webview)?.find((v) => v.id === row.id),
      'the row listed again',
    );
    expect(relisted.scriptChanged?.fingerprint).not.toBe(listed.scriptChanged?.fingerprint);
    await h.prompt('two');
    await until(() => lastHooks(webview)?.find((v) => v.id === row.id && v.runCount === 2), 'the second run');
    expect(existsSync(h.workspace.file('PWNED'))).toBe(false);

    webview.send({ type: 'approveScripts', id: row.id, fingerprint: relisted.scriptChanged?.fingerprint ?? '' });
    await until(() => lastHooks(webview)?.find((v) => v.id === row.id && v.scriptChanged === undefined), 'the re-approved row');
    await h.prompt('three');
    const ran = await until(() => lastHooks(webview)?.find((v) => v.id === row.id && v.runCount === 3), 'the third run');
    expect(ran.lastResult?.status).toBe('success');
  });
});
