import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
const MAX_HOOK_OUTPUT_DEPTH = 128;
import { startAgent, type AgentHarness } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A webhook's answer well under its 1 MiB limit, nested 100,000 deep: it would pass the output
// schema (updatedInput and updatedToolOutput take any value) and overflow the stack where the
// host serializes it, ending the turn with an error that names no hook.
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const bypass = { mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] };

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/PreToolUse')
        res.end(
          `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo x","pad":${nested(100_000)}}}}`,
        );
      else res.end(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":${nested(100_000)}}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('hook output nested deeper than the host serializes', () => {
  it.each(['PreToolUse', 'PostToolUse'])('%s: is a failure of that hook, handled by its onFailure; the turn goes on', async (event) => {
    const files = {
      '.vscode/hooks.json': hooksJson({
        [event]: [{ matcher: 'Bash', hooks: [{ type: 'http', url: `${base}/${event}`, name: 'deep', onFailure: 'block' }] }],
      }),
    };
    h = await startAgent(files, [toolCalls([{ name: 'Bash', arguments: { command: 'echo ran > ran.txt' } }]), text('done')], {
      session: { permissions: () => bypass },
    });
    const result = await h.session.prompt('go');
    expect(result.error).toBeUndefined();
    expect(result.reason).toBe('completed');
    // A guard that fails closed: the call it would have rewritten does not run.
    expect(existsSync(h.workspace.file('ran.txt'))).toBe(event === 'PostToolUse');
    const { records } = await h.engine.audit.read(h.session.id);
    const run = records.find((r) => r.type === 'hook_run' && r.hook_name === 'deep');
    expect(run?.type === 'hook_run' && run.error).toContain(`nested more than ${MAX_HOOK_OUTPUT_DEPTH} levels deep`);
  });
});
