import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import { TelemetryPipeline } from '../../src/core/telemetry/otel-pipeline';
import { SpanRecorder } from '../../src/core/telemetry/span-recorder';
import { OtlpReceiver } from '../support/otlp-receiver';

// The export pipeline against a real loopback receiver, and the span recorder fed records
// the model or a cloned repository shaped.

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

describe('TelemetryPipeline', () => {
  it('a flood of spans to a collector that never answers: the queue stays bounded, drops are counted and logged once, shutdown is bounded', async () => {
    const silent = await OtlpReceiver.start('silent');
    receivers.push(silent);
    const logs: string[] = [];
    const pipeline = new TelemetryPipeline({
      config: {
        tracesUrl: `${silent.url}/v1/traces`,
        headers: {},
        protocol: 'http/json',
        serviceName: 'hookpilot',
        toolDetails: false,
        origin: 'environment',
      },
      log: (_level, message) => logs.push(message),
      serviceVersion: 'test',
      limits: { maxQueueSize: 8, maxExportBatchSize: 4, scheduledDelayMs: 10, exportTimeoutMs: 60_000 },
    });
    for (let i = 0; i < 200; i++) pipeline.tracer.startSpan(`flood ${i}`).end();
    await vi.waitFor(() => expect(silent.requests.length).toBeGreaterThan(0));
    // One batch is in flight (never answered); the queue holds at most 8; the rest is dropped.
    expect(pipeline.health.droppedSpans).toBeGreaterThanOrEqual(200 - 4 - 8);
    expect(logs.filter((l) => l.includes('the span queue is full'))).toHaveLength(1);

    expect(await pipeline.shutdown(200)).toBe(false);
    expect(logs.at(-1)).toMatch(/^OpenTelemetry export to http:\/\/127\.0\.0\.1:\d+: 18[4-8] span\(s\) dropped \(queue full\)/);
  });
});

describe('SpanRecorder', () => {
  function recorder(hasSubscribers = false) {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const spans = new SpanRecorder({ tracer: provider.getTracer('test'), hasSubscribers: () => hasSubscribers, toolDetails: true });
    let seq = 0;
    let ms = Date.parse('2026-01-01T00:00:00.000Z');
    const feed = (record: Record<string, unknown>) =>
      spans.record({ seq: ++seq, ts: new Date((ms += 5)).toISOString(), session_id: 's1', ...record } as AuditRecord, 's1');
    const event = (name: string, payload: Record<string, unknown> = {}, dispatch = `d${seq + 1}`) =>
      feed({ type: 'event', dispatch_id: dispatch, event: name, payload: { hook_event_name: name, ...payload } });
    const hookRun = (dispatch: string, fields: Record<string, unknown>) =>
      feed({
        type: 'hook_run',
        dispatch_id: dispatch,
        event: 'PreToolUse',
        hook_id: 'h',
        hook_name: 'guard',
        handler: 'command',
        source: 'hooksJson',
        status: 'success',
        decision: 'none',
        duration_ms: 3,
        ...fields,
      });
    return { exporter, spans, event, hookRun };
  }

  it('caps ids and texts the model or a hook wrote, and never ends a span twice', () => {
    const { exporter, event, hookRun } = recorder();
    const longId = 'x'.repeat(10_000);
    event('SessionStart', { source: 'startup' });
    event('UserPromptSubmit', { prompt: 'p' });
    event('PreToolUse', { tool_name: 'Bash', tool_use_id: longId }, 'pre');
    hookRun('pre', { decision: 'deny', reason: 'r'.repeat(100_000) });
    event('PermissionDenied', { tool_name: 'Bash', tool_use_id: longId, source: 'Hook' });
    // A second end event for the same call (a retry note, a replayed record) changes nothing.
    event('PostToolUseFailure', { tool_name: 'Bash', tool_use_id: longId, error: 'e' });
    event('TurnEnd', { turn_index: 0, reason: 'completed', steps: 1, tool_calls: 1 });
    event('SessionEnd', { reason: 'completed' });
    const finished = exporter.getFinishedSpans();
    const tool = finished.filter((s) => s.name === 'hookpilot.tool_call');
    expect(tool).toHaveLength(1);
    expect(String(tool[0].attributes['gen_ai.tool.call.id'])).toHaveLength(128);
    expect(tool[0].attributes['hookpilot.tool.outcome']).toBe('blocked');
    const hook = finished.find((s) => s.name === 'hookpilot.hook_run');
    expect(String(hook?.attributes['hookpilot.hook.reason'])).toHaveLength(256);
    expect(hook?.parentSpanContext?.spanId).toBe(tool[0].spanContext().spanId);
    expect(finished.map((s) => s.name).sort()).toEqual([
      'hookpilot.hook_run',
      'hookpilot.session',
      'hookpilot.tool_call',
      'hookpilot.turn',
    ]);
  });

  it('an async hook that reports after its session ended still hangs under its tool call', () => {
    const { exporter, event, hookRun } = recorder();
    event('SessionStart', { source: 'startup' });
    event('UserPromptSubmit', { prompt: 'p' });
    event('PostToolUse', { tool_name: 'Bash', tool_use_id: 'c1' }, 'post');
    event('TurnEnd', { turn_index: 0, reason: 'completed', steps: 1, tool_calls: 1 });
    event('SessionEnd', { reason: 'completed' });
    hookRun('post', { event: 'PostToolUse', async: true, status: 'cancelled' });
    const finished = exporter.getFinishedSpans();
    const tool = finished.find((s) => s.name === 'hookpilot.tool_call');
    const late = finished.find((s) => s.name === 'hookpilot.hook_run');
    expect(late?.parentSpanContext?.spanId).toBe(tool?.spanContext().spanId);
    expect(late?.attributes['hookpilot.hook.async']).toBe(true);
    expect(finished.filter((s) => s.name === 'hookpilot.session')).toHaveLength(1);
  });

  it('a span whose dispatch has subscribers ends on the closing dispatch record; endAll ends what is left', () => {
    const { exporter, spans, event } = recorder(true);
    event('SessionStart', { source: 'startup' });
    event('UserPromptSubmit', { prompt: 'p' });
    event('TurnEnd', { turn_index: 0, reason: 'completed', steps: 1, tool_calls: 0 }, 'end');
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([]);
    const closing = { type: 'dispatch', dispatch_id: 'end', event: 'TurnEnd', decision: 'none', hooks_run: 1, duration_ms: 2 } as const;
    spans.record({ seq: 99, ts: '2026-01-01T00:00:01.000Z', session_id: 's1', ...closing }, 's1');
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['hookpilot.turn']);
    spans.endAll();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['hookpilot.turn', 'hookpilot.session']);
  });
});
