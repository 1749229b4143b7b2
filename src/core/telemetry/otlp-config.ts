import * as z from 'zod';
import { errorMessage } from '../error-message';
import { settingValue } from '../hooks/config/setting-value';
import { readSettingsFile } from '../hooks/config/workspace-config-files';

/**
 * Where OpenTelemetry data goes, from the user's own configuration only: the standard
 * `OTEL_EXPORTER_OTLP_*` environment variables or the user-level settings. A workspace never
 * takes part (a cloned repository must not be able to send your sessions to its collector).
 */

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export interface OtlpExportConfig {
  /** Full URLs, `<endpoint>/v1/traces` and `<endpoint>/v1/metrics`; undefined: that signal is not exported. */
  tracesUrl?: string;
  metricsUrl?: string;
  headers: Record<string, string>;
  protocol: OtlpProtocol;
  serviceName: string;
  /**
   * `OTEL_LOG_TOOL_DETAILS` (Claude Code's switch): hook reasons, error texts and the rules that
   * decided are exported as written. Off by default: they may quote tool input and output.
   */
  toolDetails: boolean;
  /** Where the configuration came from, for the log line that says export is on. */
  origin: 'environment' | 'settings';
}

export type OtlpConfigResult = { kind: 'off' } | { kind: 'on'; config: OtlpExportConfig } | { kind: 'invalid'; message: string };

/** The user-level settings (`hookpilot.telemetry.*`), as the host read them. */
export interface TelemetrySettings {
  otlpEndpoint?: unknown;
  otlpHeaders?: unknown;
  otlpProtocol?: unknown;
}

const settingsSchema = z.object({
  otlpEndpoint: z.string().trim().optional(),
  otlpHeaders: z.record(z.string(), z.string()).optional(),
  otlpProtocol: z.enum(OTLP_PROTOCOLS).optional(),
});

const DEFAULT_SERVICE_NAME = 'hookpilot';

/**
 * The export configuration. The setting `hookpilot.telemetry.otlpEndpoint` wins over
 * `OTEL_EXPORTER_OTLP_ENDPOINT`; each brings its own headers and protocol. Signal-specific
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `_METRICS_ENDPOINT` are used as given, and
 * `OTEL_TRACES_EXPORTER=none` / `OTEL_METRICS_EXPORTER=none` turn one signal off.
 */
export function resolveOtlpConfig(env: NodeJS.ProcessEnv, rawSettings: TelemetrySettings = {}): OtlpConfigResult {
  if (isTrue(env.OTEL_SDK_DISABLED)) return { kind: 'off' };
  const parsed = settingsSchema.safeParse(rawSettings);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    return invalid(`hookpilot.telemetry: ${issues.join('; ')}`);
  }
  const settings = parsed.data;
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME;
  // Claude Code's switches are `1`; the OpenTelemetry ones (OTEL_SDK_DISABLED) `true`.
  const toolDetails = isTrue(env.OTEL_LOG_TOOL_DETAILS) || env.OTEL_LOG_TOOL_DETAILS?.trim() === '1';
  const tracesOff = env.OTEL_TRACES_EXPORTER?.trim() === 'none';
  const metricsOff = env.OTEL_METRICS_EXPORTER?.trim() === 'none';
  try {
    if (settings.otlpEndpoint) {
      const base = httpUrl(settings.otlpEndpoint, 'hookpilot.telemetry.otlpEndpoint');
      return on({
        tracesUrl: tracesOff ? undefined : signalUrl(base, 'traces'),
        metricsUrl: metricsOff ? undefined : signalUrl(base, 'metrics'),
        headers: settings.otlpHeaders ?? {},
        protocol: settings.otlpProtocol ?? 'http/protobuf',
        serviceName,
        toolDetails,
        origin: 'settings',
      });
    }
    const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
    const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
    const metrics = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim();
    if (!base && !traces && !metrics) return { kind: 'off' };
    const baseUrl = base ? httpUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT') : undefined;
    const pick = (specific: string | undefined, name: string, signal: 'traces' | 'metrics') =>
      specific ? httpUrl(specific, name).href : baseUrl ? signalUrl(baseUrl, signal) : undefined;
    return on({
      tracesUrl: tracesOff ? undefined : pick(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'traces'),
      metricsUrl: metricsOff ? undefined : pick(metrics, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', 'metrics'),
      headers: parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS ?? ''),
      protocol: envProtocol(env.OTEL_EXPORTER_OTLP_PROTOCOL),
      serviceName,
      toolDetails,
      origin: 'environment',
    });
  } catch (error) {
    return invalid(errorMessage(error));
  }
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values percent-encoded (W3C Baggage form). */
export function parseOtlpHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    const key = eq > 0 ? entry.slice(0, eq).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      throw new Error('OTEL_EXPORTER_OTLP_HEADERS: each entry must be name=value with a valid header name');
    }
    let value: string;
    try {
      value = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      throw new Error(`OTEL_EXPORTER_OTLP_HEADERS: the value of ${key} is not valid percent-encoding`);
    }
    headers[key] = value;
  }
  return headers;
}

