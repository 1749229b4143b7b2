import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, toolMessageSent, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// `hookpilot run` as users run it: the bundled CLI in a subprocess, a scripted model on 127.0.0.1.

const guard = nodeHook(
  `if (/rm\\s+-rf/.test(input.tool_input.command || '')) { process.stderr.write('rm -rf is not allowed here'); process.exit(2); }`,
);
const guardedWorkspace = {
  'keep.txt': 'precious',
  'hooks/guard.js': guard,
  '.vscode/hooks.json': hooksJson({
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js', statusMessage: 'Checking the command…' }] }],
  }),
};
const RAW_CONTROLS = ['\x1b', '\x07', '\r', '\u2028'];
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const bash = (command: string, id: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('hookpilot run', () => {
  it('text: an allowed Bash call runs, the guard hook blocks rm -rf, and each call gets one line', async () => {
    bed = await startTestbed(bundle.bundle, guardedWorkspace, [
      bash('echo made > made.txt', 'c1'),
      bash('rm -rf keep.txt', 'c2'),
      text('Done: one file made, one kept.'),
    ]);
    const r = await bed.run(['tidy up', '--allowed-tools', 'Bash']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(bed.workspace.file('made.txt'), 'utf8')).toBe('made\n');
    expect(existsSync(bed.workspace.file('keep.txt'))).toBe(true);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^\[Bash\] Run: echo made > made.txt -> executed \(\d+ ms\)$/);
    expect(lines[1]).toMatch(/^\[Bash\] Run: rm -rf keep.txt -> blocked by hook "guard.js" \(PreToolUse\): rm -rf is not allowed here/);
    expect(lines[2]).toBe('Done: one file made, one kept.');
  });

  it('what the model writes cannot drive the terminal: escape sequences and carriage returns are printed escaped, JSON keeps them', async () => {
    const trap = 'Hookpilot wants to use Read\x1b[8m\x1b]0;innocent\x07\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07\u2028';
    const script = () => [bash('echo hi #\x1b[2K\r[Bash] Run: ls\nAllow? [y]es once', 'c1'), text(trap)];
    bed = await startTestbed(bundle.bundle, {}, script());
    const r = await bed.run(['go', '--allowed-tools', 'Bash']);
    expect(r.code).toBe(0);
    for (const raw of RAW_CONTROLS) expect(r.stdout + r.stderr).not.toContain(raw);
    // A tool line stays one line: it may print while another call's question waits.
    expect(r.stdout).toContain('echo hi #\\e[2K\\r[Bash] Run: ls\\nAllow? [y]es once -> failed');
    expect(r.stdout).toContain('Hookpilot wants to use Read\\u001b[8m\\u001b]0;innocent\\u0007');
    await bed.close();
    bed = await startTestbed(bundle.bundle, {}, script());
    const json = await bed.run(['go', '--allowed-tools', 'Bash', '--output-format', 'json']);
    for (const raw of RAW_CONTROLS) expect(json.stdout).not.toContain(raw);
    expect(jsonResult(json)).toMatchObject({ result: trap });
  });

  it("says so on stderr when the workspace's settings choose the permission mode", async () => {
    const settings = JSON.stringify({ 'hookpilot.permissions': { mode: 'bypassPermissions' } });
    bed = await startTestbed(bundle.bundle, { '.vscode/settings.json': settings }, [text('hi'), text('hi again')]);
    const r = await bed.run(['go']);
    expect(r.stderr).toContain("hookpilot: permission mode bypassPermissions, from the workspace's settings");
    const flagged = await bed.run(['go', '--permission-mode', 'default']);
    expect(flagged.stderr).toBe('');
  });

  it("the user's settings apply too: the workspace's rules add to them and cannot empty their deny list", async () => {
    const user = JSON.stringify({ 'hookpilot.permissions': { deny: ['Bash(echo *)'] }, 'hookpilot.permissionMode': 'plan' });
    const workspace = JSON.stringify({ 'hookpilot.permissions': { deny: [], allow: ['Bash(echo *)', 'Bash(touch *)'] } });
    bed = await startTestbed(bundle.bundle, { '.vscode/settings.json': workspace }, [
      bash('echo pwned', 'c1'),
      bash('touch made.txt', 'c2'),
      text('done'),
      bash('echo pwned', 'c3'),
      bash('touch made.txt', 'c4'),
      text('done'),
    ]);
    writeFileSync(String(bed.env.HOOKPILOT_USER_SETTINGS), user);
    // The user's plan mode: no command runs, whatever the workspace allows.
    const planned = jsonResult(await bed.run(['go', '--output-format', 'json']));
    expect(planned.tool_calls.map((c) => c.outcome)).toEqual(['denied', 'denied']);
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(false);
    // Out of plan mode the workspace's allow rule runs; the user's deny rule still wins over it.
    const r = await bed.run(['go', '--output-format', 'json', '--permission-mode', 'default']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['denied', 'executed']);
    expect(toolMessageSent(bed.server, 'c3')).toContain('Bash(echo *)');
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(true);
  });

  it("the workspace's mode wins over the user's, and the run says so", async () => {
    const user = JSON.stringify({ 'hookpilot.permissionMode': 'plan' });
    const workspace = JSON.stringify({ 'hookpilot.permissionMode': 'acceptEdits' });
    bed = await startTestbed(bundle.bundle, { '.vscode/settings.json': workspace }, [text('hi')]);
    writeFileSync(String(bed.env.HOOKPILOT_USER_SETTINGS), user);
    const r = await bed.run(['go', '--output-format', 'stream-json']);
    expect(r.stderr).toContain("hookpilot: permission mode acceptEdits, from the workspace's settings");
    expect(JSON.parse(r.stdout.split('\n')[0])).toMatchObject({ type: 'system', subtype: 'init', permission_mode: 'acceptEdits' });
  });

  it('json: one object with the blocked call, the reason sent to the model, and an audit log with hook runs', async () => {
    bed = await startTestbed(bundle.bundle, guardedWorkspace, [bash('rm -rf keep.txt', 'c1'), text('I left it.')]);
    const r = await bed.run(['delete keep.txt', '--output-format', 'json', '--allowed-tools', 'Bash']);
    expect(r.code).toBe(0);
    const result = jsonResult(r);
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      result: 'I left it.',
      is_error: false,
      stop_reason: 'completed',
      num_turns: 2,
    });
    expect(result.tool_calls).toEqual([
      expect.objectContaining({ id: 'c1', name: 'Bash', input: { command: 'rm -rf keep.txt' }, outcome: 'blocked' }),
    ]);
    expect(result.tool_calls[0].output).toContain('rm -rf is not allowed here');
    expect(result.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'rm -rf keep.txt' } }]);
    expect(result.usage.total_tokens).toBeGreaterThan(0);
    expect(existsSync(bed.workspace.file('keep.txt'))).toBe(true);
    expect(toolMessageSent(bed.server, 'c1')).toContain('rm -rf is not allowed here');

    // Per-project storage under HOOKPILOT_HOME: projects/<folder name>-<hash of its path>/{audit,transcripts}.
    const storage = path.join(bed.home, '.hookpilot', 'projects', `${path.basename(bed.workspace.dir)}-`);
    expect(result.audit_log).toMatch(new RegExp(`^${escapeRegex(storage)}[0-9a-f]{16}/audit/${result.session_id}\\.jsonl$`));
    expect(existsSync(path.join(path.dirname(path.dirname(result.audit_log)), 'transcripts', `${result.session_id}.jsonl`))).toBe(true);
    const records = readFileSync(result.audit_log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.every((rec) => rec.session_id === result.session_id)).toBe(true);
    expect(records).toContainEqual(
      expect.objectContaining({ type: 'hook_run', event: 'PreToolUse', hook_name: 'guard.js', decision: 'block', exit_code: 2 }),
    );
    expect(records).toContainEqual(expect.objectContaining({ type: 'event', event: 'SessionEnd' }));
  });

  it('a call that needs approval is denied without a terminal, and permission_denials lists it', async () => {
    bed = await startTestbed(bundle.bundle, {}, [bash('touch made.txt', 'c1'), text('Could not.')]);
    const r = await bed.run(['make a file', '--output-format', 'json']);
    const result = jsonResult(r);
    expect(r.code).toBe(0);
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(false);
    expect(result.tool_calls[0]).toMatchObject({ outcome: 'denied' });
    expect(result.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'touch made.txt' } }]);
    expect(toolMessageSent(bed.server, 'c1')).toMatch(/Permission denied .*no-terminal/);
  });

  it('stream-json: init first, hook_started/hook_response lines for the hook, tool results, the result last', async () => {
    bed = await startTestbed(bundle.bundle, guardedWorkspace, [bash('rm -rf keep.txt', 'c1'), text('Kept it.', { chunks: 3 })]);
    const r = await bed.run(['delete', '--output-format', 'stream-json', '--allowed-tools', 'Bash']);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const sessionId = lines[0].session_id;
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', model: 'scripted-model', permission_mode: 'default' });
    expect(lines.every((l) => l.session_id === sessionId)).toBe(true);
    const started = lines.find((l) => l.subtype === 'hook_started' && l.hook_name === 'guard.js');
    const response = lines.find((l) => l.subtype === 'hook_response' && l.hook_name === 'guard.js');
    expect(started).toMatchObject({
      type: 'system',
      hook_event: 'PreToolUse',
      hook_id: expect.any(String),
      status_message: 'Checking the command…',
    });
    expect(response).toMatchObject({
      type: 'system',
      hook_event: 'PreToolUse',
      hook_id: started?.hook_id,
      outcome: 'error',
      status: 'blocking-error',
      decision: 'block',
      exit_code: 2,
      stderr: 'rm -rf is not allowed here',
    });
    expect(lines.indexOf(started!)).toBeLessThan(lines.indexOf(response!));
    expect(lines).toContainEqual(
      expect.objectContaining({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'rm -rf keep.txt' } }] },
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        type: 'user',
        outcome: 'blocked',
        message: expect.objectContaining({
          content: [expect.objectContaining({ type: 'tool_result', tool_use_id: 'c1', is_error: true })],
        }),
      }),
    );
    const deltas = lines.filter((l) => l.type === 'stream_event').map((l) => (l.event as { delta: { text: string } }).delta.text);
    expect(deltas.join('')).toBe('Kept it.');
    expect(lines[lines.length - 1]).toMatchObject({
      type: 'result',
      subtype: 'success',
      session_id: sessionId,
      result: 'Kept it.',
      permission_denials: [expect.objectContaining({ tool_use_id: 'c1' })],
    });
  });

  it('--resume and --continue carry on an earlier session: the model sees its history, SessionStart gets source "resume"', async () => {
    const hooks = {
      '.vscode/hooks.json': hooksJson({
        SessionStart: [{ hooks: [{ type: 'command', command: 'cat >> starts.log; echo >> starts.log' }] }],
      }),
    };
    bed = await startTestbed(bundle.bundle, hooks, [text('First answer.'), text('Second answer.'), text('Third answer.')]);
    const first = await bed.run(['first question', '--output-format', 'json']);
    expect(first.code).toBe(0);
    const sessionId = (JSON.parse(first.stdout) as { session_id: string }).session_id;

    const second = await bed.run(['second question', '--output-format', 'json', '--resume', sessionId]);
    expect(second.code).toBe(0);
    expect((JSON.parse(second.stdout) as { session_id: string }).session_id).toBe(sessionId);
    const contents = (i: number) => bed!.server.requests[i].body.messages.map((m) => m.content);
    expect(contents(1)).toEqual(expect.arrayContaining(['first question', 'First answer.', 'second question']));

    const third = await bed.run(['third question', '--continue']);
    expect(third.code).toBe(0);
    expect(contents(2)).toEqual(expect.arrayContaining(['first question', 'second question', 'Second answer.', 'third question']));
    const starts = readFileSync(bed.workspace.file('starts.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { source: string; session_id: string });
    expect(starts.map((s) => [s.source, s.session_id === sessionId])).toEqual([
      ['startup', true],
      ['resume', true],
      ['resume', true],
    ]);

    for (const bad of [
      ['--resume', '../../etc/passwd'],
      ['--resume', 'no-such-session'],
      ['--resume', sessionId, '--continue'],
    ]) {
      const r = await bed.run(['again', ...bad]);
      expect(r.code, bad.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('--disallowed-tools withholds a tool from the model; a pattern rule denies matching calls', async () => {
    bed = await startTestbed(bundle.bundle, {}, [bash('rm -f a.txt', 'c1'), text('ok')]);
    writeFileSync(bed.workspace.file('a.txt'), 'a');
    const r = await bed.run([
      'go',
      '--output-format',
      'json',
      '--disallowed-tools',
      'Write,Bash(rm *)',
      '--permission-mode',
      'bypassPermissions',
    ]);
    expect(r.code).toBe(0);
    const offered = (bed.server.requests[0].body.tools ?? []).map((t) => t.function?.name);
    expect(offered).toContain('Bash');
    expect(offered).not.toContain('Write');
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'denied' });
    expect(existsSync(bed.workspace.file('a.txt'))).toBe(true);
  });

  it('reads the prompt from stdin; permissions and hooks come from settings files and --hooks', async () => {
    const logTo = (name: string) => nodeHook(`fs.appendFileSync(${JSON.stringify(`${name}.log`)}, input.hook_event_name + '\\n');`);
    bed = await startTestbed(
      bundle.bundle,
      {
        'hooks/user.js': logTo('user'),
        'hooks/workspace.js': logTo('workspace'),
        'hooks/extra.js': logTo('extra'),
        '.vscode/settings.json': `{
  // workspace settings, with comments
  "hookpilot.permissions": { "allow": ["Bash(touch *)"] },
  "hookpilot.hooks": { "hooks": { "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "node hooks/workspace.js" }] }] } },
}`,
        'extra-hooks.json': hooksJson({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/extra.js' }] }] }),
      },
      [bash('touch made.txt', 'c1'), text('made')],
    );
    writeFileSync(
      `${bed.home}/user-settings.json`,
      JSON.stringify({
        'hookpilot.hooks': { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/user.js' }] }] } },
      }),
    );
    const r = await bed.run(['--hooks', bed.workspace.file('extra-hooks.json')], { input: 'make the file\n' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(true);
    expect(JSON.stringify(bed.server.requests[0].body.messages)).toContain('make the file');
    for (const name of ['user', 'workspace', 'extra'])
      expect(readFileSync(bed.workspace.file(`${name}.log`), 'utf8')).toBe('UserPromptSubmit\n');
  });

  it('a long turn (12 steps) runs to the end without any noise on stderr', async () => {
    bed = await startTestbed(bundle.bundle, { 'a.txt': 'a' }, (_request, i) =>
      i < 12 ? toolCalls([{ name: 'Glob', arguments: { pattern: '*.txt' } }]) : text('twelve looks'),
    );
    const r = await bed.run(['look around']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(13);
  });

  it('sends the API key to the model but never writes it to the audit log', async () => {
    const key = 'sk-hookpilot-test-4f9a7c1e2b';
    bed = await startTestbed(bundle.bundle, {}, [text('noted')]);
    const r = await bed.run([`remember ${key} for later`, '--output-format', 'json'], { env: { HOOKPILOT_API_KEY: key } });
    expect(r.code).toBe(0);
    expect(bed.server.requests[0].authorization).toBe('present');
    const audit = readFileSync(jsonResult(r).audit_log, 'utf8');
    expect(audit).toContain('remember');
    expect(audit).not.toContain(key);
  });
});
