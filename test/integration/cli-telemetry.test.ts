import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, type Testbed, toolMessageSent, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { hooksJson } from '../support/workspace';

// OpenTelemetry export from the built CLI to a loopback OTLP/HTTP receiver.

const SECRET = 'deploy-token-9z8y7x6w5v';
const files = {
  // Denies any rm, quoting the command (and so the secret in it) in its reason.
  'hooks/no-rm.js': nodeHook(`const cmd = input.tool_input.command || '';
const deny = { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no rm: ' + cmd };
if (/\\brm\\b/.test(cmd)) process.stdout.write(JSON.stringify({ hookSpecificOutput: deny }));`),
  'hooks/flaky.js': nodeHook(`process.stderr.write('flaky failed'); process.exit(1);`),
  '.vscode/hooks.json': hooksJson({
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/no-rm.js', name: 'no-rm' }] }],
    PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/flaky.js', name: 'flaky' }] }],
  }),
};
const script = () => [
  toolCalls([{ id: 'call-ok', name: 'Bash', arguments: { command: 'echo hello' } }]),
  toolCalls([{ id: 'call-rm', name: 'Bash', arguments: { command: `rm -rf build ${SECRET}` } }]),
  text('done'),
];

const bundle = useCliBundle();
let bed: Testbed | undefined;
const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(mode: 'ok' | 'silent' = 'ok'): Promise<OtlpReceiver> {
  const r = await OtlpReceiver.start(mode);
  receivers.push(r);
  return r;
}

const otelEnv = (url: string, protocol = 'http/protobuf') => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  // Hook reasons and deciding rules as written (telemetry-tool-content.test.ts: not by default).
  OTEL_LOG_TOOL_DETAILS: '1',
  DEPLOY_TOKEN: SECRET,
});
const runArgs = ['clean up', '--output-format', 'json', '--allowed-tools', 'Bash'];

function one(spans: ReceivedSpan[], name: string, where: Record<string, unknown> = {}): ReceivedSpan {
  const found = spans.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.attributes[k] === v));
  expect(found, `${name} ${JSON.stringify(where)}`).toHaveLength(1);
  return found[0];
}

