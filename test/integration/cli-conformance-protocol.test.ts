import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, toolMessageSent, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Claude Code conformance (docs/design.md#claude-codes-protocol) at the CLI level: exit codes and JSON, decisions,
// Stop and UserPromptSubmit. Real hook scripts; the checks are files and what the model is sent.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const touch = (id: string, file: string) => toolCalls([{ id, name: 'Bash', arguments: { command: `touch ${file}` } }]);
const deny = (reason: string) =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } });
const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } });

describe('conformance: exit codes and JSON', () => {
  it('20-24: exit 2 blocks (even with bad JSON or a JSON allow), exit 1 + JSON decides, exit 1 alone and a missing script do not block', async () => {
    // One script, one behaviour per target file: the command names the case.
    const protocol = nodeHook(`
const cmd = input.tool_input.command;
if (cmd.includes('f20')) { process.stdout.write('{"decision": 42}'); process.stderr.write('f20: blocked by exit 2'); process.exit(2); }
if (cmd.includes('f21')) { process.stdout.write(${JSON.stringify(allow)}); process.stderr.write('f21: exit 2 wins over allow'); process.exit(2); }
if (cmd.includes('f22')) { process.stdout.write(${JSON.stringify(deny('f22: denied by JSON on exit 1'))}); process.exit(1); }
if (cmd.includes('f23')) { process.stderr.write('f23: crashed\\nsecond line'); process.exit(1); }
`);
    bed = await startTestbed(
      bundle.bundle,
      {
        'hooks/protocol.js': protocol,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                { type: 'command', command: 'node hooks/protocol.js', name: 'protocol' },
                { type: 'command', command: './hooks/missing.sh', name: 'missing' },
              ],
            },
          ],
        }),
      },
      [touch('c20', 'f20'), touch('c21', 'f21'), touch('c22', 'f22'), touch('c23', 'f23'), touch('c24', 'f24'), text('done')],
    );
    const r = await bed.run(['touch them', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(r.code).toBe(0);
    const calls = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c]));

    // 20: exit 2 with schema-invalid JSON blocks; the reason is stderr.
    expect(existsSync(bed.workspace.file('f20'))).toBe(false);
    expect(calls.c20.outcome).toBe('blocked');
    expect(toolMessageSent(bed.server, 'c20')).toContain('f20: blocked by exit 2');
    // 21: a JSON allow cannot undo exit 2.
    expect(existsSync(bed.workspace.file('f21'))).toBe(false);
    expect(toolMessageSent(bed.server, 'c21')).toContain('f21: exit 2 wins over allow');
    // 22: exit 1 with valid JSON: the JSON decides, and it is not an error.
    expect(existsSync(bed.workspace.file('f22'))).toBe(false);
    expect(toolMessageSent(bed.server, 'c22')).toContain('f22: denied by JSON on exit 1');
    expect(calls.c22.hooks.filter((h) => h.hook_name === 'protocol').map((h) => h.kind)).toEqual(['blocked']);
    // 23: exit 1 without JSON is a non-blocking error: the tool runs, the first stderr line is reported.
    expect(existsSync(bed.workspace.file('f23'))).toBe(true);
    expect(calls.c23.outcome).toBe('executed');
    expect(calls.c23.hooks).toContainEqual(
      expect.objectContaining({ hook_name: 'protocol', kind: 'error', detail: expect.stringContaining('f23: crashed') }),
    );
    // 24: a missing script (exit 127) is a non-blocking error too: the tool runs.
    expect(existsSync(bed.workspace.file('f24'))).toBe(true);
    expect(calls.c24.outcome).toBe('executed');
    expect(calls.c24.hooks).toContainEqual(expect.objectContaining({ hook_name: 'missing', kind: 'error' }));
    expect((await bed.cli(['hooks', 'validate'])).stdout).toMatch(/warning: Hook script not found: \.\/hooks\/missing\.sh/);
  });

  it('27: continue:false next to permissionDecision allow stops the session (continue wins)', async () => {
    const halt = JSON.stringify({
      continue: false,
      stopReason: 'budget used up',
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' },
    });
    bed = await startTestbed(
      bundle.bundle,
      { '.vscode/hooks.json': hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: `echo '${halt}'`, name: 'budget' }] }] }) },
      [touch('c1', 'made.txt'), text('never')],
    );
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(r.code).toBe(1);
    expect(jsonResult(r)).toMatchObject({
      is_error: true,
      stop_reason: 'stopped',
      error: 'hook "budget" stopped the session: budget used up',
    });
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(false);
    expect(bed.server.requests).toHaveLength(1);
    expect(r.stderr).toBe('hookpilot: hook "budget" stopped the session: budget used up\n');
  });
});

