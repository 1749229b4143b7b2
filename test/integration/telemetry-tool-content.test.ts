import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Approver } from '../../src/core/agent/permissions/permission-settings';
import { Telemetry } from '../../src/core/telemetry/telemetry';
import { startAgent, type AgentHarness } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { OtlpReceiver } from '../support/otlp-receiver';
import { hooksJson } from '../support/workspace';

// No tool input or output reaches the collector (docs/hooks.md#opentelemetry): not through a
// rule "Allow for this session" added, which holds the approved command whole (here with a
// password no redaction pattern knows), nor through a failed call's error, a command's stderr,
// nor through a guard's reason quoting the command; unless OTEL_LOG_TOOL_DETAILS asks for them.

/** A guard that blocks every Bash call, quoting the command in its reason (stderr, exit 2). */
const GUARD_QUOTING_THE_COMMAND = `node -e "let s='';process.stdin.on('data',(d)=>(s+=d)).on('end',()=>{console.error('blocked: '+JSON.parse(s).tool_input.command);process.exit(2)})"`;

const COMMAND = 'sshpass -p Winter2026-Qx7 ssh deploy@10.0.0.5 uptime';

let h: AgentHarness | undefined;
let otlp: OtlpReceiver | undefined;
afterEach(async () => {
  await h?.close();
  await otlp?.close();
  h = otlp = undefined;
});

/** Runs one prompt of `h`'s session with export to `otlp` on, then ends it and waits for the export. */
async function exportSession(harness: AgentHarness, receiver: OtlpReceiver, prompt: string): Promise<void> {
  const telemetry = Telemetry.start({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRICS_EXPORTER: 'none' },
    settings: {},
    audit: harness.engine.audit,
    hasSubscribers: (event, sessionId) => harness.engine.dispatcher.hasSubscribers(event, sessionId),
    log: () => undefined,
    serviceVersion: 'test',
  });
  expect(telemetry).toBeDefined();
  await harness.session.prompt(prompt);
  await harness.session.end();
  await harness.engine.dispose();
  await telemetry!.shutdown(5_000);
}

/** Every attribute value, status message and event attribute the collector received. */
function exported(receiver: OtlpReceiver): unknown[] {
  return receiver.spans.flatMap((s) => [
    ...Object.values(s.attributes),
    s.status.message,
    ...s.events.flatMap((e) => Object.values(e.attributes)),
  ]);
}

describe('telemetry and approved commands', () => {
  it('a command allowed by a session rule is not exported through the permission event', async () => {
    otlp = await OtlpReceiver.start();
    const allowSession: Approver = { request: async () => ({ choice: 'allow-session', by: 'user' }) };
    h = await startAgent(
      {},
      [
        toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: COMMAND } }]),
        toolCalls([{ id: 'c2', name: 'Bash', arguments: { command: COMMAND } }]),
        text('done'),
      ],
      { approver: allowSession },
    );
    await exportSession(h, otlp, 'check the host');
    await vi.waitFor(() => expect(otlp!.spans.some((s) => s.name === 'hookpilot.session')).toBe(true));

    const events = otlp.spans.flatMap((s) => s.events).filter((e) => e.name === 'hookpilot.permission');
    // The second call was decided by the session rule.
    expect(events.some((e) => e.attributes['hookpilot.permission.by'] === 'session-rule')).toBe(true);
    expect(exported(otlp).filter((v) => String(v).includes('Winter2026-Qx7'))).toEqual([]);
  });

  it("a failed command's output is not exported as the tool span's status message", async () => {
    otlp = await OtlpReceiver.start();
    const allowOnce: Approver = { request: async () => ({ choice: 'allow-once', by: 'user' }) };
    // What the command prints (a file's contents, here a marker) on its way to failing.
    h = await startAgent(
      { 'notes.txt': 'customer list: ACME-PRIVATE-4711\n' },
      [toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'cat notes.txt 1>&2; exit 1' } }]), text('done')],
      { approver: allowOnce },
    );
    await exportSession(h, otlp, 'read the notes');
    const tool = await vi.waitFor(() => {
      const found = otlp!.spans.find((s) => s.name === 'hookpilot.tool_call');
      expect(found).toBeDefined();
      return found!;
    });
    expect(tool.attributes['hookpilot.tool.outcome']).toBe('failed');
    expect(tool.status.message ?? '').not.toContain('ACME-PRIVATE-4711');
  });

  it("a guard's block reason, which quotes the command, is not exported", async () => {
    otlp = await OtlpReceiver.start();
    h = await startAgent(
      {
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: GUARD_QUOTING_THE_COMMAND }] }],
        }),
      },
      [toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: COMMAND } }]), text('done')],
    );
    await exportSession(h, otlp, 'check the host');
    await vi.waitFor(() => expect(otlp!.spans.some((s) => s.name === 'hookpilot.hook_run')).toBe(true));
    expect(exported(otlp).filter((v) => String(v).includes('Winter2026-Qx7'))).toEqual([]);
  });
});