describe('OpenTelemetry export from the CLI', () => {
  it.each(['http/json', 'http/protobuf'])('exports the span tree, the metrics and no secret (%s)', async (protocol) => {
    const otlp = await receiver();
    bed = await startTestbed(bundle.bundle, files, script());
    const run = await bed.run(runArgs, { env: otelEnv(otlp.url, protocol) });
    expect(run.code, run.stderr).toBe(0);
    const result = jsonResult(run);
    // On a failure, stderr says what the guard did (a failed hook is reported there).
    expect(
      result.tool_calls.map((c) => c.outcome),
      run.stderr,
    ).toEqual(['executed', 'blocked']);
    expect(otlp.requests.every((r) => r.contentType === (protocol === 'http/json' ? 'application/json' : 'application/x-protobuf'))).toBe(
      true,
    );

    const spans = otlp.spans;
    const session = one(spans, 'hookpilot.session');
    expect(session.parentSpanId).toBe('');
    expect(session.attributes).toMatchObject({
      'session.id': result.session_id,
      'hookpilot.session.source': 'startup',
      'hookpilot.session.end_reason': 'completed',
    });
    expect(session.resource['service.name']).toBe('hookpilot');
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([session.traceId]));

    const turn = one(spans, 'hookpilot.turn');
    expect(turn.parentSpanId).toBe(session.spanId);
    expect(turn.attributes).toMatchObject({
      'hookpilot.turn.reason': 'completed',
      'hookpilot.turn.steps': 3,
      'hookpilot.turn.tool_calls': 2,
    });
    const requests = spans.filter((s) => s.name === 'hookpilot.model_request');
    expect(requests.map((s) => s.attributes['hookpilot.step'])).toEqual([1, 2, 3]);
    for (const r of requests)
      expect(r).toMatchObject({ parentSpanId: turn.spanId, attributes: { 'gen_ai.request.model': 'scripted-model' } });

    const ok = one(spans, 'hookpilot.tool_call', { 'gen_ai.tool.call.id': 'call-ok' });
    const denied = one(spans, 'hookpilot.tool_call', { 'gen_ai.tool.call.id': 'call-rm' });
    expect(ok).toMatchObject({
      parentSpanId: turn.spanId,
      attributes: { 'gen_ai.tool.name': 'Bash', 'hookpilot.tool.outcome': 'executed' },
    });
    expect(denied).toMatchObject({
      parentSpanId: turn.spanId,
      attributes: { 'hookpilot.tool.outcome': 'blocked', 'hookpilot.tool.denied_by': 'Hook' },
    });
    const permission = (attributes: Record<string, string>) => [
      { name: 'hookpilot.permission', attributes: expect.objectContaining(attributes) },
    ];
    const allowedByRule = {
      'hookpilot.permission.decision': 'allow',
      'hookpilot.permission.by': 'rule',
      'hookpilot.permission.rule': 'Bash',
    };
    expect(ok.events).toEqual(permission(allowedByRule));
    const deniedByHook = {
      'hookpilot.permission.decision': 'deny',
      'hookpilot.permission.by': 'hook',
      'hookpilot.permission.source': 'hook no-rm',
    };
    expect(denied.events).toEqual(permission(deniedByHook));

    const guardOnOk = one(spans, 'hookpilot.hook_run', { 'hookpilot.hook.name': 'no-rm', 'hookpilot.hook.decision': 'none' });
    const guardOnRm = one(spans, 'hookpilot.hook_run', { 'hookpilot.hook.name': 'no-rm', 'hookpilot.hook.decision': 'deny' });
    expect(guardOnOk.parentSpanId).toBe(ok.spanId);
    expect(guardOnRm.parentSpanId).toBe(denied.spanId);
    expect(guardOnRm.attributes).toMatchObject({
      'hookpilot.hook.event': 'PreToolUse',
      'hookpilot.hook.handler': 'command',
      'hookpilot.hook.status': 'success',
      'hookpilot.hook.exit_code': 0,
    });
    expect(guardOnRm.attributes['hookpilot.hook.duration_ms']).toBeGreaterThan(0);
    expect(guardOnRm.endMs).toBeGreaterThanOrEqual(guardOnRm.startMs);
    // With OTEL_LOG_TOOL_DETAILS the reason is exported, redacted as in the audit log: the hook quoted the secret.
    expect(guardOnRm.attributes['hookpilot.hook.reason']).toBe('no rm: rm -rf build [REDACTED:secret_value]');
    const flaky = one(spans, 'hookpilot.hook_run', { 'hookpilot.hook.name': 'flaky' });
    expect(flaky).toMatchObject({
      parentSpanId: ok.spanId,
      status: { code: 2 },
      attributes: { 'hookpilot.hook.event': 'PostToolUse', 'hookpilot.hook.status': 'error' },
    });
    // Hooks of session events hang under the session, of turn events under the turn.
    expect(
      one(spans, 'hookpilot.hook_run', { 'hookpilot.hook.name': 'Metrics', 'hookpilot.hook.event': 'SessionStart' }).parentSpanId,
    ).toBe(session.spanId);
    expect(one(spans, 'hookpilot.hook_run', { 'hookpilot.hook.name': 'TurnStats', 'hookpilot.hook.event': 'TurnEnd' }).parentSpanId).toBe(
      turn.spanId,
    );

    expect(otlp.total('hookpilot.hook.runs', { 'hookpilot.hook.name': 'no-rm' })).toBe(2);
    expect(otlp.total('hookpilot.hook.runs', { 'hookpilot.hook.name': 'no-rm', 'hookpilot.hook.decision': 'deny' })).toBe(1);
    expect(otlp.total('hookpilot.hook.failures', { 'hookpilot.hook.name': 'flaky', 'hookpilot.hook.status': 'error' })).toBe(1);
    expect(otlp.total('hookpilot.hook.failures', { 'hookpilot.hook.name': 'no-rm' })).toBe(0);
    const latency = otlp.metrics.find((m) => m.name === 'hookpilot.hook.duration');
    expect(latency).toMatchObject({ kind: 'histogram', unit: 'ms' });
    expect(otlp.total('hookpilot.hook.duration', { 'hookpilot.hook.name': 'no-rm' })).toBe(2);
    expect(otlp.total('hookpilot.tool.calls', { 'gen_ai.tool.name': 'Bash', 'hookpilot.tool.outcome': 'blocked' })).toBe(1);
    expect(otlp.total('hookpilot.permission.decisions', { 'hookpilot.permission.decision': 'allow' })).toBe(1);

    // No tool input, no prompt, no secret: only what the spans above show.
    expect(otlp.rawText).not.toContain(SECRET);
    expect(otlp.rawText).not.toContain('echo hello');
    expect(otlp.rawText).not.toContain('clean up');
  });

  it('a user setting turns export on (with its headers); the same setting in the workspace does not', async () => {
    const user = await receiver();
    const planted = await receiver();
    const workspaceSettings = { 'hookpilot.telemetry.otlpEndpoint': planted.url, 'hookpilot.telemetry.otlpProtocol': 'http/json' };
    bed = await startTestbed(bundle.bundle, { ...files, '.vscode/settings.json': JSON.stringify(workspaceSettings) }, [
      text('done'),
      text('done'),
    ]);

    const quiet = await bed.run(runArgs, { env: { DEPLOY_TOKEN: SECRET } });
    expect(quiet.code, quiet.stderr).toBe(0);
    // The CLI has exited: nothing more can arrive.
    expect(planted.requests).toEqual([]);

    const userSettings = {
      'hookpilot.telemetry.otlpEndpoint': user.url,
      'hookpilot.telemetry.otlpHeaders': { 'x-team-key': 'team-key-31415926' },
      'hookpilot.telemetry.otlpProtocol': 'http/json',
    };
    writeFileSync(path.join(bed.home, 'user-settings.json'), JSON.stringify(userSettings));
    const exported = await bed.run(runArgs, { env: { DEPLOY_TOKEN: SECRET } });
    expect(exported.code, exported.stderr).toBe(0);
    expect(one(user.spans, 'hookpilot.session').attributes['session.id']).toBe(jsonResult(exported).session_id);
    expect(user.requests.every((r) => r.headers['x-team-key'] === 'team-key-31415926' && r.contentType === 'application/json')).toBe(true);
    expect(planted.requests).toEqual([]);
  });

  it("the collector's keys in OTEL_EXPORTER_OTLP_HEADERS and _TRACES_HEADERS are sent to the collector; the model's shell does not inherit them", async () => {
    const otlp = await receiver();
    // Header names no secret pattern knows: only their registration as secrets hides them.
    const [key, tracesKey] = ['hcteam7Q2w9Z1xK4', 'hctraces5R8t3Y6u'];
    const peek = 'printenv OTEL_EXPORTER_OTLP_HEADERS OTEL_EXPORTER_OTLP_TRACES_HEADERS';
    bed = await startTestbed(bundle.bundle, files, [toolCalls([{ id: 'peek', name: 'Bash', arguments: { command: peek } }]), text('done')]);
    const env = {
      ...otelEnv(otlp.url, 'http/json'),
      OTEL_EXPORTER_OTLP_HEADERS: `x-honeycomb-team=${key}`,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: `x-traces-team=${tracesKey}`,
    };
    const run = await bed.run(runArgs, { env });
    expect(run.code, run.stderr).toBe(0);
    expect(toolMessageSent(bed.server, 'peek')).not.toMatch(/x-honeycomb-team|x-traces-team/);
    expect(JSON.stringify(bed.server.requests.map((r) => r.body.messages))).not.toMatch(new RegExp(`${key}|${tracesKey}`));
    const traces = otlp.requests.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.every((r) => r.headers['x-honeycomb-team'] === key && r.headers['x-traces-team'] === tracesKey)).toBe(true);
  });

  it('an unreachable collector (a closed port) neither fails nor holds the run; the problem is logged once', async () => {
    const port = await closedPort();
    bed = await startTestbed(bundle.bundle, files, script());
    const run = await bed.run(runArgs, { env: otelEnv(`http://127.0.0.1:${port}`) });
    expect(run.code, run.stderr).toBe(0);
    expect(jsonResult(run).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'blocked']);
    // The exporter retries a refused connection within its 5 s: depending on when the run
    // ends, the first failure or the bounded wait at exit is what the log says, once.
    expect(run.stderr).toMatch(
      /OpenTelemetry export to http:\/\/127\.0\.0\.1:\d+: (spans|metrics) could not be exported|the last data was not taken/,
    );
    expect((run.stderr.match(/could not be exported/g) ?? []).length).toBeLessThanOrEqual(1);
  });

  it('a collector that never answers neither fails the run nor keeps the CLI from exiting', async () => {
    const silent = await receiver('silent');
    bed = await startTestbed(bundle.bundle, files, script());
    // runCli's own timeout is the bound: a CLI waiting on the collector would fail here.
    const run = await bed.run(runArgs, { env: otelEnv(silent.url), timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(jsonResult(run).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'blocked']);
    expect(silent.requests.length).toBeGreaterThan(0);
    expect(run.stderr).toContain('the last data was not taken within 3000 ms; dropped');
  });

  it('grpc is refused with a clear message and the run goes on', async () => {
    const otlp = await receiver();
    bed = await startTestbed(bundle.bundle, files, [text('done')]);
    const run = await bed.run(runArgs, { env: otelEnv(otlp.url, 'grpc') });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: Hookpilot exports over OTLP/HTTP (http/protobuf or http/json); OpenTelemetry export is off',
    );
    expect(otlp.requests).toEqual([]);
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
