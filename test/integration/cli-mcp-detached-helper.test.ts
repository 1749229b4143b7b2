import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, REPO_ROOT, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';

// `hookpilot run` with a stdio server whose helper (its own session) holds the server's stdout:
// the run ends when the turn does, and a crash mid-call is an error the model reads at once.

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/mcp/detached-child-server.mjs');
const bundle = useCliBundle();
let bed: Testbed | undefined;
let pidFile: string | undefined;
afterEach(async () => {
  // Only the helper this test's server started, by its pid.
  if (pidFile && existsSync(pidFile)) {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  pidFile = undefined;
  await bed?.close();
  bed = undefined;
});

async function testbed(script: Parameters<typeof startTestbed>[2]): Promise<Testbed> {
  bed = await startTestbed(bundle.bundle, {}, script);
  pidFile = bed.workspace.file('helper.pid');
  const mcp = { mcpServers: { d: { command: process.execPath, args: [FIXTURE], env: { HELPER_PID_FILE: pidFile } } } };
  writeFileSync(bed.workspace.file('.mcp.json'), JSON.stringify(mcp));
  return bed;
}

describe('hookpilot run with an MCP server whose helper keeps its stdout open', () => {
  it('exits once the turn is done instead of waiting for the pipe to close', async () => {
    const bed = await testbed([text('done')]);
    const run = await bed.run(['hi', '--output-format', 'json'], { timeoutMs: 20_000 });
    expect(run.code).toBe(0);
    expect(jsonResult(run).result).toBe('done');
    expect(existsSync(pidFile!)).toBe(true);
  });

  it('a crash mid-call reaches the model as the server exiting, well before the call timeout, and the run exits', async () => {
    const bed = await testbed([toolCalls([{ id: 'c1', name: 'mcp__d__crash', arguments: {} }]), text('done')]);
    // The call timeout is 120 s; the run must end within 20 s.
    const run = await bed.run(['crash it', '--allowed-tools', 'mcp__d', '--output-format', 'json'], { timeoutMs: 20_000 });
    expect(run.code).toBe(0);
    expect(toolMessageSent(bed.server, 'c1')).toMatch(/the server exited with code 7 before answering/);
  });
});
