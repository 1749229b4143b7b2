import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../../support/model-server';
import { OtlpReceiver } from '../../support/otlp-receiver';
import { stub } from '../../support/vscode-stub';
import { cleanEnv, startChat, until, type ChatHarness } from './extension-harness';

// OpenTelemetry export from the extension host (the vscode stub), to a loopback OTLP receiver.

const hooks = { hooks: { PreToolUse: [{ matcher: 'Glob', hooks: [{ type: 'command', command: 'true', name: 'glob-check' }] }] } };
const files = { '.vscode/hooks.json': JSON.stringify(hooks), 'a.ts': '' };
const script = () => [toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*.ts' } }]), text('Found a.ts.')];

let chat: ChatHarness | undefined;
const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await chat?.close();
  chat = undefined;
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(): Promise<OtlpReceiver> {
  const r = await OtlpReceiver.start();
  receivers.push(r);
  return r;
}

describe('OpenTelemetry export from the extension', () => {
  it('exports the chat session to the collector in the user settings; shutdown flushes it', async () => {
    const otlp = await receiver();
    chat = await startChat(files, script(), {
      setup: () => {
        stub.setConfig('hookpilot.telemetry.otlpEndpoint', otlp.url);
        stub.setConfig('hookpilot.telemetry.otlpProtocol', 'http/json');
        stub.setConfig('hookpilot.telemetry.otlpHeaders', { 'x-team-key': 'team-key-27182818' });
      },
    });
    await chat.prompt('list the ts files');
    const sessionId = chat.root.chat.currentSessionId;
    await chat.root.shutdown();

    const session = otlp.spans.find((s) => s.name === 'hookpilot.session');
    expect(session?.attributes['session.id']).toBe(sessionId);
    // Every record of the session reached the export before it stopped, to the SessionEnd of the shutdown.
    expect(session?.attributes['hookpilot.session.end_reason']).toBeDefined();
    expect(otlp.spans.find((s) => s.name === 'hookpilot.turn')?.attributes['hookpilot.turn.reason']).toBe('completed');
    expect(otlp.spans.filter((s) => s.name === 'hookpilot.model_request')).toHaveLength(2);
    const tool = otlp.spans.find((s) => s.name === 'hookpilot.tool_call');
    expect(tool?.attributes).toMatchObject({
      'gen_ai.tool.name': 'Glob',
      'gen_ai.tool.call.id': 'g1',
      'hookpilot.tool.outcome': 'executed',
    });
    const guard = otlp.spans.find((s) => s.attributes['hookpilot.hook.name'] === 'glob-check');
    expect(guard?.parentSpanId).toBe(tool?.spanId);
    expect(otlp.total('hookpilot.hook.runs', { 'hookpilot.hook.name': 'glob-check' })).toBe(1);
    expect(otlp.requests.every((r) => r.headers['x-team-key'] === 'team-key-27182818')).toBe(true);
    expect(stub.state.logLines.some((l) => l.message.includes(`OpenTelemetry: exporting to ${otlp.url}`))).toBe(true);
  });

  it('ignores an endpoint set in the workspace or folder settings', async () => {
    const planted = await receiver();
    chat = await startChat(files, script(), {
      setup: () => {
        stub.setConfig('hookpilot.telemetry.otlpEndpoint', planted.url, 'workspaceValue');
        stub.setConfig('hookpilot.telemetry.otlpEndpoint', planted.url, 'workspaceFolderValue');
      },
      env: cleanEnv(),
    });
    await chat.prompt('list the ts files');
    await chat.root.shutdown();
    expect(stub.state.logLines.some((l) => l.message.includes('OpenTelemetry'))).toBe(false);
    expect(planted.requests).toEqual([]);
  });

  it('starts exporting when the user setting appears, without a reload', async () => {
    const otlp = await receiver();
    chat = await startChat(files, script());
    expect(stub.state.logLines.some((l) => l.message.includes('OpenTelemetry'))).toBe(false);
    stub.setConfig('hookpilot.telemetry.otlpEndpoint', otlp.url);
    await until(() => stub.state.logLines.some((l) => l.message.includes(`OpenTelemetry: exporting to ${otlp.url}`)), 'export to start');
    await chat.prompt('list the ts files');
    await chat.root.shutdown();
    expect(otlp.spans.some((s) => s.name === 'hookpilot.tool_call' && s.attributes['gen_ai.tool.call.id'] === 'g1')).toBe(true);
  });
});