/** The string values of `hookpilot.telemetry.otlpHeaders`, even where the setting is invalid as a whole. */
export function settingsHeaderValues(settings: TelemetrySettings): string[] {
  const headers = settings.otlpHeaders;
  if (typeof headers !== 'object' || headers === null) return [];
  return Object.values(headers).filter((value): value is string => typeof value === 'string');
}

/**
 * A collector's key, in the user's settings or the environment, is a secret whether export is
 * on or not (Telemetry.start registers it for a live session): an engine that starts no export
 * (a replay, `hooks test`) runs hooks that may read them too.
 */
export function collectorKeys(env: NodeJS.ProcessEnv, userSettingsFile: string | undefined): string[] {
  const settings = userSettingsFile ? readSettingsFile(userSettingsFile).settings : {};
  return [...settingsHeaderValues({ otlpHeaders: settingValue(settings, 'hookpilot.telemetry.otlpHeaders') }), ...otlpHeaderValues(env)];
}

/**
 * Every header value the OpenTelemetry SDK may send from the environment (it adds
 * `OTEL_EXPORTER_OTLP_HEADERS` and the signal-specific `_TRACES_HEADERS` / `_METRICS_HEADERS`
 * to any export): collector keys, to be treated as secrets.
 */
export function otlpHeaderValues(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_EXPORTER_OTLP_METRICS_HEADERS']) {
    try {
      values.push(...Object.values(parseOtlpHeaders(env[name] ?? '')));
    } catch {
      // A malformed list was reported by resolveOtlpConfig (or the SDK ignores it).
    }
  }
  return values;
}

function envProtocol(value: string | undefined): OtlpProtocol {
  const protocol = value?.trim() || 'http/protobuf';
  if (protocol === 'grpc') {
    throw new Error('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: Hookpilot exports over OTLP/HTTP (http/protobuf or http/json)');
  }
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL: unknown protocol "${protocol}" (http/protobuf or http/json)`);
  }
  return protocol as OtlpProtocol;
}

function httpUrl(text: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${name}: not a URL: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name}: only http:// and https:// endpoints are supported (OTLP/HTTP), not ${url.protocol}`);
  }
  return url;
}

/** The OTLP/HTTP rule: the base endpoint gets `v1/traces` or `v1/metrics` appended to its path. */
function signalUrl(base: URL, signal: 'traces' | 'metrics'): string {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/${signal}`;
  return url.href;
}

function on(config: OtlpExportConfig): OtlpConfigResult {
  if (!config.tracesUrl && !config.metricsUrl) return { kind: 'off' };
  return { kind: 'on', config };
}

function invalid(message: string): OtlpConfigResult {
  return { kind: 'invalid', message: `${message}; OpenTelemetry export is off` };
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}

/** The collector's origin, never its path's query or credentials (for log lines). */
export function describeTarget(config: OtlpExportConfig): string {
  const url = config.tracesUrl ?? config.metricsUrl ?? '';
  try {
    return new URL(url).origin;
  } catch {
    return 'the collector';
  }
}
