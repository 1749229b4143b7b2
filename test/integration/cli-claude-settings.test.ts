import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, toolMessageSent, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';

// Claude Code's settings files are read in place: no import step, the same trust, pinning
// and protection as .vscode/hooks.json.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** A Claude Code guard: exit 2 (block) for any rm, with its reason on stderr. */
const GUARD = nodeHook(
  `if (/\\brm\\b/.test(input.tool_input.command || '')) { process.stderr.write('no rm (' + process.env.CLAUDE_PROJECT_DIR + ')'); process.exit(2); }`,
);
const claudeSettings = (script: string) =>
  JSON.stringify(
    {
      model: 'opus',
      permissions: { allow: ['Bash'] },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `node "$CLAUDE_PROJECT_DIR/${script}"` }] }] },
    },
    null,
    2,
  );

const rmScript = () => [toolCalls([{ id: 'rm', name: 'Bash', arguments: { command: 'rm -f keep.txt' } }]), text('done')];

describe("Claude Code's settings files as hook sources (hookpilot.hooks.claudeSettings)", () => {
  it('.claude/settings.json hooks run in place, with $CLAUDE_PROJECT_DIR, and hooks list names the file', async () => {
    bed = await startTestbed(
      bundle.bundle,
      { 'keep.txt': 'x', '.claude/guard.js': GUARD, '.claude/settings.json': claudeSettings('.claude/guard.js') },
      rmScript(),
    );
    const r = await bed.run(['tidy up', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome])).toEqual([['rm', 'blocked']]);
    expect(toolMessageSent(bed.server, 'rm')).toContain(`no rm (${bed.workspace.dir})`);
    expect(existsSync(bed.workspace.file('keep.txt'))).toBe(true);

    const list = await bed.cli(['hooks', 'list']);
    expect(list.stdout).toMatch(/PreToolUse +Bash +command +.*\.claude\/settings\.json:\d+ +active/);
    const json = JSON.parse((await bed.cli(['hooks', 'list', '--json'])).stdout) as Array<{ source: { kind: string }; locked: boolean }>;
    expect(json.filter((h) => h.source.kind === 'claudeProject')).toMatchObject([{ locked: false }]);
  });

  it('~/.claude/settings.json and settings.local.json load too; the user\'s setting "off" reads none of them', async () => {
    bed = await startTestbed(
      bundle.bundle,
      { 'keep.txt': 'x', 'guard.js': GUARD, '.claude/settings.local.json': claudeSettings('guard.js') },
      [...rmScript(), ...rmScript()],
    );
    mkdirSync(path.join(bed.home, '.claude'));
    writeFileSync(
      path.join(bed.home, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } }),
    );
    const kinds = JSON.parse((await bed.cli(['hooks', 'list', '--json'])).stdout) as Array<{ source: { kind: string } }>;
    expect(
      kinds
        .map((h) => h.source.kind)
        .filter((k) => k.startsWith('claude'))
        .sort(),
    ).toEqual(['claudeLocal', 'claudeUser']);

    writeFileSync(String(bed.env.HOOKPILOT_USER_SETTINGS), JSON.stringify({ 'hookpilot.hooks.claudeSettings': 'off' }));
    // The workspace cannot turn the files back on for itself.
    mkdirSync(bed.workspace.file('.vscode'), { recursive: true });
    writeFileSync(bed.workspace.file('.vscode/settings.json'), JSON.stringify({ 'hookpilot.hooks.claudeSettings': 'read' }));
    const off = await bed.run(['tidy up', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(jsonResult(off).tool_calls.map((c) => [c.id, c.outcome])).toEqual([['rm', 'executed']]);
    expect(existsSync(bed.workspace.file('keep.txt'))).toBe(false);
  });

  it("the model's Write, Edit and Bash cannot change .claude/settings*.json, even in bypassPermissions", async () => {
    const original = claudeSettings('guard.js');
    const calls = [
      { id: 'write', name: 'Write', arguments: { file_path: '.claude/settings.json', content: '{}' } },
      {
        id: 'edit',
        name: 'Edit',
        arguments: { file_path: '.claude/settings.local.json', old_string: 'guard.js', new_string: 'nothing.js' },
      },
      { id: 'write-new-local', name: 'Write', arguments: { file_path: './.claude/../.claude/settings.local.json', content: '{}' } },
      { id: 'redirect', name: 'Bash', arguments: { command: "echo '{}' > .claude/settings.json" } },
      { id: 'cd-tee', name: 'Bash', arguments: { command: "cd .claude && echo '{}' | tee settings.local.json" } },
      { id: 'sed', name: 'Bash', arguments: { command: 'sed -i s/guard/none/ .claude/settings.json' } },
      {
        id: 'swap-dir',
        name: 'Bash',
        arguments: { command: 'mkdir -p evil && echo {} > evil/settings.json && rm -rf .claude && mv evil .claude' },
      },
    ];
    bed = await startTestbed(
      bundle.bundle,
      { 'guard.js': nodeHook(''), '.claude/settings.json': original, '.claude/settings.local.json': original },
      [...calls.map((call) => toolCalls([call])), text('done')],
    );
    const r = await bed.run(['rewire the hooks', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    const outcomes = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(outcomes).toEqual(Object.fromEntries(calls.map((c) => [c.id, 'denied'])));
    expect(readFileSync(bed.workspace.file('.claude/settings.json'), 'utf8')).toBe(original);
    expect(readFileSync(bed.workspace.file('.claude/settings.local.json'), 'utf8')).toBe(original);
  });
});
