import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// `hookpilot hooks stats` through the built CLI, on audit logs written by real `hookpilot run`s.

const SLOW_MS = 300;
// The failing hook repeats the command it saw (what the model wrote reaches the last error), then a long trace.
const failing = nodeHook(`const trace = 'at x.js:1 '.repeat(2000);
process.stderr.write('cannot reach the lint server for ' + input.tool_input.command + ' ' + trace);
process.exit(1);`);
const slow = nodeHook(`setTimeout(() => process.exit(0), ${SLOW_MS});`);
const workspace = {
  'hooks/failing.js': failing,
  'hooks/slow.js': slow,
  '.vscode/hooks.json': hooksJson({
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', name: 'slow-check', command: 'node hooks/slow.js' }] }],
    PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', name: 'lint-report', command: 'node hooks/failing.js' }] }],
  }),
};
const bashCalls = (commands: string[], prefix: string) =>
  toolCalls(commands.map((command, i) => ({ id: `${prefix}${i}`, name: 'Bash', arguments: { command } })));
// ESC ] 0 ; ... BEL retitles a terminal; U+202E reverses what follows it.
const HOSTILE = "echo '\u001b]0;pwned\u0007 \u202Eadd -- 1'";

interface StatsJson {
  sessions: string[];
  slow_hook_ms: number;
  hooks: Array<{
    id: string;
    name: string;
    event: string;
    runs: number;
    failures: number;
    timeouts: number;
    p50_ms: number;
    p95_ms: number;
    state: string;
    consecutive_failures: number;
    last_error: { status: string; message: string; session_id: string } | null;
    recent_ms: number[];
  }>;
}

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('hookpilot hooks stats', () => {
  it('reports runs, failures, latency percentiles, state and the last error of each hook from real runs', async () => {
    bed = await startTestbed(bundle.bundle, workspace, [
      bashCalls(['echo 1', 'echo 2', 'echo 3', 'echo 4', HOSTILE], 'a'),
      text('First run done.'),
      bashCalls(['echo again'], 'b'),
      text('Second run done.'),
    ]);
    const first = jsonResult(await bed.run(['five commands', '--output-format', 'json', '--allowed-tools', 'Bash']));
    expect(first.tool_calls.map((c) => c.outcome)).toEqual(Array(5).fill('executed'));
    const second = jsonResult(await bed.run(['one more', '--output-format', 'json', '--allowed-tools', 'Bash']));

    const all = await bed.cli(['hooks', 'stats', '--json', '--slow-ms', String(SLOW_MS - 100)]);
    expect(all.stderr).toBe('');
    expect(all.code).toBe(0);
    const stats = JSON.parse(all.stdout) as StatsJson;
    expect([...stats.sessions].sort()).toEqual([first.session_id, second.session_id].sort());
    const byName = (s: StatsJson, name: string) => s.hooks.find((h) => h.name === name);

    const lint = byName(stats, 'lint-report');
    expect(lint).toMatchObject({ event: 'PostToolUse', runs: 6, failures: 6, timeouts: 0, state: 'failing', consecutive_failures: 6 });
    expect(lint?.last_error).toMatchObject({ status: 'error', session_id: second.session_id });
    expect(lint?.last_error?.message).toContain('cannot reach the lint server for echo again');
    expect(lint?.recent_ms).toHaveLength(6);

    const slowCheck = byName(stats, 'slow-check');
    expect(slowCheck).toMatchObject({ event: 'PreToolUse', runs: 6, failures: 0, state: 'slow', last_error: null });
    expect(slowCheck?.p50_ms).toBeGreaterThanOrEqual(SLOW_MS);
    expect(slowCheck?.p95_ms).toBeGreaterThanOrEqual(slowCheck?.p50_ms ?? Infinity);
    // Built-in hooks are hooks too: they show up with their runs.
    expect(stats.hooks.length).toBeGreaterThan(2);

    const one = JSON.parse((await bed.cli(['hooks', 'stats', '--json', '--session', first.session_id.slice(0, 8)])).stdout) as StatsJson;
    expect(one.sessions).toEqual([first.session_id]);
    expect(byName(one, 'lint-report')).toMatchObject({ runs: 5, failures: 5 });
    expect(byName(one, 'lint-report')?.last_error?.message).toContain('\u202E');
    // The default limit is 2000 ms: a 300 ms hook is not slow by it.
    expect(byName(one, 'slow-check')?.state).toBe('healthy');
  });

  it('prints a table whose model-written text cannot drive the terminal, and reports a torn log line', async () => {
    bed = await startTestbed(bundle.bundle, workspace, [bashCalls([HOSTILE], 'c'), text('Done.')]);
    const result = jsonResult(await bed.run(['go', '--output-format', 'json', '--allowed-tools', 'Bash']));
    // A crash in the middle of a write leaves a torn last line.
    appendFileSync(result.audit_log, '{"type":"hook_run","seq":99');

    const table = await bed.cli(['hooks', 'stats']);
    expect(table.code).toBe(0);
    expect(table.stderr).toMatch(new RegExp(`warning: .*${path.basename(result.audit_log)}:\\d+: torn last line`));
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^HOOK +EVENT +RUNS +FAILED +TIMEOUTS +P50 +P95 +RECENT +STATE +LAST ERROR$/);
    const lint = rows.find((r) => r.startsWith('lint-report'));
    expect(lint).toMatch(/^lint-report +PostToolUse +1 +1 +0 +\S+ ms +\S+ ms +[▁-█] +healthy +error: Failed with non-blocking status/u);
    expect(lint).toContain('\\u001b]0;pwned\\u0007');
    expect(lint).toContain('\\u202e');
    expect([...table.stdout].filter((c) => /\p{Cc}|\p{Cf}/u.test(c) && c !== '\n')).toEqual([]);
    // A long error is cut in the table (JSON keeps it): one row stays one readable line.
    expect(lint?.length).toBeLessThan(500);
    expect(lint).toMatch(/…$/);
  });

  it('explains a session it cannot find, bad options, and a project with no runs', async () => {
    bed = await startTestbed(bundle.bundle, workspace, [text('Nothing to do.')]);
    const none = await bed.cli(['hooks', 'stats']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^hookpilot: no sessions recorded for .* yet: run "hookpilot run" there first\n$/);

    await bed.run(['hello']);
    const unknown = await bed.cli(['hooks', 'stats', '--session', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no session "nope"/);
    const bad = await bed.cli(['hooks', 'stats', '--slow-ms', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--slow-ms: expected a number of milliseconds/);

    // A hooks test run is a session of its own, left out unless asked for by id.
    const fired = await bed.cli(['hooks', 'test', 'PostToolUse', '--tool', 'Bash', '--input', '{"command":"echo test"}']);
    expect(fired.stderr).not.toMatch(/error/i);
    const sessions = JSON.parse((await bed.cli(['timeline', '--list', '--json'])).stdout) as Array<{ session_id: string }>;
    const testSession = sessions.find((s) => s.session_id.startsWith('test-'))?.session_id;
    expect(testSession).toBeDefined();
    const plain = JSON.parse((await bed.cli(['hooks', 'stats', '--json'])).stdout) as StatsJson;
    expect(plain.sessions).not.toContain(testSession);
    expect(plain.hooks.find((h) => h.name === 'lint-report')).toBeUndefined();
    const tested = JSON.parse((await bed.cli(['hooks', 'stats', '--json', '--session', testSession ?? ''])).stdout) as StatsJson;
    expect(tested.hooks.find((h) => h.name === 'lint-report')).toMatchObject({ runs: 1, failures: 1 });
  });
});
