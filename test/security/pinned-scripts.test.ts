import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type ScriptedReply } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// The model rewrites a script a hook runs, through Bash, then tries what the old script would
// have refused. The real CLI, real hooks. The gate asks before a Bash line that names a hook
// file; `node -e` with the path inside its code is what that check cannot see, so the writes
// below use it, to test the pinning behind the check.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
/** A Bash line that runs `code` in node (fs and the file name `f` at hand). */
const nodeScript = (file: string, code: string) => `node -e ${JSON.stringify(`const fs = require('fs'); const f = ${JSON.stringify(file)}; ${code}`)}`;
const nodeWrite = (file: string, content: string) => nodeScript(file, `fs.writeFileSync(f, ${JSON.stringify(content)});`);
/** Refuses any command that mentions `pwned`. */
const guard = nodeHook(`if (/pwned/.test(input.tool_input.command || '')) { process.stderr.write('no pwned'); process.exit(2); }`);
/** What the model writes instead: allows everything, and leaves a mark if it ever runs. */
const weakened = `require('fs').writeFileSync(require('path').join(process.env.CLAUDE_PROJECT_DIR, 'weakened-ran'), 'x');`;

async function runGuarded(files: Record<string, string>, hookCommand: string, rewrite: string, later: ScriptedReply[] = []): Promise<{ bed: Testbed; result: ReturnType<typeof jsonResult> }> {
  const testbed = await startTestbed(bundle.bundle, { ...files, '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hookCommand, name: 'guard' }] }] }) }, [
    bash('c1', rewrite),
    bash('c2', 'touch pwned'),
    text('done'),
    ...later,
  ]);
  bed = testbed;
  const r = await testbed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
  expect(r.code).toBe(0);
  return { bed: testbed, result: jsonResult(r) };
}

describe('pinned hook scripts', () => {
  it('a guard script rewritten by the model blocks instead of running, and the timeline says why', async () => {
    const rewrite = nodeWrite('hooks/guard.js', weakened);
    const { bed: b, result } = await runGuarded({ 'hooks/guard.js': guard }, 'node hooks/guard.js', rewrite, [bash('c3', 'echo again'), text('done')]);
    const calls = Object.fromEntries(result.tool_calls.map((c) => [c.id, c]));
    expect(calls.c1.outcome).toBe('executed');
    expect(calls.c2.outcome).toBe('blocked');
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
    expect(existsSync(b.workspace.file('weakened-ran'))).toBe(false);
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: hooks/guard.js');

    const timeline = await b.cli(['timeline']);
    expect(timeline.stdout).toMatch(/PreToolUse +guard +block \(blocking-error\) .*script changed since it was approved: hooks\/guard\.js/);

    // A new session is a new approval by the person who starts it: the new script runs.
    await b.run(['again', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(existsSync(b.workspace.file('weakened-ran'))).toBe(true);
  });

  it('blocks a guard whose sourced library changed (bash -c "source …")', async () => {
    const files = { 'hooks/lib.sh': 'check() { case "$1" in *pwned*) echo "no pwned" >&2; exit 2;; esac; }\n' };
    const command = `bash -c 'source hooks/lib.sh; check "$(cat)"'`;
    const { bed: b, result } = await runGuarded(files, command, nodeWrite('hooks/lib.sh', 'check() { :; }\n'));
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: hooks/lib.sh');
  });

  it('blocks an `npm run` guard whose package.json script was redirected', async () => {
    const files = {
      'hooks/guard.js': guard,
      'hooks/allow.js': weakened,
      'package.json': JSON.stringify({ name: 'ws', scripts: { guard: 'node hooks/guard.js' } }),
    };
    const rewrite = `node -e "const f='package.json';const p=JSON.parse(require('fs').readFileSync(f));p.scripts.guard='node hooks/allow.js';require('fs').writeFileSync(f,JSON.stringify(p))"`;
    const { bed: b, result } = await runGuarded(files, 'npm run --silent guard', rewrite);
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
    expect(existsSync(b.workspace.file('weakened-ran'))).toBe(false);
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: package.json');
  });

  it('blocks an `npm run` guard once the model adds an .npmrc that swaps the script shell', async () => {
    const files = { 'hooks/guard.js': guard, 'package.json': JSON.stringify({ name: 'ws', scripts: { guard: 'node hooks/guard.js' } }) };
    // The file name is computed as the command runs, so the Bash check cannot see it: the pin does.
    const rewrite = `printf '#!/bin/sh\\ntouch weakened-ran\\n' > evil.sh && chmod +x evil.sh && node -e "require('fs').writeFileSync('.np' + 'mrc', 'script-shell=./evil.sh')"`;
    const { bed: b, result } = await runGuarded(files, 'npm run --silent guard', rewrite);
    expect(result.tool_calls.find((c) => c.id === 'c1')?.outcome).toBe('executed');
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
    expect(existsSync(b.workspace.file('weakened-ran'))).toBe(false);
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: .npmrc');
  });

  it('a deleted guard script blocks too, and a script touched without change still runs', async () => {
    const touch = nodeScript('hooks/guard.js', 'const t = new Date(); fs.utimesSync(f, t, t);');
    const { bed: b, result } = await runGuarded({ 'hooks/guard.js': guard }, 'node hooks/guard.js', `${touch} && ${nodeScript('hooks/guard.js', 'fs.rmSync(f);')}`);
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: hooks/guard.js');

    await b.close();
    const touched = await runGuarded({ 'hooks/guard.js': guard }, 'node hooks/guard.js', touch);
    // Same content: the guard itself runs and refuses `touch pwned` by its own rule.
    expect(toolMessageSent(touched.bed.server, 'c2')).toContain('no pwned');
    expect(toolMessageSent(touched.bed.server, 'c2')).not.toContain('script changed');
  });

  it('a changed script of a hook on another event is a non-blocking error', async () => {
    const files = {
      'hooks/note.sh': '#!/bin/sh\necho noted\n',
      '.vscode/hooks.json': hooksJson({ PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './hooks/note.sh', name: 'note' }] }] }),
    };
    bed = await startTestbed(bundle.bundle, files, [bash('c1', nodeWrite('hooks/note.sh', '#!/bin/sh\ntouch note-ran\n')), bash('c2', 'touch after'), text('done')]);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    const calls = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c]));
    expect(calls.c2.outcome).toBe('executed');
    expect(existsSync(bed.workspace.file('after'))).toBe(true);
    expect(existsSync(bed.workspace.file('note-ran'))).toBe(false);
    expect(calls.c2.hooks).toContainEqual(expect.objectContaining({ hook_name: 'note', kind: 'error', detail: expect.stringContaining('script changed since it was approved: hooks/note.sh') }));
  });
});

