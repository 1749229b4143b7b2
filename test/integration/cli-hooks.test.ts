import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// hooks list / hooks test / timeline through the bundled CLI.

const guard = nodeHook(
  `if (/rm\\s+-rf/.test(input.tool_input.command || '')) { process.stderr.write('rm -rf is not allowed'); process.exit(2); }`,
);
const files = {
  'hooks/guard.js': guard,
  'hooks/context.js': nodeHook(`process.stdout.write('Branch: main (prompt was ' + input.prompt.length + ' chars)');`),
  '.vscode/hooks.json': hooksJson({
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'guard' }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/context.js', name: 'branch-context' }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'echo off', name: 'switched-off', enabled: false }] }],
  }),
  '.vscode/settings.json': JSON.stringify(
    {
      'hookpilot.hooks': {
        hooks: { PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'echo formatted', name: 'formatter' }] }] },
      },
    },
    null,
    2,
  ),
};

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('hookpilot hooks list', () => {
  it('lists every hook with id, event, matcher, type, name, source file:line and state', async () => {
    bed = await startTestbed(bundle.bundle, files);
    const r = await bed.cli(['hooks', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0].split(/\s{2,}/)).toEqual(['ID', 'EVENT', 'MATCHER', 'TYPE', 'NAME', 'SOURCE', 'STATE']);
    const row = (name: string) => lines.find((l) => l.split(/\s{2,}/)[4] === name)?.split(/\s{2,}/);
    expect(row('guard')?.slice(1)).toEqual(['PreToolUse', 'Bash', 'command', 'guard', '.vscode/hooks.json:7', 'active']);
    expect(row('branch-context')?.slice(1)).toEqual([
      'UserPromptSubmit',
      '*',
      'command',
      'branch-context',
      '.vscode/hooks.json:18',
      'active',
    ]);
    expect(row('switched-off')?.slice(1)).toEqual(['Stop', '*', 'command', 'switched-off', '.vscode/hooks.json:29', 'disabled']);
    expect(row('formatter')?.slice(1)).toEqual(['PostToolUse', 'Write|Edit', 'command', 'formatter', '.vscode/settings.json:8', 'active']);
    expect(row('Cancellation')?.slice(1)).toEqual(['PreToolUse', '*', 'builtin', 'Cancellation', 'builtin', 'active']);

    // Without HOOKPILOT_USER_SETTINGS, the user's hooks come from VS Code's user settings.json.
    const vscodeUser = path.join(bed.home, '.config', 'Code', 'User', 'settings.json');
    mkdirSync(path.dirname(vscodeUser), { recursive: true });
    writeFileSync(
      vscodeUser,
      JSON.stringify({
        'hookpilot.hooks': { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo hi', name: 'user-greeting' }] }] } },
      }),
    );
    const withUser = await bed.cli(['hooks', 'list'], { env: { HOOKPILOT_USER_SETTINGS: '' } });
    expect(withUser.stdout).toMatch(new RegExp(`user-greeting +${vscodeUser.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1 +active`));

    const json = JSON.parse((await bed.cli(['hooks', 'list', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(json.find((h) => h.name === 'guard')).toMatchObject({
      event: 'PreToolUse',
      matcher: 'Bash',
      type: 'command',
      target: 'node hooks/guard.js',
      enabled: true,
      active: true,
      source: { kind: 'hooksJson', line: 7 },
    });
    expect(json.find((h) => h.name === 'switched-off')).toMatchObject({ enabled: false, active: false, inactive_reason: 'disabled' });
    expect(json.find((h) => h.name === 'guard')?.id).toBe(row('guard')?.[0]);
  });
});

describe('hookpilot hooks test', () => {
  it('runs the matching guard on a sample payload: denies rm -rf /, lets ls through, with latency', async () => {
    bed = await startTestbed(bundle.bundle, files);
    const deny = await bed.cli(['hooks', 'test', 'PreToolUse', '--tool', 'Bash', '--input', '{"command":"rm -rf /"}']);
    expect(deny.code).toBe(0);
    expect(deny.stdout).toContain('PreToolUse Bash {"command":"rm -rf /"}');
    expect(deny.stdout).toMatch(
      /guard \[command\] \.vscode\/hooks\.json:7\n {2}decision: block {2}status: blocking-error {2}exit code: 2 {2}latency: \d+ ms\n {2}reason: rm -rf is not allowed/,
    );
    expect(deny.stdout).toMatch(/Result: deny \(blocked\)\n {2}reason: rm -rf is not allowed/);

    writeFileSync(bed.workspace.file('ls.json'), '{"command":"ls -la"}');
    const allow = await bed.cli(['hooks', 'test', 'before_tool', '--input', '@ls.json']);
    expect(allow.stdout).toMatch(/guard \[command\] .*\n {2}decision: none {2}status: success {2}exit code: 0 {2}latency: \d+ ms/);
    expect(allow.stdout).toContain('Result: no decision: nothing blocked, the action goes on');
    expect(allow.stdout).not.toContain('blocked)');

    const json = JSON.parse((await bed.cli(['hooks', 'test', 'PreToolUse', '--input', '{"command":"rm -rf /"}', '--json'])).stdout) as {
      session_id: string;
      payload: Record<string, unknown>;
      hooks: Array<Record<string, unknown>>;
      result: Record<string, unknown>;
    };
    expect(json.session_id).toMatch(/^test-[0-9a-f-]{36}$/);
    expect(json.payload).toMatchObject({
      hook_event_name: 'PreToolUse',
      session_id: json.session_id,
      cwd: bed.workspace.dir,
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf /' },
    });
    expect(json.hooks.find((h) => h.name === 'guard')).toMatchObject({
      status: 'blocking-error',
      decision: 'block',
      exit_code: 2,
      stderr: 'rm -rf is not allowed',
      latency_ms: expect.any(Number),
    });
    expect(json.result).toMatchObject({ decision: 'deny', blocked: true, block_reason: 'rm -rf is not allowed' });
  });

  it('other events take payload fields from --input; plain stdout of UserPromptSubmit becomes context', async () => {
    bed = await startTestbed(bundle.bundle, files);
    const r = await bed.cli(['hooks', 'test', 'OnUserPromptSubmit', '--input', '{"prompt":"fix the bug"}']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/branch-context \[command\] .*\n {2}decision: context {2}status: success/);
    expect(r.stdout).toContain('context: [Hook: branch-context | UserPromptSubmit] Branch: main (prompt was 11 chars)');
  });

  it('refuses --input nested too deep to report, before any hook runs', async () => {
    bed = await startTestbed(bundle.bundle, {
      'hooks/mark.js': nodeHook(`require('fs').appendFileSync('ran.txt', 'x');`),
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/mark.js', name: 'mark' }] }],
      }),
      'deep.json': `{"command":${'['.repeat(6000)}${']'.repeat(6000)}}`,
    });
    const r = await bed.cli(['hooks', 'test', 'PreToolUse', '--input', '@deep.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--input: nested more than \d+ levels deep/);
    expect(existsSync(path.join(bed.workspace.dir, 'ran.txt'))).toBe(false);
  });
});

describe('hookpilot hooks validate', () => {
  it('reads a hooks.json that starts with a UTF-8 byte order mark as the loader does: no error', async () => {
    bed = await startTestbed(bundle.bundle, { ...files, '.vscode/hooks.json': `\uFEFF${files['.vscode/hooks.json']}` });
    const validate = await bed.cli(['hooks', 'validate']);
    expect(validate.stdout).toBe('');
    expect(validate.code).toBe(0);
    expect((await bed.cli(['hooks', 'list'])).stdout).toMatch(/guard\s+\.vscode\/hooks\.json:\d+\s+active/);
  });
});

describe('hookpilot timeline', () => {
  it('shows the hook runs of the last run as a table, lists sessions, and reports a torn last line', async () => {
    bed = await startTestbed(bundle.bundle, { ...files, 'keep.txt': 'x' }, [
      toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'rm -rf keep.txt' } }]),
      text('kept'),
    ]);
    const run = await bed.run(['delete keep.txt', '--output-format', 'json', '--allowed-tools', 'Bash']);
    const { session_id: sessionId, audit_log: auditLog } = jsonResult(run);
    // A later `hooks test` must not become "the most recent session".
    await bed.cli(['hooks', 'test', 'PreToolUse', '--input', '{"command":"ls"}']);

    const r = await bed.cli(['timeline']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`Session ${sessionId} (${auditLog})`);
    expect(lines[1].split(/\s{2,}/)).toEqual(['TIME', 'EVENT', 'HOOK', 'DECISION', 'MS', 'REASON']);
    const guardRow = lines.find((l) => / PreToolUse +guard /.test(l));
    expect(guardRow).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}PreToolUse +guard +block \(blocking-error\) +\d+\.\d +rm -rf is not allowed$/);
    expect(lines.some((l) => / UserPromptSubmit +branch-context +context /.test(l))).toBe(true);
    expect(lines.some((l) => / Metrics /.test(l))).toBe(false);
    expect((await bed.cli(['timeline', '--all'])).stdout).toMatch(/ Metrics /);

    const list = await bed.cli(['timeline', '--list']);
    expect(list.stdout).toContain(sessionId);
    expect(list.stdout).toMatch(/test-[0-9a-f-]{36}/);
    const json = JSON.parse((await bed.cli(['timeline', sessionId.slice(0, 8), '--json'])).stdout) as {
      session_id: string;
      records: Array<Record<string, unknown>>;
      problems: unknown[];
    };
    expect(json.session_id).toBe(sessionId);
    expect(json.records).toContainEqual(expect.objectContaining({ type: 'hook_run', hook_name: 'guard', decision: 'block' }));
    expect(json.problems).toEqual([]);

    appendFileSync(auditLog, '{"seq": 9999, "ts": "2026-01-01T00:0');
    const torn = await bed.cli(['timeline', sessionId]);
    expect(torn.code).toBe(0);
    expect(torn.stdout).toMatch(/ PreToolUse +guard +block/);
    expect(torn.stderr).toMatch(
      new RegExp(
        `^hookpilot: warning: ${auditLog.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: torn last line \\(\\d+ bytes\\) skipped\\n$`,
      ),
    );
  });
});
