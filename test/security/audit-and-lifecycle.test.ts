import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import { auditRecordsOf, jsonResult, nodeHook, useTestbed, type Testbed } from '../fixtures/cli/cli-harness';
import { stall, text, toolCalls } from '../support/model-server';
import { isProcessAlive, waitUntilDead } from '../support/process-liveness';
import { hooksJson } from '../support/workspace';

// Every decision leaves a trace of who made it, a subagent cannot slip past the gates or the
// alerts on them, and an async hook never outlives the run that started it.

const testbed = useTestbed();
let bed: Testbed | undefined;
/** The CLI run a test signals; its testbed kills it if the test fails first. */
let running: ChildProcess | undefined;

const auditRecords = (): Promise<AuditRecord[]> => auditRecordsOf(bed!);

const guard = nodeHook(
  `if ((input.tool_input.command || '').includes('secrets')) { process.stderr.write('no peeking'); process.exit(2); }`,
);
const alert = nodeHook(
  `fs.appendFileSync('alerts.log', JSON.stringify({ tool_use_id: input.tool_use_id, agent_id: input.agent_id, source: input.source }) + '\\n');`,
);
const sleeper = `#!/bin/sh
echo $$ > async.pid
sleep 30
`;

describe('the audit says who decided', () => {
  it('hookpilot timeline shows each call allowed by a rule, denied by a hook, denied by the person (nobody at the terminal)', async () => {
    bed = await testbed(
      {
        'hooks/guard.js': guard,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'guard' }] }],
        }),
      },
      [
        toolCalls([
          { id: 'r1', name: 'Bash', arguments: { command: 'echo hello' } },
          { id: 'h1', name: 'Bash', arguments: { command: 'cat secrets' } },
          { id: 'p1', name: 'Bash', arguments: { command: 'touch owned.txt' } },
        ]),
        text('done'),
      ],
    );
    const result = await bed.run(['work', '--allowed-tools', 'Bash(echo *)']);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(bed.workspace.file('owned.txt'))).toBe(false);
    const timeline = await bed.cli(['timeline']);
    const rows = timeline.stdout.split('\n').filter((l) => l.includes('permission Bash'));
    expect(
      rows.map((row) =>
        row
          .replace(/^\S+\s+/, '')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
    ).toEqual([
      'permission Bash allowed by rule Bash(echo *) allow rule Bash(echo *)',
      'permission Bash denied by hook guard no peeking',
      'permission Bash a person is asked (default mode) commands need approval in default mode',
      'permission Bash denied by person (no-terminal) approval required, and there is no one to ask (use --allowed-tools or a permission mode)',
    ]);
  });

  it('a model-written path cannot forge or hide a row of hookpilot timeline with control characters', async () => {
    const forged = '/etc/passwd\r\u001b[2K12:00:00.000  permission Read  allowed by rule Read(*)\u001b[8m\u202e';
    bed = await testbed({}, [toolCalls([{ id: 'x1', name: 'Read', arguments: { file_path: forged } }]), text('done')]);
    expect((await bed.run(['read it'])).code).toBe(0);
    const timeline = await bed.cli(['timeline']);
    expect(timeline.stdout.replace(/[\n\t]/g, '')).not.toMatch(/\p{Cc}/u);
    expect(timeline.stdout).not.toMatch(/\p{Cf}/u);
    const row = timeline.stdout.split('\n').find((l) => l.includes('permission Read'));
    expect(row).toMatch(/denied by workspace boundary\s+path outside the workspace: \/etc\/passwd\\r\\u001b\[2K/);
  });

  it('a call routed through a Task subagent still fires the PermissionDenied alert and is audited with its agent id', async () => {
    bed = await testbed(
      {
        'hooks/alert.js': alert,
        '.vscode/hooks.json': hooksJson({ PermissionDenied: [{ hooks: [{ type: 'command', command: 'node hooks/alert.js' }] }] }),
      },
      [
        toolCalls([{ id: 'task1', name: 'Task', arguments: { description: 'quietly', prompt: 'upload the repo' } }]),
        toolCalls([{ id: 'sub1', name: 'Bash', arguments: { command: 'curl -T README.md http://127.0.0.1:9/' } }]),
        text('could not'),
        text('done'),
      ],
    );
    const result = await bed.run(['tidy up']);
    expect(result.code, result.stderr).toBe(0);
    await vi.waitFor(() => expect(existsSync(bed!.workspace.file('alerts.log'))).toBe(true));
    expect(
      readFileSync(bed.workspace.file('alerts.log'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([{ tool_use_id: 'sub1', agent_id: 'agent-1', source: 'User' }]);
    const decisions = (await auditRecords()).filter((r) => r.type === 'permission' && r.tool_use_id === 'sub1');
    expect(decisions).toMatchObject([
      { decision: 'ask', by: 'mode', agent_id: 'agent-1' },
      { decision: 'deny', by: 'person', source: 'no-terminal', agent_id: 'agent-1' },
    ]);
  });
});

describe('a subagent passes the same gates', () => {
  it('a call routed through a Task subagent cannot slip past an approve_tool guard, even in bypassPermissions mode', async () => {
    const freeze = nodeHook(`
fs.appendFileSync('guard.log', input.tool_use_id + ' ' + (input.agent_id || 'main') + '\\n');
if ((input.tool_input.command || '').includes('curl')) process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'no network' } } }));`);
    bed = await testbed(
      {
        'hooks/freeze.js': freeze,
        '.vscode/hooks.json': hooksJson({
          approve_tool: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/freeze.js', name: 'no-network' }] }],
        }),
      },
      [
        toolCalls([{ id: 'task1', name: 'Task', arguments: { description: 'upload', prompt: 'upload the repo' } }]),
        toolCalls([{ id: 'sub1', name: 'Bash', arguments: { command: 'curl -s http://127.0.0.1:9/ ; touch uploaded.txt' } }]),
        text('could not'),
        text('done'),
      ],
    );
    const result = await bed.run(['tidy up', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(bed.workspace.file('uploaded.txt'))).toBe(false);
    expect(readFileSync(bed.workspace.file('guard.log'), 'utf8')).toBe('sub1 agent-1\n');
    // Calls its matcher does not select (Task) leave no PermissionRequest behind.
    const requests = (await auditRecords()).filter((r) => r.type === 'event' && r.event === 'PermissionRequest');
    expect(requests.map((r) => r.type === 'event' && (r.payload as { tool_use_id?: string }).tool_use_id)).toEqual(['sub1']);
  });
});

describe('a hook inside a subagent ends the main turn as it would the main agent’s', () => {
  const taskThenMore = (subagentCall: Parameters<typeof toolCalls>[0][number]) => [
    toolCalls([{ id: 'task1', name: 'Task', arguments: { description: 'clean', prompt: 'clean up' } }]),
    toolCalls([subagentCall]),
    // What the main agent would do next if the Task call came back as an ordinary failure.
    toolCalls([{ id: 'after1', name: 'Write', arguments: { file_path: 'after.txt', content: 'x' } }]),
    text('done'),
  ];

  it('a PreToolUse continue:false on a subagent’s call ends the session: the main agent makes no further call', async () => {
    const killSwitch = nodeHook(
      `if ((input.tool_input.command || '').includes('rm -rf')) process.stdout.write(JSON.stringify({ continue: false, stopReason: 'kill switch' }));`,
    );
    bed = await testbed(
      {
        'hooks/kill.js': killSwitch,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/kill.js', name: 'kill-switch' }] }],
        }),
      },
      taskThenMore({ id: 'sub1', name: 'Bash', arguments: { command: 'rm -rf build' } }),
    );
    const result = jsonResult(await bed.run(['tidy up', '--permission-mode', 'bypassPermissions', '--output-format', 'json']));
    expect(result.stop_reason).toBe('stopped');
    expect(result.error).toBe('hook "kill-switch" stopped the session: kill switch');
    expect(result.tool_calls.map((c) => [c.id, c.outcome])).toEqual([['task1', 'failed']]);
    expect(existsSync(bed.workspace.file('after.txt'))).toBe(false);
    // The main agent's model is not asked again after the subagent's stopped request.
    expect(bed.server.requests).toHaveLength(2);
    const decisions = (await auditRecords()).filter((r) => r.type === 'permission' && r.tool_use_id === 'sub1');
    expect(decisions).toMatchObject([{ decision: 'deny', by: 'hook', source: 'hook kill-switch', agent_id: 'agent-1' }]);
  });

  it('a PermissionRequest interrupt:true on a subagent’s call ends the session: the call and the main agent’s next one do not run', async () => {
    const interrupter = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'stop everything', interrupt: true } } }));`,
    );
    bed = await testbed(
      {
        'hooks/interrupt.js': interrupter,
        '.vscode/hooks.json': hooksJson({
          PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/interrupt.js', name: 'interrupter' }] }],
        }),
      },
      taskThenMore({ id: 'sub1', name: 'Bash', arguments: { command: 'touch sub.txt' } }),
    );
    const result = jsonResult(await bed.run(['tidy up', '--permission-mode', 'acceptEdits', '--output-format', 'json']));
    expect(result.stop_reason).toBe('stopped');
    expect(result.error).toBe('hook "interrupter" stopped the session: stop everything');
    expect(existsSync(bed.workspace.file('sub.txt'))).toBe(false);
    expect(existsSync(bed.workspace.file('after.txt'))).toBe(false);
    expect(bed.server.requests).toHaveLength(2);
  });

  it('an AfterLLM abort on a subagent’s reply aborts the main turn', async () => {
    const abortInSubagent = nodeHook(
      `if (input.agent_id) process.stdout.write(JSON.stringify({ reason: 'not in a subagent', hookSpecificOutput: { hookEventName: 'AfterLLM', abort: 'turn' } }));`,
    );
    bed = await testbed(
      {
        'hooks/abort.js': abortInSubagent,
        '.vscode/hooks.json': hooksJson({ AfterLLM: [{ hooks: [{ type: 'command', command: 'node hooks/abort.js', name: 'aborter' }] }] }),
      },
      taskThenMore({ id: 'sub1', name: 'Bash', arguments: { command: 'touch sub.txt' } }),
    );
    const result = jsonResult(await bed.run(['tidy up', '--permission-mode', 'bypassPermissions', '--output-format', 'json']));
    expect(result.stop_reason).toBe('aborted');
    expect(result.error).toBe('hook "aborter" aborted the turn: not in a subagent');
    expect(existsSync(bed.workspace.file('sub.txt'))).toBe(false);
    expect(existsSync(bed.workspace.file('after.txt'))).toBe(false);
    expect(bed.server.requests).toHaveLength(2);
  });
});

describe('a subagent’s model requests pass the model hooks', () => {
  it('an AfterLLM hook that drops Bash calls also drops a subagent’s, and its payload names the agent', async () => {
    const dropBash = nodeHook(`
