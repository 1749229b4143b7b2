import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResult, startTestbed, toolMessageSent, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// `hookpilot run` with an rpc policy server as docs/rpc-hooks.md recommends declaring it:
// `onFailure: "block"` and no lists, so its handshake decides what it takes.

const UNRULY = path.resolve(__dirname, '../fixtures/rpc/unruly-server.js');
const STRAY = path.resolve(__dirname, '../fixtures/rpc/stray-server.js');

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

function workspace(handshake: string, server: Record<string, unknown>) {
  return {
    '.vscode/hooks.json': hooksJson(
      {},
      {
        servers: {
          policy: {
            command: ['node', UNRULY, `--handshake=${handshake}`],
            onFailure: 'block',
            ...server,
            env: { FIXTURE_LOG: '${CLAUDE_PROJECT_DIR}/events.log', ...(server.env as Record<string, string> | undefined) },
          },
        },
      },
    ),
  };
}

/**
 * The model asks for `touch marker`, then is done. `afterHandshake`: it asks only once the
 * server has seen `initialized`, which the host sends right before it takes the handshake's lists.
 */
async function touchMarker(files: Record<string, string>, options: { afterHandshake?: boolean } = {}) {
  const events = () => (bed && existsSync(bed.workspace.file('events.log')) ? readFileSync(bed.workspace.file('events.log'), 'utf8') : '');
  bed = await startTestbed(bundle.bundle, files, async (request) => {
    if (request.index > 0) return text('done');
    if (options.afterHandshake) await vi.waitFor(() => expect(events()).toContain('initialized'), { timeout: 10_000 });
    return toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'touch marker' } }]);
  });
  const r = await bed.run(['make the marker', '--allowed-tools', 'Bash', '--output-format', 'json'], { timeoutMs: 60_000 });
  return { r, marker: existsSync(bed.workspace.file('marker')) };
}

describe('hookpilot run with an rpc guard', () => {
  it('a guard whose handshake comes late still decides the Bash call: its deny applies', async () => {
    const { r, marker } = await touchMarker(
      workspace('after:1000', { timeout_ms: 30_000, env: { FIXTURE_CAPS: JSON.stringify({ name: 'policy', intercept: ['PreToolUse'] }) } }),
    );
    expect(marker).toBe(false);
    expect(jsonResult(r).tool_calls).toEqual([expect.objectContaining({ id: 'c1', outcome: 'blocked' })]);
    expect(toolMessageSent(bed!.server, 'c1')).toContain('denied by unruly');
  });

  it('a guard that never answers its handshake blocks instead of letting the Bash call run', async () => {
    const { r, marker } = await touchMarker(workspace('never', { timeout_ms: 1000 }));
    expect(marker).toBe(false);
    // Every event it could intercept waits for it in vain: the prompt is blocked before any call.
    expect(jsonResult(r)).toMatchObject({ subtype: 'error_blocked', tool_calls: [] });
    expect(jsonResult(r).error).toMatch(/^hook "policy" failed \(timeout\)/);
  });

  it('a handshake without an intercept list keeps the config’s PreToolUse: the deny applies', async () => {
    const { r, marker } = await touchMarker(workspace('now', { intercept: ['PreToolUse'], env: { FIXTURE_CAPS: '{"name":"policy"}' } }), {
      afterHandshake: true,
    });
    expect(marker).toBe(false);
    expect(jsonResult(r).tool_calls).toEqual([expect.objectContaining({ id: 'c1', outcome: 'blocked' })]);
    expect(toolMessageSent(bed!.server, 'c1')).toContain('denied by unruly');
  });

  it('a guard that sends a 10,000-deep message the protocol does not have before its deny: the run goes on and the deny applies', async () => {
    const policy = {
      command: ['node', STRAY, '--before=deep'],
      onFailure: 'block',
      intercept: ['PreToolUse'],
      env: { FIXTURE_DEPTH: '10000' },
    };
    const { r, marker } = await touchMarker({ '.vscode/hooks.json': hooksJson({}, { servers: { policy } }) });
    expect(r.stderr).not.toContain('Maximum call stack size exceeded');
    expect(r.code).toBe(0);
    expect(marker).toBe(false);
    expect(jsonResult(r).tool_calls).toEqual([expect.objectContaining({ id: 'c1', outcome: 'blocked' })]);
    expect(toolMessageSent(bed!.server, 'c1')).toContain('denied by stray');
  });

  it('a guard stopped for flooding notifications fails as its onFailure says: the Bash call is blocked', async () => {
    const policy = { command: ['node', STRAY, '--flood=notification:1000000'], onFailure: 'block', intercept: ['PreToolUse'] };
    const { r, marker } = await touchMarker({ '.vscode/hooks.json': hooksJson({}, { servers: { policy } }) });
    expect(marker).toBe(false);
    expect(jsonResult(r).tool_calls).toEqual([expect.objectContaining({ id: 'c1', outcome: 'blocked' })]);
    // The deny it wrote behind its flood is not read: the stop's failure decides.
    expect(toolMessageSent(bed!.server, 'c1')).toMatch(
      /^PreToolUse hook "policy" blocked this call: hook "policy" failed \(error\): rpc server "policy" sent 101 messages the protocol does not have/,
    );
  });
});
