import type { AuditLog } from '../audit/audit-log';
import type { AuditRecord } from '../audit/records';
import { errorMessage } from '../error-message';
import type { Disposable } from '../events-emitter';
import type { HookEventName } from '../hooks/events';
import type { TelemetryLog } from './export-health';
import {
  describeTarget,
  otlpHeaderValues,
  resolveOtlpConfig,
  settingsHeaderValues,
  type OtlpExportConfig,
  type TelemetrySettings,
} from './otlp-config';
import type { PipelineLimits, TelemetryPipeline } from './otel-pipeline';
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

/** Records that arrive while the SDK loads wait here; past this many they are dropped. */
const MAX_EARLY_RECORDS = 10_000;

/**
 * OpenTelemetry export for one host: follows the audit log's records (every session of the
 * engine) and exports them as spans and metrics. Off unless the user configured an endpoint.
 * The SDK is loaded only then (evaluating it would cost every run tens of ms); records
 * that arrive meanwhile are kept and recorded once it is there.
 */
export class Telemetry {
  private readonly feed: Disposable;
  private readonly ready: Promise<{ pipeline: TelemetryPipeline; recorder: SpanRecorder } | undefined>;
  private recorder: SpanRecorder | undefined;
  private early: Array<[AuditRecord, string]> | undefined = [];
  private failed = false;

  private constructor(
    private readonly options: TelemetryOptions,
    config: OtlpExportConfig,
  ) {
    this.feed = options.audit.onRecord((record, sessionId) => {
      if (this.recorder) this.record(this.recorder, record, sessionId);
      else if (this.early && this.early.length < MAX_EARLY_RECORDS) this.early.push([record, sessionId]);
    });
    this.ready = import('./otel-pipeline').then(
      ({ TelemetryPipeline }) => {
        const { log, serviceVersion, limits } = options;
        const pipeline = new TelemetryPipeline({ config, log, serviceVersion, limits });
        const recorder = new SpanRecorder({
          tracer: pipeline.tracer,
          instruments: pipeline.meter ? createInstruments(pipeline.meter) : undefined,
          hasSubscribers: options.hasSubscribers,
          toolDetails: config.toolDetails,
        });
        for (const [record, sessionId] of this.early ?? []) this.record(recorder, record, sessionId);
        this.early = undefined;
        this.recorder = recorder;
        return { pipeline, recorder };
      },
      (error: unknown) => {
        this.early = undefined;
        options.log('error', `OpenTelemetry: the SDK could not be loaded: ${errorMessage(error)}`);
        return undefined;
      },
    );
    const source = config.origin === 'settings' ? 'hookpilot.telemetry settings' : 'OTEL_EXPORTER_OTLP_* variables';
    options.log('info', `OpenTelemetry: exporting to ${describeTarget(config)} (${config.protocol}, from ${source})`);
  }

  /** Starts export when the user configured it; logs why not when the configuration is wrong. */
  static start(options: TelemetryOptions): Telemetry | undefined {
    // A collector's key is a secret like any other: never in the audit log or what the model reads. Registered
    // whether export is on or not: the user's settings file, which the model may read, holds it either way.
    for (const value of [...settingsHeaderValues(options.settings), ...otlpHeaderValues(options.env)])
      options.audit.redactor.addSecretValue(value);
    const resolved = resolveOtlpConfig(options.env, options.settings);
    if (resolved.kind === 'off') return undefined;
    if (resolved.kind === 'invalid') {
      options.log('error', `OpenTelemetry: ${resolved.message}`);
      return undefined;
    }
    return new Telemetry(options, resolved.config);
  }

  /**
   * Call after the engine stopped (its audit log closed, so every record was seen): ends the
   * spans still open and exports, waiting at most `timeoutMs`.
   */
  async shutdown(timeoutMs = DEFAULT_SHUTDOWN_WAIT_MS): Promise<void> {
    this.feed.dispose();
    const loaded = await this.ready;
    if (!loaded) return;
    try {
      loaded.recorder.endAll();
    } catch (error) {
      this.report(error);
    }
    await loaded.pipeline.shutdown(timeoutMs);
  }

  private record(recorder: SpanRecorder, record: AuditRecord, sessionId: string): void {
    try {
      recorder.record(record, sessionId);
    } catch (error) {
      this.report(error);
    }
  }

  /** A bug here must cost the export, never the audit log or the agent; said once. */
  private report(error: unknown): void {
    if (!this.failed) this.options.log('error', `OpenTelemetry: a record could not be exported: ${errorMessage(error)}`);
    this.failed = true;
  }
}