describe('conformance: decisions against modes and rules', () => {
  it('30, 31: a hook deny blocks in bypassPermissions; a hook allow does not beat a settings deny rule', async () => {
    const decide = nodeHook(
      `process.stdout.write(input.tool_input.command.includes('f30') ? ${JSON.stringify(deny('f30 is off limits'))} : ${JSON.stringify(allow)});`,
    );
    bed = await startTestbed(
      bundle.bundle,
      {
        'hooks/decide.js': decide,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/decide.js' }] }],
        }),
        '.vscode/settings.json': '{\n  // project rules\n  "hookpilot.permissions": { "deny": ["Bash(touch f31)"] }\n}\n',
      },
      [touch('c30', 'f30'), touch('c31', 'f31'), touch('c32', 'f32'), text('done')],
    );
    const r = await bed.run(['touch', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    const calls = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(calls).toEqual({ c30: 'blocked', c31: 'denied', c32: 'executed' });
    expect(existsSync(bed.workspace.file('f30'))).toBe(false);
    expect(existsSync(bed.workspace.file('f31'))).toBe(false);
    expect(existsSync(bed.workspace.file('f32'))).toBe(true);
    expect(toolMessageSent(bed.server, 'c30')).toContain('f30 is off limits');
    expect(toolMessageSent(bed.server, 'c31')).toContain('Bash(touch f31)');
  });
});

describe('conformance: Stop and UserPromptSubmit', () => {
  it('36: a Stop block continues the turn with stop_hook_active set; the 9th consecutive block is overridden', async () => {
    const stop = `grep -o '"stop_hook_active":[a-z]*' >> stop.log; echo '{"decision":"block","reason":"run the tests again"}'`;
    bed = await startTestbed(
      bundle.bundle,
      { '.vscode/hooks.json': hooksJson({ Stop: [{ hooks: [{ type: 'command', command: stop }] }] }) },
      (_request, i) => text(`answer ${i + 1}`),
    );
    const r = await bed.run(['work', '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(jsonResult(r)).toMatchObject({ stop_reason: 'completed', result: 'answer 9' });
    const log = readFileSync(bed.workspace.file('stop.log'), 'utf8').trim().split('\n');
    expect(log).toEqual(['"stop_hook_active":false', ...Array<string>(8).fill('"stop_hook_active":true')]);
    expect(bed.server.requests).toHaveLength(9);
    expect(JSON.stringify(bed.server.requests[1].body.messages)).toContain('Stop hook feedback: run the tests again');
    expect(r.stderr).toMatch(/Stop hooks asked to continue 8 times in a row; stopping anyway \(cap 8\)/);
  });

  it('38: a UserPromptSubmit block erases the prompt: the user sees the reason, the model sees nothing', async () => {
    const gate = nodeHook(`if (input.prompt.includes('password')) { process.stderr.write('no passwords in prompts'); process.exit(2); }`);
    bed = await startTestbed(
      bundle.bundle,
      {
        'hooks/gate.js': gate,
        '.vscode/hooks.json': hooksJson({
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/gate.js', name: 'prompt-gate' }] }],
        }),
      },
      [text('never')],
    );
    const r = await bed.run(['my password is hunter2']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('hookpilot: the prompt was blocked by hook "prompt-gate": no passwords in prompts\n');
    expect(bed.server.requests).toHaveLength(0);
  });
});
