import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResult, nodeHook, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type ScriptedReply } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// `hookpilot run` keeps the configuration it started with; ConfigChange tells the team's hooks
// (and the person, on stderr) when the run notices that one of its configuration files changed.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const rmGuard = nodeHook(
  `if (String(input.tool_input.command).includes('rm -rf')) { process.stderr.write('rm -rf is not allowed here'); process.exit(2); }`,
);
const keepGuard = (how: 'exit2' | 'json') =>
  nodeHook(`fs.appendFileSync(require('path').join(input.cwd, 'config-changes.log'), JSON.stringify(input) + '\\n');
if (typeof input.new_content !== 'string' || !input.new_content.includes('rm-guard')) {
  ${how === 'json' ? "process.stdout.write(JSON.stringify({ decision: 'block', reason: 'the rm guard must stay' }));" : "process.stderr.write('the rm guard must stay'); process.exit(2);"}
}`);
const TEAM = hooksJson({
  PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'rm-guard' }] }],
  ConfigChange: [{ hooks: [{ type: 'command', command: 'node hooks/keep-guard.js', name: 'keep-guard' }] }],
});
const teamFiles = (how: 'exit2' | 'json') => ({
  'hooks/guard.js': rmGuard,
  'hooks/keep-guard.js': keepGuard(how),
  '.vscode/hooks.json': TEAM,
  'precious/data.txt': 'keep me\n',
});

/** Two steps that run `code` through a script the model writes: no check of the Bash line can see what it touches. */
function throughScript(id: string, code: string) {
  return [
    toolCalls([{ id: `${id}-script`, name: 'Write', arguments: { file_path: `${id}.js`, content: `${code}\n` } }]),
    toolCalls([{ id, name: 'Bash', arguments: { command: `node ${id}.js` } }]),
  ];
}
const writeHooksJson = (content: string) =>
  `require('fs').writeFileSync(require('path').join('.vscode', 'hooks' + '.json'), ${JSON.stringify(content)});`;
const NO_HOOKS = '{"disableAllHooks":true}';

function payloads(testbed: Testbed): Array<Record<string, unknown>> {
  const log = testbed.workspace.file('config-changes.log');
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];
}

