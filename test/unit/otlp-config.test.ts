import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/audit-log';
import { parseOtlpHeaders, resolveOtlpConfig } from '../../src/core/telemetry/otlp-config';
import { Telemetry } from '../../src/core/telemetry/telemetry';

describe('resolveOtlpConfig', () => {
  it('is off without an endpoint', () => {
    expect(resolveOtlpConfig({})).toEqual({ kind: 'off' });
    expect(resolveOtlpConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'a=b' }, { otlpEndpoint: '' })).toEqual({ kind: 'off' });
  });

  it('takes the standard variables: /v1/traces and /v1/metrics appended, headers decoded, protobuf by default', () => {
    const result = resolveOtlpConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com:4318/base/',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D%3D, tenant = team 1',
    });
    expect(result).toEqual({
      kind: 'on',
      config: {
        tracesUrl: 'https://otel.example.com:4318/base/v1/traces',
        metricsUrl: 'https://otel.example.com:4318/base/v1/metrics',
        headers: { 'x-api-key': 'abc==', tenant: 'team 1' },
        protocol: 'http/protobuf',
        serviceName: 'hookpilot',
        toolDetails: false,
        origin: 'environment',
      },
    });
  });

  it("exports what may quote tool input only with Claude Code's OTEL_LOG_TOOL_DETAILS", () => {
    const details = (value?: string) => {
      const result = resolveOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_LOG_TOOL_DETAILS: value });
      return result.kind === 'on' && result.config.toolDetails;
    };
    expect([details(), details('0'), details('false'), details('1'), details('true')]).toEqual([false, false, false, true, true]);
    const fromSettings = resolveOtlpConfig({ OTEL_LOG_TOOL_DETAILS: '1' }, { otlpEndpoint: 'http://c:4318' });
    expect(fromSettings.kind === 'on' && fromSettings.config.toolDetails).toBe(true);
  });

  it('signal endpoints are used as given; OTEL_*_EXPORTER=none turns a signal off; OTEL_SDK_DISABLED turns all off', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/custom',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_SERVICE_NAME: 'agent-a',
    };
    expect(resolveOtlpConfig(env)).toMatchObject({
      kind: 'on',
      config: { tracesUrl: 'http://t:1/custom', metricsUrl: undefined, serviceName: 'agent-a' },
    });
    expect(resolveOtlpConfig({ ...env, OTEL_TRACES_EXPORTER: 'none' })).toEqual({ kind: 'off' });
    expect(resolveOtlpConfig({ ...env, OTEL_SDK_DISABLED: 'true' })).toEqual({ kind: 'off' });
  });

  it('the user setting wins over the variables, with its own headers and protocol', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318', OTEL_EXPORTER_OTLP_HEADERS: 'a=b', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' };
    const result = resolveOtlpConfig(env, { otlpEndpoint: 'http://setting:4318', otlpHeaders: { k: 'v' }, otlpProtocol: 'http/json' });
    expect(result).toMatchObject({
      kind: 'on',
      config: { tracesUrl: 'http://setting:4318/v1/traces', headers: { k: 'v' }, protocol: 'http/json', origin: 'settings' },
    });
  });

  it('refuses grpc, unknown protocols, non-HTTP endpoints and malformed headers with a clear message', () => {
    const message = (env: NodeJS.ProcessEnv, settings = {}) => {
      const r = resolveOtlpConfig(env, settings);
      return r.kind === 'invalid' ? r.message : r.kind;
    };
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317' };
    expect(message({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: Hookpilot exports over OTLP/HTTP (http/protobuf or http/json); OpenTelemetry export is off',
    );
    expect(message({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })).toContain('unknown protocol "thrift"');
    expect(message({ OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///tmp/spans' })).toContain('only http:// and https:// endpoints are supported');
    expect(message({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toContain('OTEL_EXPORTER_OTLP_ENDPOINT: not a URL');
    expect(message({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'novalue' })).toContain('each entry must be name=value');
    expect(message({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'k=%E0%A4%A' })).toContain('the value of k is not valid percent-encoding');
    expect(message({}, { otlpEndpoint: 'http://c', otlpHeaders: { k: 3 } })).toMatch(/^hookpilot\.telemetry: otlpHeaders\.k: /);
    expect(message({}, { otlpEndpoint: 'http://c', otlpProtocol: 'grpc' })).toMatch(/^hookpilot\.telemetry: otlpProtocol: /);
  });

  it('parses an empty header list', () => {
    expect(parseOtlpHeaders('')).toEqual({});
    expect(parseOtlpHeaders(' , ')).toEqual({});
  });
});

describe('Telemetry.start', () => {
  it.each([
    ['export is off', {}, {}],
    ['OTEL_SDK_DISABLED turns export off', { otlpEndpoint: 'http://127.0.0.1:9' }, { OTEL_SDK_DISABLED: 'true' }],
    ['the settings are invalid', { otlpProtocol: 'grpc' }, {}],
  ])('registers the otlpHeaders of the user settings as secrets when %s: the model may read the settings file', (_label, settings, env) => {
    const audit = new AuditLog({ dir: path.join(tmpdir(), 'unused-audit') });
    const started = Telemetry.start({
      env,
      settings: { ...settings, otlpHeaders: { 'x-honeycomb-team': 'otlp-header-2w3e4r5t' } },
      audit,
      hasSubscribers: () => false,
      log: () => undefined,
      serviceVersion: 'test',
    });
    expect(started).toBeUndefined();
    expect(audit.redactor.redactForModel('"x-honeycomb-team": "otlp-header-2w3e4r5t"')).toBe(
      '"x-honeycomb-team": "[REDACTED:secret_value]"',
    );
  });
});
