import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { errorMessage } from '../error-message';

export type TelemetryLog = (level: 'info' | 'warn' | 'error', message: string) => void;

/**
 * What was lost on the way to the collector: spans dropped because the queue was full, and
 * spans and metric exports the collector did not take. The first problem is logged once;
 * the rest are only counted, and the totals are logged at shutdown.
 */
export class ExportHealth {
  droppedSpans = 0;
  failedSpans = 0;
  failedMetricExports = 0;
  private reported = false;

  constructor(
    private readonly log: TelemetryLog,
    private readonly target: string,
  ) {}

  queueFull(): void {
    this.droppedSpans++;
    this.reportOnce('the span queue is full (the collector is slow or unreachable); spans are dropped');
  }

  spansFailed(count: number, error: Error | undefined): void {
    this.failedSpans += count;
    this.reportOnce(`spans could not be exported: ${error ? errorMessage(error) : 'unknown error'}`);
  }

  metricsFailed(error: Error | undefined): void {
    this.failedMetricExports++;
    this.reportOnce(`metrics could not be exported: ${error ? errorMessage(error) : 'unknown error'}`);
  }

  get lost(): boolean {
    return this.droppedSpans + this.failedSpans + this.failedMetricExports > 0;
  }

  summary(): string {
    const failed = `${this.failedSpans} span(s) and ${this.failedMetricExports} metric export(s) failed`;
    return `OpenTelemetry export to ${this.target}: ${this.droppedSpans} span(s) dropped (queue full), ${failed}`;
  }

  private reportOnce(problem: string): void {
    if (this.reported) return;
    this.reported = true;
    const rest = 'Later problems are counted, not logged; the agent is not affected.';
    this.log('warn', `OpenTelemetry export to ${this.target}: ${problem}. ${rest}`);
  }
}

/** Ended spans in the batch processor's queue: in when they end, out when the exporter takes them. */
export class SpanQueueCount {
  queued = 0;

  taken(count: number): void {
    this.queued = Math.max(0, this.queued - count);
  }
}

/** Counts what the collector refused or never answered; the BatchSpanProcessor only hands failures to a global handler. */
export class CountingSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly health: ExportHealth,
    private readonly queue: SpanQueueCount,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.queue.taken(spans.length);
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.health.spansFailed(spans.length, result.error);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * In front of a BatchSpanProcessor: knows how many ended spans wait in its queue (not yet
 * taken by the exporter) and drops, counting, what would overflow it, as the processor would
 * itself, silently.
 */
export class BoundedSpanProcessor implements SpanProcessor {
  constructor(
    private readonly inner: SpanProcessor,
    private readonly queue: SpanQueueCount,
    private readonly maxQueueSize: number,
    private readonly health: ExportHealth,
  ) {}

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if (this.queue.queued >= this.maxQueueSize) {
      this.health.queueFull();
      return;
    }
    this.queue.queued++;
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

export class CountingMetricExporter implements PushMetricExporter {
  readonly selectAggregationTemporality: PushMetricExporter['selectAggregationTemporality'];
  readonly selectAggregation: PushMetricExporter['selectAggregation'];

  constructor(
    private readonly inner: PushMetricExporter,
    private readonly health: ExportHealth,
  ) {
    // The reader asks the exporter which temporality and aggregation it wants: the inner one answers.
    this.selectAggregationTemporality = inner.selectAggregationTemporality?.bind(inner);
    this.selectAggregation = inner.selectAggregation?.bind(inner);
  }

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    this.inner.export(metrics, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.health.metricsFailed(result.error);
      done(result);
    });
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
