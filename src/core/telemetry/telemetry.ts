import type { AuditLog } from '../audit/audit-log';
import { errorMessage } from '../error-message';
import type { Disposable } from '../events-emitter';
import type { HookEventName } from '../hooks/events';
import type { TelemetryLog } from './export-health';
import { otlpHeaderValues, resolveOtlpConfig, type TelemetrySettings } from './otlp-config';
import { describeTarget, TelemetryPipeline, type PipelineLimits } from './otel-pipeline';
import { SpanRecorder } from './span-recorder';
import { createInstruments } from './telemetry-names';

/** How long a host waits, when it stops, for the collector to take the last spans and metrics. */
export const DEFAULT_SHUTDOWN_WAIT_MS = 3_000;

export interface TelemetryOptions {
  /** The user's environment (`OTEL_EXPORTER_OTLP_*`). */
  env: NodeJS.ProcessEnv;
  /** User-level settings only: a workspace's values must never reach here. */
  settings: TelemetrySettings;
  /** The engine's audit log: its records, already redacted, are what is exported. */
  audit: AuditLog;
  hasSubscribers: (event: HookEventName, sessionId: string) => boolean;
  log: TelemetryLog;
  serviceVersion: string;
  limits?: Partial<PipelineLimits>;
}

/**
 * OpenTelemetry export for one host: follows the audit log's records (every session of the
 * engine) and exports them as spans and metrics. Off unless the user configured an endpoint.
 */
export class Telemetry {
  private readonly feed: Disposable;
  private failed = false;

  private constructor(
    private readonly pipeline: TelemetryPipeline,
    private readonly recorder: SpanRecorder,
    audit: AuditLog,
    private readonly log: TelemetryLog,
  ) {
    this.feed = audit.onRecord((record, sessionId) => {
      try {
        this.recorder.record(record, sessionId);
      } catch (error) {
        // A bug here must cost the export, never the audit log or the agent.
        if (!this.failed) this.log('error', `OpenTelemetry: a record could not be exported: ${errorMessage(error)}`);
        this.failed = true;
      }
    });
  }

  /** Starts export when the user configured it; logs why not when the configuration is wrong. */
  static start(options: TelemetryOptions): Telemetry | undefined {
    const resolved = resolveOtlpConfig(options.env, options.settings);
    if (resolved.kind === 'off') return undefined;
    if (resolved.kind === 'invalid') {
      options.log('error', `OpenTelemetry: ${resolved.message}`);
      return undefined;
    }
    const { config } = resolved;
    // A collector's key is a secret like any other: never in the audit log or what the model reads.
    for (const value of [...Object.values(config.headers), ...otlpHeaderValues(options.env)]) options.audit.redactor.addSecretValue(value);
    const pipeline = new TelemetryPipeline({ config, log: options.log, serviceVersion: options.serviceVersion, limits: options.limits });
    const recorder = new SpanRecorder({
      tracer: pipeline.tracer,
      instruments: pipeline.meter ? createInstruments(pipeline.meter) : undefined,
      hasSubscribers: options.hasSubscribers,
    });
    options.log('info', `OpenTelemetry: exporting to ${describeTarget(config)} (${config.protocol}, from ${config.origin === 'settings' ? 'hookpilot.telemetry settings' : 'OTEL_EXPORTER_OTLP_* variables'})`);
    return new Telemetry(pipeline, recorder, options.audit, options.log);
  }

  /**
   * Call after the engine stopped (its audit log closed, so every record was seen): ends the
   * spans still open and exports, waiting at most `timeoutMs`.
   */
  async shutdown(timeoutMs = DEFAULT_SHUTDOWN_WAIT_MS): Promise<void> {
    this.feed.dispose();
    try {
      this.recorder.endAll();
    } catch (error) {
      this.log('error', `OpenTelemetry: ending open spans: ${errorMessage(error)}`);
    }
    await this.pipeline.shutdown(timeoutMs);
  }
}
