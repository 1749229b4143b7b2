import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// PermissionRequired through the real CLI: the call runs, `hookpilot timeline` lists the advisory record.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const output = { hookSpecificOutput: { hookEventName: 'PostToolUse', hookpilotPermissionRequired: { permission: 'network access' } } };

describe('hookpilot run with a PermissionRequired hook', () => {
  it('runs the call and the timeline shows a PermissionRequired row naming the tool, the hook and the permission', async () => {
    const files = {
      '.vscode/hooks.json': hooksJson({
        PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo '${JSON.stringify(output)}'` }] }],
      }),
    };
    bed = await startTestbed(bundle.bundle, files, [
      toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'echo fetched' } }]),
      text('done'),
    ]);
    const r = await bed.run(['fetch', '--allowed-tools', 'Bash', '--output-format', 'json']);
    expect(r.code).toBe(0);
    const result = jsonResult(r);
    expect(result.tool_calls[0]).toMatchObject({ outcome: 'executed' });
    const timeline = await bed.cli(['timeline', result.session_id]);
    expect(timeline.code, timeline.stderr).toBe(0);
    expect(timeline.stdout).toMatch(/PermissionRequired Bash\s+echo .*\s+advisory\s+network access/);
  });
});
