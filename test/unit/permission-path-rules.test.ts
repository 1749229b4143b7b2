import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermissionGate } from '../../src/core/agent/permissions/permission-gate';
import { permissionSettingsSchema, type PermissionSettings } from '../../src/core/agent/permissions/permission-settings';
import { createEditTool } from '../../src/core/agent/tools/edit-tool';
import { createGrepTool } from '../../src/core/agent/tools/grep-tool';
import { createReadTool } from '../../src/core/agent/tools/read-tool';
import type { Tool } from '../../src/core/agent/tools/tool';
import { actions, type AgentHook } from '../../src/core/hooks/agent-hook';
import { HookDispatcher } from '../../src/core/hooks/dispatcher';
import { BuiltinHookHandler } from '../../src/core/hooks/handlers/builtin-handler';
import { HookRegistry } from '../../src/core/hooks/registry';
import type { HookHandler } from '../../src/core/hooks/types';
import { toolPayload } from '../support/hook-fixtures';

// Users copy their Claude Code rules: Read and Edit patterns read as Claude Code documents them
// (gitignore lines: `//abs`, `~/home`, `/project-root`, `cwd-relative`), or a deny rule that
// matches nothing fails open.

let base: string;
let ws: string;
let home: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'hookpilot-path-rules-')));
  ws = join(base, 'ws');
  home = join(base, 'home');
  mkdirSync(join(ws, 'secrets', 'a'), { recursive: true });
  mkdirSync(join(ws, 'config'));
  mkdirSync(join(ws, 'src'));
  mkdirSync(join(ws, 'pkg'));
  mkdirSync(join(ws, 'notes', 'a'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(ws, 'secrets', 'key'), 'k');
  writeFileSync(join(ws, 'secrets', 'a', 'b'), 'k');
  writeFileSync(join(ws, 'config', 'prod.env'), 'TOKEN=1');
  writeFileSync(join(ws, 'src', 'a.ts'), '');
  writeFileSync(join(ws, 'notes', 'a.md'), '');
  writeFileSync(join(ws, 'notes', 'a', 'b.md'), '');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE');
  writeFileSync(join(home, '.bashrc'), '');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const read = createReadTool() as unknown as Tool;
const edit = createEditTool() as unknown as Tool;
const grep = createGrepTool() as unknown as Tool;

function gate(settings: Partial<PermissionSettings>, tool: Tool, input: Record<string, unknown>, cwd = ws) {
  const g = new PermissionGate(() => permissionSettingsSchema.parse(settings));
  return g.evaluate(tool, input, undefined, { workspaceRoot: ws, cwd, home, protectedPaths: [] });
}
const readVerdict = (settings: Partial<PermissionSettings>, file: string, cwd = ws) =>
  gate(settings, read, { file_path: file }, cwd).verdict;
const editVerdict = (settings: Partial<PermissionSettings>, file: string) =>
  gate(settings, edit, { file_path: file, old_string: 'a', new_string: 'b' }).verdict;

describe('Read and Edit deny rules read as Claude Code reads them', () => {
  it('~/ starts at the home folder: Read(~/.ssh/**) denies the key, named with ~ or absolutely', () => {
    const settings = { deny: ['Read(~/.ssh/**)'], additionalDirectories: [home] };
    expect(readVerdict(settings, join(home, '.ssh', 'id_rsa'))).toBe('deny');
    expect(readVerdict(settings, '~/.ssh/id_rsa')).toBe('deny');
    expect(readVerdict(settings, join(home, '.bashrc'))).toBe('allow');
  });

  it('a name denies the folder and everything in it: Read(secrets) denies secrets/key and secrets/a/b', () => {
    expect(readVerdict({ deny: ['Read(secrets)'] }, 'secrets/key')).toBe('deny');
    expect(readVerdict({ deny: ['Read(secrets)'] }, 'secrets/a/b')).toBe('deny');
    expect(readVerdict({ deny: ['Read(secrets)'] }, join(ws, 'secrets', 'a', 'b'))).toBe('deny');
    expect(readVerdict({ deny: ['Read(secrets)'] }, 'config/prod.env')).toBe('allow');
  });

  it('a pattern with no slash matches at any depth: Read(*.env) denies config/prod.env', () => {
    expect(readVerdict({ deny: ['Read(*.env)'] }, 'config/prod.env')).toBe('deny');
    expect(readVerdict({ deny: ['Read(.env)'] }, 'config/.env')).toBe('deny');
  });

  it('/ starts at the project root, not the filesystem root and not the cwd', () => {
    expect(readVerdict({ deny: ['Read(/src/**)'] }, join(ws, 'src', 'a.ts'))).toBe('deny');
    // From a cwd below the root, `/src` is still the project's.
    expect(readVerdict({ deny: ['Read(/src/**)'] }, join(ws, 'src', 'a.ts'), join(ws, 'pkg'))).toBe('deny');
    // `/secrets` is anchored at the root: not a `secrets` folder deeper down.
    expect(readVerdict({ deny: ['Read(/a)'] }, join(ws, 'secrets', 'a', 'b'))).toBe('allow');
  });

  it('/src/** does not match an absolute /src/a.ts outside the project', () => {
    // The file's folder is an additional directory, so only the rule could refuse the read.
    const outside = join(base, 'elsewhere');
    mkdirSync(join(outside, 'src'), { recursive: true });
    writeFileSync(join(outside, 'src', 'a.ts'), '');
    expect(readVerdict({ deny: [`Read(/src/**)`], additionalDirectories: [outside] }, join(outside, 'src', 'a.ts'))).toBe('allow');
    expect(readVerdict({ deny: [`Read(/src/**)`] }, join(ws, 'src', 'a.ts'))).toBe('deny');
  });

  it('// starts at the filesystem root: Read(//etc/**) matches /etc/passwd', () => {
    // /etc is an additional directory here, so only the rule could refuse the read.
    expect(readVerdict({ deny: ['Read(//etc/**)'], additionalDirectories: ['/etc'] }, '/etc/passwd')).toBe('deny');
    expect(readVerdict({ deny: [`Read(/${ws}/secrets/**)`] }, 'secrets/key')).toBe('deny');
  });

  it('a session deny a hook adds, or a resume restores, with an absolute /x pattern (as tool input names paths) takes both readings', () => {
    const outside = join(base, 'elsewhere');
    mkdirSync(outside);
    writeFileSync(join(outside, 'token'), 'SECRET');
    const ctx = { workspaceRoot: ws, cwd: ws, home, protectedPaths: [] };
    const newGate = () => new PermissionGate(() => permissionSettingsSchema.parse({ additionalDirectories: [outside] }));
    const added = newGate();
    added.denyForSession(`Read(${outside}/**)`);
    expect(added.evaluate(read, { file_path: join(outside, 'token') }, undefined, ctx).verdict).toBe('deny');
    const restored = newGate();
    restored.restoreSessionDeny(`Read(${join(outside, 'token')})`);
    expect(restored.evaluate(read, { file_path: join(outside, 'token') }, undefined, ctx).verdict).toBe('deny');
  });

  it('a guard written for the earlier reading of / (the filesystem root) still guards: deny and ask take both readings', () => {
    expect(readVerdict({ deny: ['Read(/etc/**)'], additionalDirectories: ['/etc'] }, '/etc/passwd')).toBe('deny');
    expect(readVerdict({ ask: ['Read(/etc/**)'], additionalDirectories: ['/etc'] }, '/etc/passwd')).toBe('ask');
    mkdirSync(join(ws, 'etc'));
    writeFileSync(join(ws, 'etc', 'x'), '');
    expect(readVerdict({ deny: ['Read(/etc/**)'] }, 'etc/x')).toBe('deny');
  });

  it('* stays within a name in a pattern with a slash: notes/*.md denies notes/a.md, not notes/a/b.md', () => {
    expect(readVerdict({ deny: ['Read(notes/*.md)'] }, 'notes/a.md')).toBe('deny');
    expect(readVerdict({ deny: ['Read(notes/*.md)'] }, 'notes/a/b.md')).toBe('allow');
    expect(readVerdict({ deny: ['Read(notes/**/*.md)'] }, 'notes/a/b.md')).toBe('deny');
  });

  it('a trailing / matches only a folder: Read(secrets/) denies its files and a search of it, not a file named so', () => {
    writeFileSync(join(ws, 'config', 'secrets'), '');
    expect(readVerdict({ deny: ['Read(secrets/)'] }, 'secrets/key')).toBe('deny');
    expect(gate({ deny: ['Read(secrets/)'] }, grep, { pattern: 'k', path: 'secrets' }).verdict).toBe('deny');
    expect(readVerdict({ deny: ['Read(secrets/)'] }, 'config/secrets')).toBe('allow');
  });

  it('a target outside the base never matches: Read(*.env) from a cwd below does not reach up', () => {
    writeFileSync(join(ws, 'root.env'), '');
    expect(readVerdict({ deny: ['Read(*.env)'] }, join(ws, 'root.env'), join(ws, 'pkg'))).toBe('allow');
    expect(readVerdict({ deny: ['Read(/*.env)'] }, join(ws, 'root.env'), join(ws, 'pkg'))).toBe('deny');
  });

  it('../ (no gitignore form) names the folder above the cwd rather than nothing', () => {
    expect(readVerdict({ deny: ['Read(../secrets/**)'] }, join(ws, 'secrets', 'key'), join(ws, 'pkg'))).toBe('deny');
    expect(readVerdict({ deny: ['Read(../secrets/**)'] }, join(ws, 'config', 'prod.env'), join(ws, 'pkg'))).toBe('allow');
  });
});

describe('allow rules read patterns the same way', () => {
  it('Edit(/src/**) grants an edit at the project root, Edit(*.ts) one at any depth, and nothing else', () => {
    expect(editVerdict({ allow: ['Edit(/src/**)'] }, join(ws, 'src', 'a.ts'))).toBe('allow');
    expect(editVerdict({ allow: ['Edit(*.ts)'] }, 'src/a.ts')).toBe('allow');
    expect(editVerdict({ allow: ['Edit(/src/**)'] }, 'notes/a.md')).toBe('ask');
    expect(editVerdict({ allow: ['Edit(notes/*.md)'] }, 'notes/a/b.md')).toBe('ask');
  });

  it("an allow rule takes only Claude Code's reading of /: Edit(/<a folder outside>/**) grants nothing there", () => {
    const outside = join(base, 'elsewhere');
    mkdirSync(outside);
    writeFileSync(join(outside, 'a.ts'), '');
    const settings = { allow: [`Edit(${outside}/**)`], additionalDirectories: [outside] };
    expect(gate(settings, edit, { file_path: join(outside, 'a.ts'), old_string: 'a', new_string: 'b' }).verdict).toBe('ask');
    expect(
      gate({ ...settings, allow: [`Edit(/${outside}/**)`] }, edit, { file_path: join(outside, 'a.ts'), old_string: 'a', new_string: 'b' })
        .verdict,
    ).toBe('allow');
  });
});

describe("a hook's `if` reads paths as a rule does", () => {
  it('if: Edit(~/.bashrc) runs the hook for an Edit of the home folder`s .bashrc, through the dispatcher', async () => {
    const builtin = new BuiltinHookHandler();
    const registry = new HookRegistry({ trusted: true });
    const unavailable: HookHandler = { run: () => Promise.reject(new Error('not in this test')) };
    const dispatcher = new HookDispatcher({
      snapshot: () => registry.current(),
      handlers: { builtin, command: unavailable, rpc: unavailable, http: unavailable },
      projectDir: ws,
      home,
    });
    const guarded: string[] = [];
    const guard: AgentHook = {
      name: 'bashrc-guard',
      preToolUse: (p) => (guarded.push(String((p.tool_input as { file_path: string }).file_path)), actions.block('no')),
    } as AgentHook;
    builtin.register('bashrc-guard', guard);
    registry.load([
      {
        id: 'bashrc-guard',
        name: 'bashrc-guard',
        event: 'PreToolUse',
        priority: 0,
        enabled: true,
        source: { kind: 'user' },
        spec: { type: 'builtin', builtin: 'bashrc-guard' },
        if: 'Edit(~/.bashrc)',
      },
    ]);
    const editOf = (file: string) => toolPayload('PreToolUse', 'Edit', { file_path: file, old_string: 'a', new_string: 'b' }, { cwd: ws });

    expect((await dispatcher.dispatch(editOf(join(home, '.bashrc')))).decision).toBe('deny');
    expect((await dispatcher.dispatch(editOf('~/.bashrc'))).decision).toBe('deny');
    // The workspace's own .bashrc is not the home folder's.
    writeFileSync(join(ws, '.bashrc'), '');
    expect((await dispatcher.dispatch(editOf(join(ws, '.bashrc')))).decision).toBeUndefined();
    expect(guarded).toEqual([join(home, '.bashrc'), '~/.bashrc']);

    // An `if` written for the earlier reading of `/` (the filesystem root) still runs its hook.
    registry.load([{ ...registry.current().states[0].hook, if: `Edit(${home}/.bashrc)` }]);
    expect((await dispatcher.dispatch(editOf(join(home, '.bashrc')))).decision).toBe('deny');
  });
});
