import { describe, expect, it } from 'vitest';
import { nodeHook, useTestbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A hook's `systemMessage` is shown to the user on every event, as Claude Code does: the tool
// events' too, not only SessionStart's and Stop's.

const testbed = useTestbed();

const say = (msg: string) => nodeHook(`process.stdout.write(JSON.stringify({ systemMessage: ${JSON.stringify(msg)} }));`);

describe('systemMessage on tool events', () => {
  it('is shown to the user for PreToolUse, PostToolUse and PostToolBatch as it is for Stop', async () => {
    const bed = await testbed(
      {
        'a.txt': 'hello\n',
        'hooks/pre.js': say('SYSMSG-PRE'),
        'hooks/post.js': say('SYSMSG-POST'),
        'hooks/batch.js': say('SYSMSG-BATCH'),
        'hooks/stop.js': say('SYSMSG-STOP'),
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'node hooks/pre.js' }] }],
          PostToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'node hooks/post.js' }] }],
          PostToolBatch: [{ hooks: [{ type: 'command', command: 'node hooks/batch.js' }] }],
          Stop: [{ hooks: [{ type: 'command', command: 'node hooks/stop.js' }] }],
        }),
      },
      [toolCalls([{ id: 'r1', name: 'Read', arguments: { file_path: 'a.txt' } }]), text('done')],
    );
    const r = await bed.run(['read it'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('SYSMSG-STOP');
    expect(r.stderr).toContain('SYSMSG-PRE');
    expect(r.stderr).toContain('SYSMSG-POST');
    expect(r.stderr).toContain('SYSMSG-BATCH');
  }, 90_000);
});
