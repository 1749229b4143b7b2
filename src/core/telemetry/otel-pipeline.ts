import type { Meter, Tracer } from '@opentelemetry/api';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import {
  BoundedSpanProcessor,
  CountingMetricExporter,
  CountingSpanExporter,
  ExportHealth,
  SpanQueueCount,
  type TelemetryLog,
} from './export-health';
import { describeTarget, type OtlpExportConfig } from './otlp-config';

/**
 * The OpenTelemetry SDK for one host: a tracer provider with a bounded batch queue and a
 * meter provider, each exporting over OTLP/HTTP. Nothing is registered globally: the
 * extension host is shared with other extensions, whose OpenTelemetry setup stays theirs.
 */

export interface PipelineLimits {
  /** Ended spans waiting for export; more are dropped (and counted). */
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMs: number;
  /** One export request, retries included. */
  exportTimeoutMs: number;
  metricIntervalMs: number;
}

export const DEFAULT_PIPELINE_LIMITS: PipelineLimits = {
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
  scheduledDelayMs: 2_000,
  exportTimeoutMs: 5_000,
  metricIntervalMs: 30_000,
};

/** How long shutdown waits for a collector that already failed an export. */
const KNOWN_DOWN_WAIT_MS = 500;

export interface PipelineOptions {
  config: OtlpExportConfig;
  log: TelemetryLog;
  serviceVersion: string;
  limits?: Partial<PipelineLimits>;
}

export class TelemetryPipeline {
  /** Spans of a host that exports metrics only go nowhere (a provider without processors). */
  readonly tracer: Tracer;
  readonly meter: Meter | undefined;
  readonly health: ExportHealth;
  private readonly tracerProvider: BasicTracerProvider;
  private readonly meterProvider: MeterProvider | undefined;
  private stopping: Promise<boolean> | undefined;

  constructor(private readonly options: PipelineOptions) {
    const { config } = options;
    const limits = { ...DEFAULT_PIPELINE_LIMITS, ...options.limits };
    this.health = new ExportHealth(options.log, describeTarget(config));
    const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: options.serviceVersion });
    const exporterOptions = (url: string) => ({ url, headers: config.headers, timeoutMillis: limits.exportTimeoutMs });
    const spanLimits = { attributeValueLengthLimit: 1_024, attributeCountLimit: 64, eventCountLimit: 32 };
    this.tracerProvider = new BasicTracerProvider({ resource, spanLimits });
    if (config.tracesUrl) {
      const endpoint = exporterOptions(config.tracesUrl);
      const exporter = config.protocol === 'http/json' ? new JsonTraceExporter(endpoint) : new ProtoTraceExporter(endpoint);
      const queue = new SpanQueueCount();
      const counting = new CountingSpanExporter(exporter, this.health, queue);
      const batch = new BatchSpanProcessor(counting, {
        maxQueueSize: limits.maxQueueSize,
        maxExportBatchSize: Math.min(limits.maxExportBatchSize, limits.maxQueueSize),
        scheduledDelayMillis: limits.scheduledDelayMs,
        exportTimeoutMillis: limits.exportTimeoutMs,
      });
      const bounded = new BoundedSpanProcessor(batch, queue, limits.maxQueueSize, this.health);
      this.tracerProvider = new BasicTracerProvider({ resource, spanProcessors: [bounded], spanLimits });
    }
    this.tracer = this.tracerProvider.getTracer('hookpilot', options.serviceVersion);
    if (config.metricsUrl) {
      const endpoint = exporterOptions(config.metricsUrl);
      const exporter = config.protocol === 'http/json' ? new JsonMetricExporter(endpoint) : new ProtoMetricExporter(endpoint);
      const reader = new PeriodicExportingMetricReader({
        exporter: new CountingMetricExporter(exporter, this.health),
        exportIntervalMillis: limits.metricIntervalMs,
        exportTimeoutMillis: Math.min(limits.exportTimeoutMs, limits.metricIntervalMs),
      });
      this.meterProvider = new MeterProvider({ resource, readers: [reader] });
      this.meter = this.meterProvider.getMeter('hookpilot', options.serviceVersion);
    }
  }

  /**
   * Exports what is left and stops, waiting at most `timeoutMs`: a dead or silent collector
   * never holds the host's exit. Resolves false when it gave up waiting.
   */
  shutdown(timeoutMs: number): Promise<boolean> {
    this.stopping ??= (async () => {
      // A collector that already failed this run gets a short last chance, not the full wait.
      const wait = this.health.lost ? Math.min(timeoutMs, KNOWN_DOWN_WAIT_MS) : timeoutMs;
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), wait)));
      const flushed = Promise.allSettled([this.tracerProvider.shutdown(), this.meterProvider?.shutdown()]).then(() => true);
      const done = await Promise.race([flushed, gaveUp]);
      clearTimeout(timer);
      const target = describeTarget(this.options.config);
      if (!done) this.options.log('warn', `OpenTelemetry export to ${target}: the last data was not taken within ${wait} ms; dropped.`);
      if (this.health.lost) this.options.log('warn', this.health.summary());
      return done;
    })();
    return this.stopping;
  }
}
