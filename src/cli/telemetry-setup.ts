import { version } from '../../package.json';
import { HookEngine, type EngineLogger } from '../core/engine/hook-engine';
import { settingValue } from '../core/hooks/config/setting-value';
import { readSettingsFile } from '../core/hooks/config/workspace-config-files';
import type { TelemetrySettings } from '../core/telemetry/otlp-config';
import { Telemetry } from '../core/telemetry/telemetry';

/**
 * `hookpilot.telemetry.*` from the user's settings file, as in VS Code; never from the
 * workspace's .vscode/settings.json, which a cloned repository controls.
 */
export function userTelemetrySettings(settingsFile: string): TelemetrySettings {
  const { settings } = readSettingsFile(settingsFile);
  return {
    otlpEndpoint: settingValue(settings, 'hookpilot.telemetry.otlpEndpoint'),
    otlpHeaders: settingValue(settings, 'hookpilot.telemetry.otlpHeaders'),
    otlpProtocol: settingValue(settings, 'hookpilot.telemetry.otlpProtocol'),
  };
}

/**
 * The CLI's engine, exporting OpenTelemetry when the user configured it. The export stops
 * after the engine (whose audit log then holds every record of the run), waiting a bounded
 * time for the collector: a dead one never keeps the CLI from exiting.
 */
export class TelemetryHookEngine extends HookEngine {
  private telemetry: Telemetry | undefined;

  startTelemetry(env: NodeJS.ProcessEnv, settingsFile: string, log: EngineLogger): void {
    this.telemetry ??= Telemetry.start({
      env,
      settings: userTelemetrySettings(settingsFile),
      audit: this.audit,
      hasSubscribers: (event, sessionId) => this.dispatcher.hasSubscribers(event, sessionId),
      log,
      serviceVersion: version,
    });
  }

  override async dispose(): Promise<void> {
    try {
      await super.dispose();
    } finally {
      await this.telemetry?.shutdown();
    }
  }
}
