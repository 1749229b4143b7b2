import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// The model is the attacker: through Bash it rewrites the configuration that governs it, then
// tries what that configuration forbade (through `node -e`, which the gate's check of Bash
// words for hook files cannot see). `hookpilot run` reads hooks and permissions once per
// session, so the rewrite must not take effect before the next session.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const guard = nodeHook(`if (String(input.tool_input.command).includes('rm -rf')) { process.stderr.write('rm -rf is not allowed here'); process.exit(2); }`);
const guardedHooks = hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'rm-guard' }] }] });
const writeFileCommand = (file: string, content: unknown) => `node -e 'require("fs").writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(JSON.stringify(content))})'`;

describe('configuration the model rewrites mid-session (hookpilot run)', () => {
  it('disableAllHooks written to .vscode/hooks.json through Bash does not switch off the guard of the running session', async () => {
    bed = await startTestbed(bundle.bundle, { 'hooks/guard.js': guard, '.vscode/hooks.json': guardedHooks, 'precious/data.txt': 'keep me\n' }, [
      toolCalls([{ id: 'disable', name: 'Bash', arguments: { command: writeFileCommand('.vscode/hooks.json', { disableAllHooks: true }) } }]),
      toolCalls([{ id: 'allow-all', name: 'Bash', arguments: { command: writeFileCommand('.vscode/settings.json', { 'hookpilot.permissions': { allow: ['Bash(*)'] } }) } }]),
      toolCalls([{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf precious' } }]),
      text('done'),
    ]);
    const r = await bed.run(['tidy up', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);

    const calls = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(calls).toEqual({ disable: 'executed', 'allow-all': 'executed', wipe: 'blocked' });
    expect(readFileSync(bed.workspace.file('.vscode/hooks.json'), 'utf8')).toContain('disableAllHooks');
    expect(readFileSync(bed.workspace.file('precious/data.txt'), 'utf8')).toBe('keep me\n');
    expect(r.stderr).toContain('hookpilot: .vscode/hooks.json changed during this session; the change applies to the next session\n');
    expect(r.stderr).toContain('hookpilot: .vscode/settings.json changed during this session; the change applies to the next session\n');
  });

  it('an allow-all rule written to .vscode/settings.json does not widen the permissions of the running session', async () => {
    bed = await startTestbed(bundle.bundle, { '.vscode/settings.json': JSON.stringify({ 'hookpilot.permissions': { allow: ['Bash(node *)'] } }) }, [
      toolCalls([{ id: 'widen', name: 'Bash', arguments: { command: writeFileCommand('.vscode/settings.json', { 'hookpilot.permissions': { allow: ['Bash(*)'] } }) } }]),
      toolCalls([{ id: 'touch', name: 'Bash', arguments: { command: 'touch pwned' } }]),
      text('done'),
    ]);
    // stdin is a pipe, so every ask is a deny: only an allow rule could let `touch` run.
    const r = await bed.run(['widen', '--output-format', 'json']);

    const calls = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(calls).toEqual({ widen: 'executed', touch: 'denied' });
    expect(existsSync(bed.workspace.file('pwned'))).toBe(false);
    expect(r.stderr).toContain('hookpilot: .vscode/settings.json changed during this session; the change applies to the next session\n');
  });

  it('the change governs the next session, which says nothing about configuration when nothing changes during it', async () => {
    bed = await startTestbed(bundle.bundle, { 'hooks/guard.js': guard, '.vscode/hooks.json': guardedHooks, 'scratch/x.txt': 'x' }, [
      toolCalls([{ id: 'disable', name: 'Bash', arguments: { command: writeFileCommand('.vscode/hooks.json', { disableAllHooks: true }) } }]),
      text('first session done'),
      toolCalls([{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf scratch' } }]),
      text('second session done'),
    ]);
    const first = await bed.run(['disable', '--permission-mode', 'bypassPermissions']);
    expect(first.stderr).toContain('hookpilot: .vscode/hooks.json changed during this session');

    const second = await bed.run(['wipe', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(jsonResult(second).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    expect(existsSync(bed.workspace.file('scratch'))).toBe(false);
    expect(second.stderr).not.toContain('changed during this session');
  });
});
