import * as vscode from 'vscode';
import { version } from '../../package.json';
import type { HookEngine } from '../core/engine/hook-engine';
import { errorMessage } from '../core/error-message';
import type { TelemetrySettings } from '../core/telemetry/otlp-config';
import { Telemetry } from '../core/telemetry/telemetry';
import { Disposable } from './lifecycle';
import type { HookpilotLog } from './log';

const SECTION = 'hookpilot.telemetry';

/**
 * OpenTelemetry export for the window: the engine's audit records as spans and metrics, to
 * the collector the user named in the `OTEL_EXPORTER_OTLP_*` variables or in their user
 * settings. Workspace values are never read: a cloned repository must not be able to send
 * your sessions to its own collector. A settings change restarts the export.
 */
export class TelemetryHost extends Disposable {
  private telemetry: Telemetry | undefined;
  /** Stops (and the restart after a settings change) run one after another, never two flushes at once. */
  private queue: Promise<void> = Promise.resolve();
  /** The user-level values the running export was started with: only a change to them restarts it. */
  private started = '';

  constructor(
    private readonly engine: HookEngine,
    private readonly log: HookpilotLog,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    super();
    this.start();
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        // A workspace's or folder's value is never read: its change (a checkout, a rewrite) must not cut the traces.
        if (!event.affectsConfiguration(SECTION) || JSON.stringify(userSettings()) === this.started) return;
        void this.enqueue(async () => {
          await this.stop();
          this.start();
        });
      }),
    );
  }

  /** Call after the engine stopped: exports what is left, waiting a bounded time for the collector. */
  close(): Promise<void> {
    if (!this.isDisposed) super.dispose();
    return this.enqueue(() => this.stop());
  }

  override dispose(): void {
    void this.close();
  }

  private enqueue(operation: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(operation).catch((error: unknown) => this.log.error(`OpenTelemetry: ${errorMessage(error)}`));
    return this.queue;
  }

  private start(): void {
    if (this.isDisposed) return;
    const settings = userSettings();
    this.started = JSON.stringify(settings);
    this.telemetry = Telemetry.start({
      env: this.env,
      settings,
      audit: this.engine.audit,
      hasSubscribers: (event, sessionId) => this.engine.dispatcher.hasSubscribers(event, sessionId),
      log: (level, message) => this.log[level](message),
      serviceVersion: version,
    });
  }

  private async stop(): Promise<void> {
    const telemetry = this.telemetry;
    this.telemetry = undefined;
    await telemetry?.shutdown();
  }
}

/** The user's own values only (globalValue), whatever a workspace or folder sets. */
function userSettings(): TelemetrySettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    otlpEndpoint: config.inspect('otlpEndpoint')?.globalValue,
    otlpHeaders: config.inspect('otlpHeaders')?.globalValue,
    otlpProtocol: config.inspect('otlpProtocol')?.globalValue,
  };
}
