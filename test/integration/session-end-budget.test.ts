import { existsSync, writeFileSync } from 'node:fs';
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

  it('raises the wait for SessionEnd hooks only: an unrelated observer still running does not hold the end', async () => {
    // A TurnEnd test run that never ends by itself; the SessionEnd hook is fast but may take 60 s.
    const slowObserver = `cat > /dev/null; touch observer-running; until [ -e release ]; do sleep 0.05; done`;
    const bed = await testbed(
      {
        '.vscode/hooks.json': hooksJson({
          TurnEnd: [{ hooks: [{ type: 'command', command: slowObserver, timeout: 600 }] }],
          SessionEnd: [{ hooks: [{ type: 'command', command: 'cat > /dev/null; touch ended', timeout: 60 }] }],
        }),
      },
      [text('done')],
    );
    try {
      // Holding the end for the observer would take the SessionEnd hook's 60 s, past this test's time.
      const r = await bed.run(['hi'], { timeoutMs: 20_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(bed.workspace.file('observer-running'))).toBe(true);
      expect(existsSync(bed.workspace.file('ended'))).toBe(true);
    } finally {
      writeFileSync(bed.workspace.file('release'), '');
    }
  }, 30_000);
});
