import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REPLY_BYTES } from '../../src/core/agent/llm/reply-limits';
import { cliEnv, jsonResult, runCli, useCliBundle, type CliResult } from '../fixtures/cli/cli-harness';
import {
  answerText,
  chunkEvent,
  startRawStreamServer,
  toolCallEvent,
  type RawStreamHandler,
  type RawStreamServer,
} from '../support/raw-stream-server';
import { makeWorkspace } from '../support/workspace';

// A model reply is untrusted input whose size is the server's choice: past the documented
// limits the host stops reading it and ends the turn with a clear error, and the session goes
// on. It never grows until the process dies of heap exhaustion, nor parses one event for minutes.

const MiB = 1024 * 1024;
const bundle = useCliBundle();
let bed:
  { server: RawStreamServer; run(args: string[], env?: Record<string, string>): Promise<CliResult>; close(): Promise<void> } | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

async function startBed(handler: RawStreamHandler): Promise<NonNullable<typeof bed>> {
  const workspace = makeWorkspace({ 'a.txt': 'alpha\n' });
  const home = mkdtempSync(path.join(tmpdir(), 'hookpilot-cli-home-'));
  const server = await startRawStreamServer(handler);
  const args = ['--cwd', workspace.dir, '--base-url', server.url, '--model', 'raw-model', '--max-retries', '0', '--output-format', 'json'];
  return {
    server,
    run: (prompt, env = {}) => runCli(bundle.bundle, ['run', ...prompt, ...args], { env: cliEnv(home, env), timeoutMs: 50_000 }),
    close: async () => {
      await server.close();
      workspace.cleanup();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

describe('a model reply past the limits', () => {
  it('4 tool calls of 150 MB arguments each: the turn ends with a clear error, the host survives a 512 MB heap, and the session goes on', async () => {
    bed = await startBed(async (request, stream) => {
      if (request.index > 0) return answerText(stream, 'resumed');
      const piece = toolCallEvent(0, { arguments: 'A'.repeat(MiB) });
      for (let call = 0; call < 4; call++) {
        if (!(await stream.write(toolCallEvent(call, { id: `c${call}`, name: 'Read', arguments: '{"file_path":"' })))) return;
        for (let mb = 0; mb < 150; mb++) if (!(await stream.write(piece))) return;
        if (!(await stream.write(toolCallEvent(call, { arguments: '"}' })))) return;
      }
      stream.end(`${chunkEvent({}, 'tool_calls')}data: [DONE]\n\n`);
    });

    // A 512 MB heap stands for a host with others in it (the VS Code extension host).
    const failed = await bed.run(['go'], { NODE_OPTIONS: '--max-old-space-size=512' });

    expect(failed.signal, failed.stderr.slice(0, 2000)).toBeNull();
    expect(failed.stderr).not.toMatch(/heap out of memory/i);
    expect(failed.code).toBe(1);
    const first = jsonResult(failed);
    expect(first.is_error).toBe(true);
    expect(first.error).toMatch(/sent a reply over 64 MiB; the host stopped reading it/);
    expect(first.tool_calls).toEqual([]);
    expect(bed.server.bytesWritten()).toBeLessThan(MAX_REPLY_BYTES + 16 * MiB);
    const audit = readFileSync(first.audit_log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event?: string; payload?: { error_details?: string } });
    expect(audit.find((record) => record.event === 'StopFailure')?.payload?.error_details).toMatch(/over 64 MiB/);

    const resumed = await bed.run(['carry on', '--resume', first.session_id]);

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(jsonResult(resumed)).toMatchObject({ session_id: first.session_id, result: 'resumed', is_error: false });
    const sent = bed.server.requests[1].body.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(sent[0]).toBe('go');
    expect(sent.at(-1)).toBe('carry on');
  }, 120_000);

  it('one 64 MB stream event: the turn ends with a clear error once the event passes 16 MiB', async () => {
    bed = await startBed(async (_request, stream) => {
      const args = JSON.stringify({ file_path: 'big.txt', content: 'x'.repeat(64 * MiB) });
      if (!(await stream.write(toolCallEvent(0, { id: 'w1', name: 'Write', arguments: args })))) return;
      stream.end(`${chunkEvent({}, 'tool_calls')}data: [DONE]\n\n`);
    });

    const result = await bed.run(['go', '--permission-mode', 'acceptEdits']);

    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    const json = jsonResult(result);
    expect(json.is_error).toBe(true);
    expect(json.error).toMatch(/sent a stream event over 16 MiB; the host stopped reading it/);
    expect(json.tool_calls).toEqual([]);
  }, 60_000);
});
