import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  mergePermissionScopes,
  permissionsFromSetting,
  permissionsScope,
  permissionsSettingSchema,
  permissionsSettingWithModeSchema,
} from '../../src/core/agent/permissions/permissions-setting';
import { CliError, EXIT } from '../../src/cli/cli-error';
import { loadPermissions } from '../../src/cli/workspace-permissions';

const MANAGED = { allow: ['Read'], deny: ['Bash(curl *)'], ask: ['Write(**)'] };

describe('permissionsFromSetting (core)', () => {
  it('puts the managed rules first and resolves relative directories against the root', () => {
    const setting = {
      allow: ['Bash(*)'],
      deny: ['Edit'],
      ask: ['Bash(git push *)'],
      additionalDirectories: ['../shared', '/abs/dir/', 'lib/../docs'],
    };
    expect(permissionsFromSetting(setting, { mode: 'plan', root: '/ws/app', managed: MANAGED })).toEqual({
      mode: 'plan',
      allow: ['Read', 'Bash(*)'],
      deny: ['Bash(curl *)', 'Edit'],
      ask: ['Write(**)', 'Bash(git push *)'],
      additionalDirectories: ['/ws/shared', '/abs/dir', '/ws/app/docs'],
    });
  });

  it('an empty setting still carries the managed rules; without a root, directories stay as written', () => {
    expect(permissionsFromSetting({}, { mode: 'default', root: undefined, managed: MANAGED })).toEqual({
      mode: 'default',
      ...MANAGED,
      additionalDirectories: [],
    });
    expect(
      permissionsFromSetting({ additionalDirectories: ['rel'] }, { mode: 'default', root: undefined, managed: {} }).additionalDirectories,
    ).toEqual(['rel']);
  });

  it('the schema refuses a rule list that is not a list of strings; only the CLI form takes a mode', () => {
    expect(permissionsSettingSchema.safeParse({ allow: 'Bash(*)' }).success).toBe(false);
    expect(permissionsSettingSchema.safeParse({ deny: [1] }).success).toBe(false);
    expect(permissionsSettingSchema.parse({ mode: 'bypassPermissions', allow: ['Read'] })).toEqual({ allow: ['Read'] });
    expect(permissionsSettingWithModeSchema.parse({ mode: 'plan' })).toEqual({ mode: 'plan' });
    expect(permissionsSettingWithModeSchema.safeParse({ mode: 'yolo' }).success).toBe(false);
  });
});

describe('mergePermissionScopes (core)', () => {
  it("adds up every level's lists, the user's first: a later level cannot take a deny rule away", () => {
    const user = { allow: ['Read'], deny: ['Bash(rm *)'], additionalDirectories: ['/home/me/lib'], mode: 'plan' as const };
    const workspace = { allow: ['Bash(npm test)'], deny: [], ask: ['Edit'], additionalDirectories: ['/'] };
    expect(mergePermissionScopes([user, workspace])).toEqual({
      mode: 'plan',
      allow: ['Read', 'Bash(npm test)'],
      deny: ['Bash(rm *)'],
      ask: ['Edit'],
      additionalDirectories: ['/home/me/lib', '/'],
    });
  });

  it('the mode is the last level that sets one; no level, no mode', () => {
    expect(mergePermissionScopes([{ mode: 'plan' }, { mode: 'default' }]).mode).toBe('default');
    expect(mergePermissionScopes([{ mode: 'plan' }, { allow: ['Read'] }]).mode).toBe('plan');
    expect(mergePermissionScopes([])).toEqual({ allow: [], deny: [], ask: [], additionalDirectories: [] });
  });
});

