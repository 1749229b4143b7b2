import { existsSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestbed, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';

// The model writes a plain file where the custom subagents folder (.claude/agents) would be.
// Nothing protects that path, and acceptEdits allows the Write without asking anyone.
// The folder is then a problem of its own (reported), never a failure of every later run.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('a model-written .claude/agents that is not a folder', () => {
  it('does not keep every later session of the workspace from starting', async () => {
    bed = await startTestbed(bundle.bundle, { 'README.md': 'hi\n' }, [
      toolCalls([{ id: 'w1', name: 'Write', arguments: { file_path: '.claude/agents', content: 'x' } }]),
      text('wrote it'),
      text('second run answered'),
    ]);
    const first = await bed.run(['--permission-mode', 'acceptEdits', 'do the thing']);
    expect(first.code).toBe(0);
    const planted = bed.workspace.file('.claude/agents');
    expect(existsSync(planted) && statSync(planted).isFile()).toBe(true);

    const second = await bed.run(['say hi']);
    expect(second.stderr).toContain('.claude/agents: not a readable folder');
    expect({ code: second.code, stderr: second.stderr }).toMatchObject({ code: 0 });
    expect(second.stdout).toContain('second run answered');
  });
});
