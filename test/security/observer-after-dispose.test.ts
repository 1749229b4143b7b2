import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

let h: AgentHarness | undefined;
afterEach(() => {
  h?.workspace.cleanup();
  h = undefined;
});

describe('observer dispatches waiting in the limiter when the engine stops', () => {
  it('no hook starts after engine.dispose() resolved (the host said it stopped)', async () => {
    const stopBash = `#!/bin/sh
echo '{"continue":false,"stopReason":"no shell"}'
`;
    const slowLog = `#!/bin/sh
sleep 2
`;
    const cfg = hooksJson({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './hooks/stop.sh' }] }],
      ToolSkipped: [{ hooks: [{ type: 'command', command: './hooks/slow.sh', name: 'skip-log' }] }],
    });
    const calls = Array.from({ length: 48 }, (_, i) => ({ id: `g${i}`, name: 'Glob', arguments: { pattern: `*${i}` } }));
    h = await startAgent({ 'hooks/slow.sh': slowLog, 'hooks/stop.sh': stopBash, '.vscode/hooks.json': cfg }, [
      toolCalls([{ id: 'b0', name: 'Bash', arguments: { command: 'true' } }, ...calls]),
      text('ok'),
    ]);
    let disposed = false;
    const startedAfterDispose: string[] = [];
    h.engine.dispatcher.onWillRunHook((run) => {
      if (disposed) startedAfterDispose.push(`${run.event}:${run.hook.name}`);
    });
    await h.session.prompt('look');
    await h.session.end();
    await h.engine.dispose();
    disposed = true;
    // Wait for every observer dispatch still queued to settle (a real condition, not a sleep).
    await h.engine.dispatcher.drain(60_000);
    await h.server.close().catch(() => undefined);
    // ToolSkipped dispatches still waiting for a slot never start once the engine stopped
    // (its process runner and rpc pool are shut down).
    expect(startedAfterDispose).toEqual([]);
  }, 90_000);
});