describe('permissionsScope (core)', () => {
  it('checks each value of a level on its own: a bad one is left out with a problem naming the field', () => {
    expect(
      permissionsScope({ permissions: { ask: 'oops', deny: ['Read'] }, permissionMode: 'plan' }, { modeInPermissions: false }),
    ).toEqual({
      scope: { mode: 'plan' },
      problems: ['"hookpilot.permissions.ask": Invalid input: expected array, received string'],
      brokenRules: [],
    });
    expect(permissionsScope({ permissions: { deny: ['Read'] }, permissionMode: 'yolo' }, { modeInPermissions: false })).toEqual({
      scope: { deny: ['Read'] },
      problems: [expect.stringMatching(/^"hookpilot.permissionMode": /)],
      brokenRules: [],
    });
    expect(permissionsScope({}, { modeInPermissions: false })).toEqual({ scope: {}, problems: [], brokenRules: [] });
  });

  it('keeps a rule that does not parse, with a problem naming it and what it does as it stands', () => {
    const permissions = { deny: ['Read(.env)', 'Bash(rm -rf *'], ask: ['Edit (src/**)'], allow: ['Bash(ls *'] };
    expect(permissionsScope({ permissions }, { modeInPermissions: false })).toEqual({
      scope: permissions,
      problems: [],
      brokenRules: [
        '"hookpilot.permissions.deny.1": "Bash(rm -rf *" is not a rule like Bash(git *); as it stands it denies every Bash call',
        '"hookpilot.permissions.ask.0": "Edit (src/**)" is not a rule like Bash(git *); as it stands it asks before every Edit call',
        '"hookpilot.permissions.allow.0": "Bash(ls *" is not a rule like Bash(git *); as it stands it allows nothing',
      ],
    });
  });

  it('only the CLI form reads a mode inside hookpilot.permissions, and it comes before hookpilot.permissionMode', () => {
    const values = { permissions: { mode: 'acceptEdits', allow: ['Read'] }, permissionMode: 'plan' };
    expect(permissionsScope(values, { modeInPermissions: true }).scope).toEqual({ mode: 'acceptEdits', allow: ['Read'] });
    expect(permissionsScope(values, { modeInPermissions: false }).scope).toEqual({ mode: 'plan', allow: ['Read'] });
  });
});

