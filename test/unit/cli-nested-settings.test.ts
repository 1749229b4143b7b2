import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { userPassEnv } from '../../src/cli/cli-environment';
import { loadCliMcpConfigs } from '../../src/cli/mcp-setup';
import { userTelemetrySettings } from '../../src/cli/telemetry-setup';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function userSettings(value: unknown): string {
  dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-nested-'));
  const file = path.join(dir, 'settings.json');
  writeFileSync(file, JSON.stringify(value));
  return file;
}

describe("the CLI reads the user's settings in VS Code's nested form", () => {
  it('passEnv, telemetry and MCP servers written under "hookpilot": { ... }', () => {
    const file = userSettings({
      hookpilot: {
        tools: { bash: { passEnv: ['GITHUB_TOKEN'] } },
        telemetry: { otlpEndpoint: 'http://127.0.0.1:4318', otlpHeaders: { authorization: 'Bearer x' } },
        mcpServers: { fs: { command: 'mcp-fs' } },
      },
    });
    expect(userPassEnv(file)).toEqual({ names: ['GITHUB_TOKEN'] });
    expect(userTelemetrySettings(file)).toEqual({
      otlpEndpoint: 'http://127.0.0.1:4318',
      otlpHeaders: { authorization: 'Bearer x' },
      otlpProtocol: undefined,
    });
    expect(loadCliMcpConfigs(path.join(dir!, 'no-project'), file, []).flatMap((c) => c.servers.map((s) => s.name))).toEqual(['fs']);
  });
});