describe('files hooks depend on are protected from edit tools', () => {
  it('asks a person (denied without one) before the model edits any of them', async () => {
    const write = (id: string, file: string) => ({ id, name: 'Write', arguments: { file_path: file, content: 'exit 0\n' } });
    const targets = {
      lib: 'hooks/lib.sh', // sourced inside `bash -c`
      manifest: 'package.json', // an `npm run` hook's
      npmScript: 'hooks/lint.js', // what that npm script runs
      config: 'hooks/config.json', // named by `--config=`
      server: 'hooks/server.js', // an rpc server's script
      extra: 'extra-hooks.json', // the CLI's --hooks file
      workspaceFile: 'team.code-workspace',
      claude: '.claude/settings.local.json',
    };
    const files = {
      'hooks/lib.sh': 'true\n',
      'hooks/lint.js': '',
      'hooks/config.json': '{}',
      'hooks/server.js': '',
      'team.code-workspace': '{}',
      'package.json': JSON.stringify({ scripts: { lint: 'node hooks/lint.js' } }),
      'extra-hooks.json': hooksJson({ Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] }),
      '.vscode/hooks.json': hooksJson(
        {
          PostToolUse: [
            {
              hooks: [
                { type: 'command', command: `bash -c 'source hooks/lib.sh'` },
                { type: 'command', command: 'npm run lint' },
                { type: 'command', command: 'node -e 1 --config=hooks/config.json' },
              ],
            },
          ],
        },
        { servers: { policy: { command: ['node', 'hooks/server.js'], intercept: ['Stop'], enabled: false } } },
      ),
    };
    bed = await startTestbed(bundle.bundle, files, [
      toolCalls([...Object.entries(targets).map(([id, file]) => write(id, file)), write('free', 'notes.txt')]),
      text('done'),
    ]);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--hooks', bed.workspace.file('extra-hooks.json'), '--output-format', 'json']);
    const outcomes = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(outcomes).toEqual({ ...Object.fromEntries(Object.keys(targets).map((id) => [id, 'denied'])), free: 'executed' });
    const b = bed;
    for (const file of Object.values(targets)) expect(existsSync(b.workspace.file(file)) ? readFileSync(b.workspace.file(file), 'utf8') : '').not.toBe('exit 0\n');
  });
});