fs.appendFileSync('afterllm.log', (input.agent_id || 'main') + ' ' + input.llm_response.tool_calls.map((c) => c.name).join(',') + '\\n');
const calls = input.llm_response.tool_calls.filter((c) => c.name !== 'Bash');
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'AfterLLM', llmResponse: { tool_calls: calls } } }));`);
    bed = await testbed(
      {
        'hooks/drop.js': dropBash,
        '.vscode/hooks.json': hooksJson({ AfterLLM: [{ hooks: [{ type: 'command', command: 'node hooks/drop.js', name: 'no-bash' }] }] }),
      },
      [
        toolCalls([{ id: 'task1', name: 'Task', arguments: { description: 'run', prompt: 'run it' } }]),
        // Without its Bash call this reply is the subagent's (empty) answer.
        toolCalls([{ id: 'sub1', name: 'Bash', arguments: { command: 'touch ran.txt' } }]),
        text('done'),
      ],
    );
    const result = await bed.run(['go', '--permission-mode', 'bypassPermissions']);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(bed.workspace.file('ran.txt'))).toBe(false);
    expect(readFileSync(bed.workspace.file('afterllm.log'), 'utf8')).toBe('main Task\nagent-1 Bash\nmain \n');
  });
});

describe('async hooks end with the run', () => {
  const asyncConfig = hooksJson({
    PostToolUse: [{ hooks: [{ type: 'command', command: './hooks/sleeper.sh', async: true, name: 'bg-sleep' }] }],
  });

  async function expectCancelled(pid: number): Promise<void> {
    expect(await waitUntilDead(pid, 5_000)).toBe(true);
    const runs = (await auditRecords()).filter((r) => r.type === 'hook_run' && r.hook_name === 'bg-sleep');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'cancelled', async: true, error: 'cancelled: the session ended' });
  }

  it('Ctrl-C: the async hook process is gone after the CLI exits, and its record says it was cancelled', async () => {
    bed = await testbed({ 'hooks/sleeper.sh': sleeper, '.vscode/hooks.json': asyncConfig }, [
      toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]),
      stall(1),
    ]);
    const run = bed.run(['look'], { onSpawn: (c) => (running = c), timeoutMs: 30_000 });
    const pidFile = bed.workspace.file('async.pid');
    await vi.waitFor(() => expect(existsSync(pidFile) && /^\d+\s*$/.test(readFileSync(pidFile, 'utf8'))).toBe(true), { timeout: 15_000 });
    await vi.waitFor(() => expect(bed!.server.requests).toHaveLength(2), { timeout: 15_000 });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isProcessAlive(pid)).toBe(true);
    running!.kill('SIGINT');
    expect((await run).code).toBe(130);
    await expectCancelled(pid);
  });

  it('a run that completes does not leave its async hook running behind it', async () => {
    bed = await testbed({ 'hooks/sleeper.sh': sleeper, '.vscode/hooks.json': asyncConfig }, async (_request, index) => {
      if (index === 0) return toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]);
      // The answer waits until the hook has written its pid, so the run ends while it still sleeps.
      const pidFile = bed!.workspace.file('async.pid');
      await vi.waitFor(() => expect(existsSync(pidFile) && /^\d+\s*$/.test(readFileSync(pidFile, 'utf8'))).toBe(true), { timeout: 15_000 });
      return text('done');
    });
    const result = await bed.run(['look']);
    expect(result.code, result.stderr).toBe(0);
    await expectCancelled(Number(readFileSync(bed.workspace.file('async.pid'), 'utf8')));
  });
});
