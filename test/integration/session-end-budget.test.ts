import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeHook, useTestbed } from '../fixtures/cli/cli-harness';
import { text } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// SessionEnd hooks share a 1.5 s budget, raised to the largest `timeout` one of them sets, up to
// 60 s (Claude Code's): an uploader that declares `timeout: 10` and needs 3 s finishes its work.

const testbed = useTestbed();

const slowUpload = nodeHook(`setTimeout(() => fs.writeFileSync('uploaded.txt', input.reason), 3000);`);

describe('SessionEnd budget', () => {
  it('waits for a hook within its configured timeout (up to 60 s) before the run exits', async () => {
    const bed = await testbed(
      {
        'hooks/upload.js': slowUpload,
        '.vscode/hooks.json': hooksJson({ SessionEnd: [{ hooks: [{ type: 'command', command: 'node hooks/upload.js', timeout: 10 }] }] }),
      },
      [text('done')],
    );
    const r = await bed.run(['hi'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    // When `hookpilot run` has exited, the SessionEnd hook has finished its work.
    expect(existsSync(bed.workspace.file('uploaded.txt'))).toBe(true);
  }, 90_000);
});
