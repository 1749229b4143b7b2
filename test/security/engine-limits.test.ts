import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Attacks on the hook engine's limits through the real CLI: configured timeouts, matchers,
// rpc frames and answers, the http allowlist. A limit that fails must never let a guarded
// action through.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const touch = (id: string, file: string) => toolCalls([{ id, name: 'Bash', arguments: { command: `touch ${file}` } }]);
const bypass = ['--permission-mode', 'bypassPermissions', '--output-format', 'json'];

/** A PreToolUse guard that takes a moment, then denies. */
const slowDeny = nodeHook(`setTimeout(() => {
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'slow guard says no' } }));
}, 500);`);

describe('timeouts', () => {
  it('a guard with a 30-day timeout (over Node\'s timer limit) still gets to deny', async () => {
    const guard = { type: 'command', command: 'node hooks/slow-deny.js', name: 'slow-guard', onFailure: 'block', timeout: 2_592_000 };
    bed = await startTestbed(bundle.bundle, { 'hooks/slow-deny.js': slowDeny, '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [guard] }] }) }, [
      touch('c1', 'made.txt'),
      text('done'),
    ]);
    const r = await bed.run(['go', ...bypass]);
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'blocked' });
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(false);
    expect(r.stderr).not.toContain('TimeoutOverflowWarning');
  });

  it('hooks validate reports the out-of-range timeout as an error at its position', async () => {
    const hooks = hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: 'true', timeout_ms: 99_999_999_999 }] }] });
    bed = await startTestbed(bundle.bundle, { '.vscode/hooks.json': hooks });
    const r = await bed.cli(['hooks', 'validate']);
    expect(r.code).toBe(1);
    const line = hooks.split('\n').findIndex((l) => l.includes('99999999999')) + 1;
    const column = hooks.split('\n')[line - 1].indexOf('99999999999') + 1;
    expect(r.stdout).toContain(
      `.vscode/hooks.json:${line}:${column}: error: "timeout_ms" 99999999999 is over the maximum of 86400000 ms (24 h); 86400000 ms (24 h) is used instead.`,
    );
  });
});
