import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import { auditRecordsOf, jsonResult, nodeHook, toolMessageSent, useTestbed, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Once the user cancels a turn, no further tool call runs: a guard the cancel killed never
// answered, so it allowed nothing, and the calls after the one in flight are not run at all.

const testbed = useTestbed();
let bed: Testbed | undefined;
/** The CLI run a test signals; its testbed kills it if the test fails first. */
let running: ChildProcess | undefined;

const auditRecords = (): Promise<AuditRecord[]> => auditRecordsOf(bed!);

const permissionsOf = (records: AuditRecord[], callId: string) =>
  records.flatMap((r) => (r.type === 'permission' && r.tool_use_id === callId ? [{ decision: r.decision, by: r.by }] : []));

const writeEnv = { id: 'w1', name: 'Write', arguments: { file_path: 'prod.env', content: 'API_URL=https://evil.example\n' } };
const NOT_RUN = 'Not run: the turn was cancelled before this call ran.';

/** Hooks that guard Write; `onFailure: "block"` as a policy hook should be. */
const guardedWrite = (event: 'PreToolUse' | 'approve_tool') =>
  hooksJson({
    [event]: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'env-guard', onFailure: 'block' }] }],
  });

/** A guard that takes its time and then lets the call through. */
const slowGuard = nodeHook(`fs.writeFileSync('guard-started', '1');
setTimeout(() => process.exit(0), 30000);`);

describe('a cancelled turn runs no further tool call', () => {
  it('Ctrl-C while a PreToolUse guard decides: the call does not run, the audit says the cancel denied it, and --continue resumes', async () => {
    bed = await testbed({ 'hooks/guard.js': slowGuard, '.vscode/hooks.json': guardedWrite('PreToolUse') }, [
      toolCalls([writeEnv]),
      text('resumed'),
    ]);
    const run = bed.run(['set it up', '--permission-mode', 'acceptEdits'], { onSpawn: (c) => (running = c), timeoutMs: 60_000 });
    await vi.waitFor(() => expect(existsSync(bed!.workspace.file('guard-started'))).toBe(true), { timeout: 30_000 });
    running!.kill('SIGINT');
    expect((await run).code).toBe(130);
    expect(existsSync(bed.workspace.file('prod.env'))).toBe(false);
    // Not "allowed by acceptEdits mode": the cancel decided.
    expect(permissionsOf(await auditRecords(), 'w1')).toEqual([{ decision: 'deny', by: 'cancel' }]);

    // The call got its tool message, so the conversation resumes.
    const resumed = await bed.run(['carry on', '--continue', '--output-format', 'json'], { timeoutMs: 60_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(jsonResult(resumed).result).toBe('resumed');
    expect(toolMessageSent(bed.server, 'w1')).toBe(NOT_RUN);
  }, 120_000);

  it('Ctrl-C while an approve_tool hook decides: its veto was not given, and the call still does not run', async () => {
    bed = await testbed({ 'hooks/guard.js': slowGuard, '.vscode/hooks.json': guardedWrite('approve_tool') }, [
      toolCalls([writeEnv]),
      text('done'),
    ]);
    const run = bed.run(['set it up', '--permission-mode', 'bypassPermissions'], { onSpawn: (c) => (running = c), timeoutMs: 60_000 });
    await vi.waitFor(() => expect(existsSync(bed!.workspace.file('guard-started'))).toBe(true), { timeout: 30_000 });
    running!.kill('SIGINT');
    expect((await run).code).toBe(130);
    expect(existsSync(bed.workspace.file('prod.env'))).toBe(false);
    expect(permissionsOf(await auditRecords(), 'w1').at(-1)).toEqual({ decision: 'deny', by: 'cancel' });
  }, 90_000);

  it('Ctrl-C during a slow Bash call: the Write after it in the same step is not run, not even without its guard', async () => {
    const quickGuard = nodeHook(
      `if (String(input.tool_input.file_path).endsWith('.env')) { process.stderr.write('no .env writes'); process.exit(2); }`,
    );
    bed = await testbed({ 'hooks/guard.js': quickGuard, '.vscode/hooks.json': guardedWrite('PreToolUse') }, [
      toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'touch slept.txt && sleep 30' } }, writeEnv]),
      text('done'),
    ]);
    const run = bed.run(
      [
        'set it up',
        '--permission-mode',
        'acceptEdits',
        '--allowed-tools',
        'Bash(touch *)',
        '--allowed-tools',
        'Bash(sleep *)',
        '--output-format',
        'json',
      ],
      { onSpawn: (c) => (running = c), timeoutMs: 60_000 },
    );
    await vi.waitFor(() => expect(existsSync(bed!.workspace.file('slept.txt'))).toBe(true), { timeout: 30_000 });
    running!.kill('SIGINT');
    const result = await run;
    expect(result.code).toBe(130);
    expect(existsSync(bed.workspace.file('prod.env'))).toBe(false);
    const write = jsonResult(result).tool_calls.find((c) => c.id === 'w1');
    expect(write).toMatchObject({ outcome: 'skipped', output: NOT_RUN });
    const records = await auditRecords();
    expect(permissionsOf(records, 'w1')).toEqual([]);
    expect(records.some((r) => r.type === 'event' && r.event === 'ToolSkipped')).toBe(true);
  }, 90_000);

  it('Ctrl-C during a slow AfterLLM hook: no call of the reply runs, though no guard of theirs has started', async () => {
    const hooks = hooksJson({
      AfterLLM: [{ hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }],
      PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'exit 2', onFailure: 'block' }] }],
    });
    bed = await testbed({ 'hooks/guard.js': slowGuard, '.vscode/hooks.json': hooks }, [toolCalls([writeEnv]), text('done')]);
    const run = bed.run(['set it up', '--permission-mode', 'acceptEdits'], { onSpawn: (c) => (running = c), timeoutMs: 60_000 });
    await vi.waitFor(() => expect(existsSync(bed!.workspace.file('guard-started'))).toBe(true), { timeout: 30_000 });
    running!.kill('SIGINT');
    expect((await run).code).toBe(130);
    expect(existsSync(bed.workspace.file('prod.env'))).toBe(false);
  }, 90_000);

  it('Ctrl-C while a Read guard decides ends as a Ctrl-C does (exit 130, SessionEnd runs), not by an error of the read', async () => {
    const hooks = hooksJson({
      PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'node hooks/guard.js', onFailure: 'block' }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: 'touch session-ended' }] }],
    });
    bed = await testbed({ 'notes.txt': 'private\n', 'hooks/guard.js': slowGuard, '.vscode/hooks.json': hooks }, [
      toolCalls([{ id: 'r1', name: 'Read', arguments: { file_path: 'notes.txt' } }]),
      text('done'),
    ]);
    const run = bed.run(['read it'], { onSpawn: (c) => (running = c), timeoutMs: 60_000 });
    await vi.waitFor(() => expect(existsSync(bed!.workspace.file('guard-started'))).toBe(true), { timeout: 30_000 });
    running!.kill('SIGINT');
    const result = await run;
    expect(result.code, result.stderr).toBe(130);
    expect(existsSync(bed.workspace.file('session-ended'))).toBe(true);
  }, 90_000);
});
