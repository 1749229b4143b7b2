import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, toolMessageSent, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Claude Code conformance (docs/design.md#claude-codes-protocol) at the CLI level: matching, timeouts and merged decisions.
// Each item runs real hook scripts and checks what a user can observe.

const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/cli', name), 'utf8');
const logHook = (label: string) => ({ type: 'command', command: `sh hooks/log.sh '${label}'` });
const logLines = (bed: Testbed) => readFileSync(bed.workspace.file('hooks.log'), 'utf8').trim().split('\n').sort();

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('conformance: matchers', () => {
  it('1, 2: no matcher, "" and "*" fire for every tool; "A|B" and "A, B" are exact sets; other text is an unanchored regex', async () => {
    bed = await startTestbed(
      bundle.bundle,
      {
        'hooks/log.sh': fixture('log-hook.sh'),
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [
            { hooks: [logHook('absent')] },
            { matcher: '', hooks: [logHook('empty')] },
            { matcher: '*', hooks: [logHook('star')] },
            { matcher: 'Edit|Write', hooks: [logHook('pipe-set')] },
            { matcher: 'Edit, Write', hooks: [logHook('comma-set')] },
            { matcher: 'Edit.*', hooks: [logHook('regex')] },
            { matcher: '^Edit$', hooks: [logHook('anchored')] },
            { matcher: 'Writ', hooks: [logHook('partial-name')] },
          ],
        }),
      },
      [
        toolCalls([{ id: 'w', name: 'Write', arguments: { file_path: 'a.txt', content: 'one\n' } }]),
        toolCalls([{ id: 'e', name: 'Edit', arguments: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } }]),
        toolCalls([{ id: 'g', name: 'Glob', arguments: { pattern: '*.txt' } }]),
        text('done'),
      ],
    );
    const r = await bed.run(['edit', '--permission-mode', 'bypassPermissions']);
    expect(r.code).toBe(0);
    expect(readFileSync(bed.workspace.file('a.txt'), 'utf8')).toBe('two\n');
    expect(logLines(bed)).toEqual(
      [
        ...['absent', 'empty', 'star'].flatMap((l) => [`${l} Write`, `${l} Edit`, `${l} Glob`]),
        'pipe-set Write',
        'pipe-set Edit',
        'comma-set Write',
        'comma-set Edit',
        'regex Edit',
        'anchored Edit',
      ].sort(),
    );

    // "Edit.*" is unanchored: it also matches NotebookEdit's name; "^Edit$" and the exact set do not.
    const notebook = await bed.cli(['hooks', 'test', 'PreToolUse', '--tool', 'NotebookEdit', '--input', '{"notebook_path":"n.ipynb"}']);
    expect(notebook.code).toBe(0);
    const fired = [...notebook.stdout.matchAll(/^log\.sh \[command\]/gm)].length;
    expect(fired).toBe(4);
    expect(readFileSync(bed.workspace.file('hooks.log'), 'utf8')).toContain('regex NotebookEdit');
    expect(readFileSync(bed.workspace.file('hooks.log'), 'utf8')).not.toMatch(/(anchored|pipe-set|comma-set) NotebookEdit/);
  });

  it('5: a matcher on UserPromptSubmit is ignored: the hook fires and its context reaches the model', async () => {
    bed = await startTestbed(
      bundle.bundle,
      {
        'hooks/ups.js': nodeHook(`fs.writeFileSync('ups-ran.txt', input.prompt); process.stdout.write('Sprint goal: ship the CLI');`),
        '.vscode/hooks.json': hooksJson({
          UserPromptSubmit: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/ups.js' }] }],
        }),
      },
      [text('ok')],
    );
    const r = await bed.run(['plan the week']);
    expect(r.code).toBe(0);
    expect(readFileSync(bed.workspace.file('ups-ran.txt'), 'utf8')).toBe('plan the week');
    expect(JSON.stringify(bed.server.requests[0].body.messages)).toContain('Sprint goal: ship the CLI');
  });
});

describe('conformance: execution', () => {
  it('14: a hook that sleeps past its timeout gives no decision: the tool proceeds, the timeout is reported', async () => {
    const slowDeny = `sleep 5; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"too late"}}'`;
    bed = await startTestbed(
      bundle.bundle,
      {
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: slowDeny, timeout: 1, name: 'slow-guard' }] }],
        }),
      },
      [toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'touch made.txt' } }]), text('made')],
    );
    const r = await bed.run(['make it', '--permission-mode', 'bypassPermissions', '--output-format', 'stream-json']);
    expect(r.code).toBe(0);
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(true);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({ subtype: 'hook_response', hook_name: 'slow-guard', outcome: 'cancelled', status: 'timeout' }),
    );
    const call = lines.find((l) => l.type === 'user') as {
      outcome: string;
      hooks: Array<{ hook_name: string; kind: string; detail: string }>;
    };
    expect(call.outcome).toBe('executed');
    expect(call.hooks).toContainEqual(
      expect.objectContaining({ hook_name: 'slow-guard', kind: 'error', detail: expect.stringMatching(/timed out after 1000 ms/) }),
    );
  });
});

describe('conformance: decisions', () => {
  it('29: allow + ask -> ask, ask + deny -> deny, defer + ask -> defer; an ask still needs a person', async () => {
    const both = [
      { type: 'command', command: 'node hooks/decide.js 1', name: 'first' },
      { type: 'command', command: 'node hooks/decide.js 2', name: 'second' },
    ];
    bed = await startTestbed(
      bundle.bundle,
      { 'hooks/decide.js': fixture('decide-hook.js'), '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: both }] }) },
      [toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'echo allow ask > out.txt' } }]), text('asked')],
    );
    const merged = async (command: string) => {
      const r = await bed!.cli(['hooks', 'test', 'PreToolUse', '--input', JSON.stringify({ command }), '--json']);
      return (JSON.parse(r.stdout) as { result: { decision: string; blocked: boolean } }).result;
    };
    expect(await merged('echo allow ask')).toMatchObject({ decision: 'ask', blocked: false });
    expect(await merged('echo ask deny')).toMatchObject({ decision: 'deny', blocked: true });
    expect(await merged('echo defer ask')).toMatchObject({ decision: 'defer', blocked: false });

    // The allow rule from the command line does not outrank a hook's ask; with no terminal the ask is denied.
    const r = await bed.run(['write', '--allowed-tools', 'Bash', '--output-format', 'json']);
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'denied' });
    expect(existsSync(bed.workspace.file('out.txt'))).toBe(false);
    expect(toolMessageSent(bed.server, 'c1')).toMatch(/Permission denied/);
  });
});
