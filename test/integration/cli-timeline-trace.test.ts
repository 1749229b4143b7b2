import { afterEach, describe, expect, it } from 'vitest';
import type { TraceSpanJson } from '../../src/cli/commands/timeline-trace';
import { jsonResult, nodeHook, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// hookpilot timeline --trace through the bundled CLI, on a real run against the scripted model.

const files = {
  'hooks/guard.js': nodeHook(
    `if (/rm\\s+-rf/.test(input.tool_input.command || '')) { process.stderr.write('rm -rf is not allowed'); process.exit(2); }`,
  ),
  'hooks/context.js': nodeHook(`process.stdout.write('Branch: main');`),
  '.vscode/hooks.json': hooksJson({
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'guard' }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/context.js', name: 'branch-context' }] }],
  }),
  'keep.txt': 'x',
};

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('hookpilot timeline --trace', () => {
  it('prints the run as a tree (turn > step > model request / tool call > event > hook run) with starts and durations', async () => {
    const rm = 'rm -rf keep.txt\u202e';
    bed = await startTestbed(bundle.bundle, files, [toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: rm } }]), text('kept')]);
    const run = await bed.run(['delete keep.txt', '--output-format', 'json', '--allowed-tools', 'Bash']);
    const { session_id: sessionId, audit_log: auditLog } = jsonResult(run);

    const r = await bed.cli(['timeline', '--trace']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Session ${sessionId} (${auditLog})`);
    expect(lines[1].split(/\s{2,}/)).toEqual(['START', 'MS', 'SPAN', 'DECISION', 'REASON']);
    const span = (label: RegExp) => lines.find((l) => label.test(l));
    // Indentation is the depth: 0 for the turn, 2 spaces per level below it.
    const column = lines[1].indexOf('SPAN');
    const indent = (line: string | undefined) => /^ */.exec(line?.slice(column) ?? '')?.[0].length;
    expect(indent(span(/ Turn 1 · delete keep\.txt/))).toBe(0);
    expect(indent(span(/ UserPromptSubmit/))).toBe(2);
    expect(indent(span(/ branch-context +context/))).toBe(4);
    expect(indent(span(/ Step 1 /))).toBe(2);
    expect(indent(span(/ Model request · /))).toBe(4);
    // The model-written command is escaped: a bidi override cannot reorder the row.
    const call = span(/ Bash · rm -rf keep\.txt/);
    expect(call).toContain('Bash · rm -rf keep.txt\\u202e');
    expect(indent(call)).toBe(4);
    expect(span(/ guard +block +rm -rf is not allowed$/)).toBeDefined();
    expect(indent(span(/ guard +block/))).toBe(8);
    // Built-ins that did nothing are left out unless --all.
    expect(lines.some((l) => / Metrics /.test(l))).toBe(false);
    expect((await bed.cli(['timeline', '--trace', '--all'])).stdout).toMatch(/ Metrics /);

    const json = JSON.parse((await bed.cli(['timeline', '--trace', '--json'])).stdout) as { session_id: string; spans: TraceSpanJson[] };
    expect(json.session_id).toBe(sessionId);
    const turn = json.spans.find((s) => s.kind === 'turn');
    expect(turn).toMatchObject({ label: 'Turn 1 · delete keep.txt', decision: 'completed' });
    const walk = (spans: TraceSpanJson[]): TraceSpanJson[] => spans.flatMap((s) => [s, ...walk(s.children)]);
    const guard = walk(json.spans).find((s) => s.label === 'guard');
    expect(guard).toMatchObject({ kind: 'hook', event: 'PreToolUse', decision: 'block', reason: 'rm -rf is not allowed' });
    expect(guard?.start_ms).toBeGreaterThanOrEqual(turn?.start_ms ?? Infinity);
    expect((guard?.start_ms ?? 0) + (guard?.duration_ms ?? 0)).toBeLessThanOrEqual((turn?.start_ms ?? 0) + (turn?.duration_ms ?? 0) + 1);
  });
});
