import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

/**
 * Each run notes how many runs of the hook are alive as it starts (itself included), lives one
 * second, and leaves. The largest count is the most hook processes the host had at once.
 */
const measuring = `#!/bin/sh
mkdir -p running
: > running/$$
ls running | wc -l >> counts
sleep 1
rm -f running/$$
`;
const maxConcurrent = (h: AgentHarness) =>
  Math.max(
    ...readFileSync(h.workspace.file('counts'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => Number(l.trim())),
  );
/** Cap any fix may pick; a handful of cores' worth, far below what the model asks for. */
const CAP = 16;
const CALLS = 60;

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function globs(n: number) {
  return Array.from({ length: n }, (_, i) => ({ id: `g${i}`, name: 'Glob', arguments: { pattern: `*${i}` } }));
}

function countRuns(harness: AgentHarness, name: string): () => number {
  let n = 0;
  harness.engine.dispatcher.onDidRunHook((run) => {
    if (run.hook.name === name) n++;
  });
  return () => n;
}

describe('hook processes the model can multiply', () => {
  it('async: true hooks: one reply of many read calls does not start a process per call at once', async () => {
    const cfg = hooksJson({ PostToolUse: [{ hooks: [{ type: 'command', command: './hooks/measure.sh', async: true, name: 'bg-log' }] }] });
    let runs = () => 0;
    h = await startAgent({ 'hooks/measure.sh': measuring, '.vscode/hooks.json': cfg }, async (_req, index) => {
      if (index === 0) {
        runs = countRuns(h!, 'bg-log');
        return toolCalls(globs(CALLS));
      }
      return text('ok');
    });
    await h.session.prompt('look');
    await vi.waitFor(() => expect(runs()).toBe(CALLS), { timeout: 60_000, interval: 100 });
    expect(maxConcurrent(h)).toBeLessThanOrEqual(CAP);
  }, 90_000);

  it('ToolSkipped observers: the calls skipped after a stop do not start a process each at once', async () => {
    const stopBash = `#!/bin/sh
echo '{"continue":false,"stopReason":"no shell"}'
`;
    const cfg = hooksJson({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './hooks/stop.sh' }] }],
      ToolSkipped: [{ hooks: [{ type: 'command', command: './hooks/measure.sh', name: 'skip-log' }] }],
    });
    let runs = () => 0;
    h = await startAgent({ 'hooks/measure.sh': measuring, 'hooks/stop.sh': stopBash, '.vscode/hooks.json': cfg }, async (_req, index) => {
      if (index === 0) {
        runs = countRuns(h!, 'skip-log');
        return toolCalls([{ id: 'b0', name: 'Bash', arguments: { command: 'true' } }, ...globs(CALLS)]);
      }
      return text('ok');
    });
    await h.session.prompt('look');
    await vi.waitFor(() => expect(runs()).toBe(CALLS), { timeout: 60_000, interval: 100 });
    expect(maxConcurrent(h)).toBeLessThanOrEqual(CAP);
  }, 90_000);

  it('PreToolUse on many parallel read calls: at most MAX_PARALLEL_READS (8) hook processes at once', async () => {
    const cfg = hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: './hooks/measure.sh', name: 'guard' }] }] });
    h = await startAgent({ 'hooks/measure.sh': measuring, '.vscode/hooks.json': cfg }, [toolCalls(globs(24)), text('ok')]);
    await h.session.prompt('look');
    expect(maxConcurrent(h)).toBeLessThanOrEqual(8);
  }, 90_000);
});