describe('ConfigChange in hookpilot run', () => {
  it('fires once when the model rewrites hooks.json, says so on stderr with the blocking hook, and the guard still runs', async () => {
    bed = await startTestbed(bundle.bundle, teamFiles('exit2'), [
      ...throughScript('disable', writeHooksJson(NO_HOOKS)),
      toolCalls([{ id: 'look', name: 'Bash', arguments: { command: 'ls' } }]),
      toolCalls([{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf precious' } }]),
      text('done'),
    ]);
    const r = await bed.run(['tidy up', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    const result = jsonResult(r);

    expect(Object.fromEntries(result.tool_calls.map((c) => [c.id, c.outcome]))).toMatchObject({
      disable: 'executed',
      look: 'executed',
      wipe: 'blocked',
    });
    expect(readFileSync(bed.workspace.file('precious/data.txt'), 'utf8')).toBe('keep me\n');
    // Once for the new content, though the run looked again after every later tool call and at the end.
    expect(payloads(bed)).toEqual([
      expect.objectContaining({
        hook_event_name: 'ConfigChange',
        session_id: result.session_id,
        cwd: bed.workspace.dir,
        source: 'project_settings',
        file_path: bed.workspace.file('.vscode/hooks.json'),
        new_content: NO_HOOKS,
      }),
    ]);
    expect(r.stderr).toContain(
      'hookpilot: .vscode/hooks.json changed during this session; ConfigChange hooks ran (project_settings); this session keeps the configuration it started with\n',
    );
    expect(r.stderr).toMatch(
      /hookpilot: ConfigChange hook "keep-guard" blocked the change to \.vscode\/hooks\.json: the rm guard must stay \(no session applies/,
    );
    expect(r.stderr).toContain('hookpilot: .vscode/hooks.json changed during this session; the change applies to the next session\n');
  });

  it('a JSON decision blocks too; each new content fires once, a file back to its start does not, the user settings are user_settings', async () => {
    let steps: ScriptedReply[] = [];
    bed = await startTestbed(bundle.bundle, teamFiles('json'), (_request, index) => steps[index]);
    const userSettings = path.join(bed.home, 'user-settings.json');
    writeFileSync(userSettings, '{}\n');
    const renamed = TEAM.replace('"keep-guard"', '"team-keeper"');
    steps = [
      ...throughScript('first', writeHooksJson(NO_HOOKS)),
      ...throughScript('second', writeHooksJson(renamed)),
      ...throughScript('back', writeHooksJson(TEAM)),
      ...throughScript('user', `require('fs').writeFileSync(${JSON.stringify(userSettings)}, '{"hookpilot.permissionMode":"plan"}');`),
      text('done'),
    ];
    const r = await bed.run(['rewrite', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(r.code).toBe(0);

    expect(payloads(bed).map((p) => [p.source, p.file_path, p.new_content])).toEqual([
      ['project_settings', bed.workspace.file('.vscode/hooks.json'), NO_HOOKS],
      ['project_settings', bed.workspace.file('.vscode/hooks.json'), renamed],
      ['user_settings', userSettings, '{"hookpilot.permissionMode":"plan"}'],
    ]);
    expect(
      r.stderr.match(/ConfigChange hook "keep-guard" blocked the change to \.vscode\/hooks\.json: the rm guard must stay/g),
    ).toHaveLength(1);
    expect(r.stderr).toContain(`hookpilot: ${userSettings} changed during this session; ConfigChange hooks ran (user_settings)`);
  });

  it('a configuration file the model turns into a link gives the hooks its path, not the text of what it points to', async () => {
    let steps: ScriptedReply[] = [];
    bed = await startTestbed(bundle.bundle, teamFiles('exit2'), (_request, index) => steps[index]);
    const secret = path.join(bed.home, 'secret.txt');
    writeFileSync(secret, 'token=s3cr3t-value\n');
    const link = `const fs = require('fs'); const p = require('path').join('.vscode', 'hooks' + '.json'); fs.rmSync(p); fs.symlinkSync(${JSON.stringify(secret)}, p);`;
    steps = [...throughScript('link', link), text('done')];
    const r = await bed.run(['link', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(r.code).toBe(0);
    const [payload] = payloads(bed);
    expect(payload).toMatchObject({ source: 'project_settings', file_path: bed.workspace.file('.vscode/hooks.json') });
    expect(payload).not.toHaveProperty('new_content');
    expect(JSON.stringify(payloads(bed))).not.toContain('s3cr3t');
  });

  it('hooks test ConfigChange runs the hook on a sample payload and shows its block', async () => {
    bed = await startTestbed(bundle.bundle, teamFiles('exit2'));
    const r = await bed.cli(['hooks', 'test', 'ConfigChange', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { payload: Record<string, unknown>; result: { blocked: boolean } };
    expect(out.payload).toMatchObject({
      hook_event_name: 'ConfigChange',
      source: 'project_settings',
      file_path: path.join(bed.workspace.dir, '.vscode/hooks.json'),
    });
    expect(out.result).toMatchObject({ blocked: true });
    const plain = await bed.cli(['hooks', 'test', 'ConfigChange']);
    expect(plain.stdout).toContain('keep-guard');
    expect(plain.stdout).toMatch(/the rm guard must stay/);
  });

  it('Ctrl-C while a ConfigChange hook hangs stops it: the run ends cancelled instead of waiting out its timeout', async () => {
    const hang = nodeHook(
      `fs.writeFileSync(require('path').join(input.cwd, 'hang-started.txt'), 'x'); setTimeout(() => undefined, 587_000);`,
    );
    const files = {
      'hooks/hang.js': hang,
      '.vscode/hooks.json': hooksJson({ ConfigChange: [{ hooks: [{ type: 'command', command: 'node hooks/hang.js', name: 'hang' }] }] }),
    };
    bed = await startTestbed(bundle.bundle, files, [...throughScript('disable', writeHooksJson(NO_HOOKS)), text('done')]);
    let child: ChildProcess | undefined;
    // The hook outlives the run's 30 s limit: a CLI that waited for it fails the run.
    const running = bed.run(['rewrite', '--permission-mode', 'bypassPermissions'], { onSpawn: (c) => (child = c), timeoutMs: 30_000 });
    const started = bed.workspace.file('hang-started.txt');
    await vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: 20_000, interval: 50 });
    child!.kill('SIGINT');
    const r = await running;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('hookpilot: .vscode/hooks.json changed during this session; ConfigChange hooks ran (project_settings)');
  });
});
