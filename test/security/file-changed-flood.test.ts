import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { isProcessAlive } from '../support/process-liveness';
import { hooksJson } from '../support/workspace';

const bypass = { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) };

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('FileChanged under a file the model keeps changing', () => {
  it('a background writer the model leaves running does not run the FileChanged hook back to back for as long as it lives', async () => {
    // A formatter-style hook: quick, and it says what it saw.
    const hook = `#!/bin/sh
echo '{"systemMessage":"watched.txt changed"}'
`;
    const cfg = hooksJson({
      FileChanged: [{ matcher: 'watched.txt', hooks: [{ type: 'command', command: './hooks/fc.sh', name: 'fc' }] }],
    });
    // The model starts a writer that outlives its call: 3 s of appends, as fast as a shell goes.
    const command = `setsid sh -c 'echo $$ > bg.pid; end=$(($(date +%s) + 3)); while [ $(date +%s) -lt $end ]; do echo x >> watched.txt; done' & until [ -s bg.pid ]; do sleep 0.01; done`;
    h = await startAgent(
      { 'hooks/fc.sh': hook, '.vscode/hooks.json': cfg, 'watched.txt': '' },
      [toolCalls([{ id: 'b1', name: 'Bash', arguments: { command } }]), text('started')],
      { session: bypass },
    );
    // How long the host rests between one run's end and the next run's start.
    const gaps: number[] = [];
    let lastEnd: number | undefined;
    h.engine.dispatcher.onWillRunHook((run) => {
      if (run.hook.name === 'fc' && lastEnd !== undefined) gaps.push(performance.now() - lastEnd);
    });
    h.engine.dispatcher.onDidRunHook((run) => {
      if (run.hook.name !== 'fc') return;
      lastEnd = performance.now();
    });
    await h.session.prompt('start it');
    const pid = Number(readFileSync(h.workspace.file('bg.pid'), 'utf8'));
    await vi.waitFor(() => expect(isProcessAlive(pid)).toBe(false), { timeout: 10_000, interval: 50 });
    const median = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)];
    // Changes that come during a run settle as the first ones do (SETTLE_MS, 50 ms): back to
    // back, the runs would follow each other within a few ms for as long as the writer lives.
    expect(gaps.length).toBeGreaterThan(5);
    expect(median).toBeGreaterThanOrEqual(40);
  }, 30_000);
});
