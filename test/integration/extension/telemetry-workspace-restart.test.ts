import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../../support/model-server';
import { OtlpReceiver } from '../../support/otlp-receiver';
import { stub } from '../../support/vscode-stub';
import { startChat, until, type ChatHarness } from './extension-harness';

// The export reads only the user's values of hookpilot.telemetry. A restart ends the open
// session span, starts a new trace and drops what is written while the old export flushes, so
// a change to the workspace's value (a `git checkout`, a process rewriting .vscode/settings.json)
// must not restart it.

const files = { 'a.ts': '' };
let chat: ChatHarness | undefined;
let otlp: OtlpReceiver | undefined;
afterEach(async () => {
  await chat?.close();
  await otlp?.close();
  chat = otlp = undefined;
});

describe('telemetry host and workspace settings', () => {
  it('a change to the ignored workspace value does not restart the user export or split the session trace', async () => {
    otlp = await OtlpReceiver.start();
    const url = otlp.url;
    chat = await startChat(files, [toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*.ts' } }]), text('ok'), text('ok again')], {
      setup: () => {
        stub.setConfig('hookpilot.telemetry.otlpEndpoint', url);
        stub.setConfig('hookpilot.telemetry.otlpProtocol', 'http/json');
      },
    });
    const starts = () => stub.state.logLines.filter((l) => l.message.includes(`OpenTelemetry: exporting to ${url}`)).length;
    await until(() => starts() === 1, 'the export to start');
    await chat.prompt('list the ts files');

    // The repository's settings file changes (ignored value) ...
    stub.setConfig('hookpilot.telemetry.otlpEndpoint', 'http://127.0.0.1:9/planted', 'workspaceValue');
    // ... and the session goes on.
    await chat.prompt('again');
    await chat.root.shutdown();

    const sessionSpans = otlp.spans.filter((s) => s.name === 'hookpilot.session');
    const turns = otlp.spans.filter((s) => s.name === 'hookpilot.turn').map((s) => s.attributes['hookpilot.turn.reason']);
    expect({ starts: starts(), sessions: sessionSpans.length, turns }).toEqual({
      starts: 1,
      sessions: 1,
      turns: ['completed', 'completed'],
    });
  });
});
