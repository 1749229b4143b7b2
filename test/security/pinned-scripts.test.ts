import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type ScriptedReply } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// The model rewrites a script a hook runs, through Bash (which the protected-file check
// does not see), then tries what the old script would have refused. The real CLI, real hooks.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
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
    const rewrite = `printf %s "${weakened.replace(/"/g, '\\"')}" > hooks/guard.js`;
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
    const { bed: b, result } = await runGuarded(files, command, `echo 'check() { :; }' > hooks/lib.sh`);
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

  it('a deleted guard script blocks too, and a script touched without change still runs', async () => {
    const { bed: b, result } = await runGuarded({ 'hooks/guard.js': guard }, 'node hooks/guard.js', 'touch hooks/guard.js && rm -f hooks/guard.js');
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: hooks/guard.js');

    await b.close();
    const touched = await runGuarded({ 'hooks/guard.js': guard }, 'node hooks/guard.js', 'touch hooks/guard.js');
    // Same content: the guard itself runs and refuses `touch pwned` by its own rule.
    expect(toolMessageSent(touched.bed.server, 'c2')).toContain('no pwned');
    expect(toolMessageSent(touched.bed.server, 'c2')).not.toContain('script changed');
  });

  it('a changed script of a hook on another event is a non-blocking error', async () => {
    const files = {
      'hooks/note.sh': '#!/bin/sh\necho noted\n',
      '.vscode/hooks.json': hooksJson({ PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './hooks/note.sh', name: 'note' }] }] }),
    };
    bed = await startTestbed(bundle.bundle, files, [bash('c1', `printf '#!/bin/sh\\ntouch note-ran\\n' > hooks/note.sh`), bash('c2', 'touch after'), text('done')]);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    const calls = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c]));
    expect(calls.c2.outcome).toBe('executed');
    expect(existsSync(bed.workspace.file('after'))).toBe(true);
    expect(existsSync(bed.workspace.file('note-ran'))).toBe(false);
    expect(calls.c2.hooks).toContainEqual(expect.objectContaining({ hook_name: 'note', kind: 'error', detail: expect.stringContaining('script changed since it was approved: hooks/note.sh') }));
  });
});
