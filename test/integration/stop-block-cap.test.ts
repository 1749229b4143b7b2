import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeHook, useTestbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type RecordedRequest } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// The cap on Stop blocks (8, as Claude Code's) counts blocks in a row: a tool call between two
// starts the count again, so a test-suite Stop hook that sends a working agent back 9 times is
// honoured every time; only an agent that answers again without doing anything is capped.

const testbed = useTestbed();

const BLOCKS = 9;
const stopHook = nodeHook(`
const n = fs.existsSync('stops.log') ? fs.readFileSync('stops.log', 'utf8').split('\\n').filter(Boolean).length : 0;
fs.appendFileSync('stops.log', String(input.stop_hook_active) + '\\n');
if (n < ${BLOCKS}) process.stdout.write(JSON.stringify({ decision: 'block', reason: 'tests still fail (' + n + ')' }));
`);

let call = 0;
function script(req: RecordedRequest) {
  const last = req.body.messages.at(-1);
  // After Stop feedback the agent works (a tool call); after the tool result it answers again.
  if (last?.role === 'user' && String(last.content).startsWith('Stop hook feedback')) {
    call++;
    return toolCalls([{ id: `fix${call}`, name: 'Bash', arguments: { command: 'true' } }]);
  }
  return text('finished');
}

describe('the Stop block cap', () => {
  it('is not reached when each block is followed by a tool call', async () => {
    const bed = await testbed(
      {
        'hooks/stop.js': stopHook,
        '.vscode/hooks.json': hooksJson({ Stop: [{ hooks: [{ type: 'command', command: 'node hooks/stop.js' }] }] }),
      },
      script,
    );
    const r = await bed.run(['go', '--allowed-tools', 'Bash'], { timeoutMs: 80_000 });
    expect(r.code, r.stderr).toBe(0);
    const stops = readFileSync(bed.workspace.file('stops.log'), 'utf8').trim().split('\n');
    // 9 blocks honoured, the 10th Stop lets the turn end; no "stopping anyway" warning.
    expect(r.stderr).not.toMatch(/stopping anyway/);
    expect(stops.length).toBe(BLOCKS + 1);
  }, 120_000);
});