describe('loadPermissions (CLI)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** A project with `settings` as its .vscode/settings.json, and a user settings file beside it (`user`, when given). */
  function project(settings: string, user?: string): { root: string; userFile: string } {
    dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-perms-'));
    const root = path.join(dir, 'project');
    mkdirSync(path.join(root, '.vscode'), { recursive: true });
    writeFileSync(path.join(root, '.vscode', 'settings.json'), settings);
    const userFile = path.join(dir, 'user-settings.json');
    if (user !== undefined) writeFileSync(userFile, user);
    return { root, userFile };
  }

  const NO_FLAGS = { allowedTools: [], disallowedTools: [] };

  it('managed rules, then the file, then the flags; the flag mode beats the file mode', () => {
    const { root, userFile } = project(
      '{\n  // team rules\n  "hookpilot.permissions": { "mode": "acceptEdits", "allow": ["Bash(npm test)"], "deny": ["Read(.env)"], "additionalDirectories": ["../lib"] },\n}\n',
    );
    const flags = { allowedTools: ['Edit'], disallowedTools: ['Bash(rm *)'] };
    expect(loadPermissions(root, userFile, flags, MANAGED)).toEqual({
      settings: {
        mode: 'acceptEdits',
        allow: ['Read', 'Bash(npm test)', 'Edit'],
        deny: ['Bash(curl *)', 'Read(.env)', 'Bash(rm *)'],
        ask: ['Write(**)'],
        additionalDirectories: [path.resolve(root, '../lib')],
      },
      workspaceChoseMode: true,
      refusedDirectories: [],
    });
    expect(loadPermissions(root, userFile, { ...flags, mode: 'plan' }, {})).toMatchObject({
      settings: { mode: 'plan' },
      workspaceChoseMode: false,
    });
  });

  it("the user's settings are the base: the workspace adds to their lists and cannot empty them", () => {
    const { root, userFile } = project(
      JSON.stringify({ 'hookpilot.permissions': { deny: [], allow: ['Bash(echo *)'], additionalDirectories: ['/'] } }),
      JSON.stringify({ 'hookpilot.permissions': { deny: ['Bash(echo *)'], ask: ['Edit'] }, 'hookpilot.permissionMode': 'plan' }),
    );
    expect(loadPermissions(root, userFile, { allowedTools: ['Read'], disallowedTools: ['Write'] }, {})).toEqual({
      settings: {
        mode: 'plan',
        allow: ['Bash(echo *)', 'Read'],
        deny: ['Bash(echo *)', 'Write'],
        ask: ['Edit'],
        // A workspace's `/` would open the home folder: left out, and named.
        additionalDirectories: [],
      },
      workspaceChoseMode: false,
      refusedDirectories: ['/'],
    });
  });

  it("the mode: the flag, else the workspace's, else the user's, else default", () => {
    const user = JSON.stringify({ 'hookpilot.permissionMode': 'plan' });
    const ws = (mode: string) => JSON.stringify({ 'hookpilot.permissionMode': mode });
    let p = project(ws('bypassPermissions'), user);
    expect(loadPermissions(p.root, p.userFile, NO_FLAGS, {})).toMatchObject({
      settings: { mode: 'bypassPermissions' },
      workspaceChoseMode: true,
    });
    expect(loadPermissions(p.root, p.userFile, { ...NO_FLAGS, mode: 'default' }, {})).toMatchObject({
      settings: { mode: 'default' },
      workspaceChoseMode: false,
    });
    // The workspace said what the user says: nothing to point out.
    p = project(ws('plan'), user);
    expect(loadPermissions(p.root, p.userFile, NO_FLAGS, {})).toMatchObject({ settings: { mode: 'plan' }, workspaceChoseMode: false });
    p = project('{}', user);
    expect(loadPermissions(p.root, p.userFile, NO_FLAGS, {})).toMatchObject({ settings: { mode: 'plan' }, workspaceChoseMode: false });
    p = project('{}');
    expect(loadPermissions(p.root, p.userFile, NO_FLAGS, {})).toMatchObject({ settings: { mode: 'default' }, workspaceChoseMode: false });
  });

  function usageMessage(run: () => unknown): string {
    let error: unknown;
    try {
      run();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    return (error as CliError).message;
  }

  it('an invalid value is a usage error naming the file and the field', () => {
    const { root, userFile } = project('{ "hookpilot.permissions": { "deny": ["Read(.env)", 7] } }');
    expect(usageMessage(() => loadPermissions(root, userFile, NO_FLAGS, {}))).toBe(
      `${path.join(root, '.vscode', 'settings.json')}: "hookpilot.permissions.deny.1": Invalid input: expected string, received number`,
    );
    const user = project('{}', '{ "hookpilot.permissionMode": "yolo" }');
    expect(usageMessage(() => loadPermissions(user.root, user.userFile, NO_FLAGS, {}))).toMatch(
      new RegExp(`^${user.userFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: "hookpilot.permissionMode": `),
    );
  });

  it('a rule that does not parse is a usage error naming the file and the rule', () => {
    const { root, userFile } = project('{}', JSON.stringify({ 'hookpilot.permissions': { deny: ['Bash(rm -rf *'] } }));
    expect(usageMessage(() => loadPermissions(root, userFile, NO_FLAGS, {}))).toBe(
      `${userFile}: "hookpilot.permissions.deny.0": "Bash(rm -rf *" is not a rule like Bash(git *); as it stands it denies every Bash call`,
    );
  });

  it("reads the settings in VS Code's nested form too, a later key replacing an earlier one as in VS Code", () => {
    const { root, userFile } = project(
      JSON.stringify({ hookpilot: { permissions: { allow: ['Read'] } } }),
      JSON.stringify({ hookpilot: { permissions: { deny: ['Bash(rm *)'] }, permissionMode: 'plan' } }),
    );
    expect(loadPermissions(root, userFile, NO_FLAGS, {}).settings).toMatchObject({ mode: 'plan', deny: ['Bash(rm *)'], allow: ['Read'] });
    // VS Code builds one tree from the file's keys in order: the nested value, written later, replaces the flat one.
    const later = project('{ "hookpilot.permissions": { "deny": ["Read"] }, "hookpilot": { "permissions": { "deny": ["Write"] } } }');
    expect(loadPermissions(later.root, later.userFile, NO_FLAGS, {}).settings.deny).toEqual(['Write']);
  });
});
