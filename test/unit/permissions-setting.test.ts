import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  permissionsFromSetting,
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

describe('loadPermissions (CLI)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function project(settings: string): string {
    dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-perms-'));
    mkdirSync(path.join(dir, '.vscode'));
    writeFileSync(path.join(dir, '.vscode', 'settings.json'), settings);
    return dir;
  }

  it('managed rules, then the file, then the flags; the flag mode beats the file mode', () => {
    const root = project(
      '{\n  // team rules\n  "hookpilot.permissions": { "mode": "acceptEdits", "allow": ["Bash(npm test)"], "deny": ["Read(.env)"], "additionalDirectories": ["../lib"] },\n}\n',
    );
    const flags = { allowedTools: ['Edit'], disallowedTools: ['Bash(rm *)'] };
    expect(loadPermissions(root, flags, MANAGED)).toEqual({
      mode: 'acceptEdits',
      allow: ['Read', 'Bash(npm test)', 'Edit'],
      deny: ['Bash(curl *)', 'Read(.env)', 'Bash(rm *)'],
      ask: ['Write(**)'],
      additionalDirectories: [path.resolve(root, '../lib')],
    });
    expect(loadPermissions(root, { ...flags, mode: 'plan' }, {}).mode).toBe('plan');
  });

  it('an invalid value is a usage error naming the file and the field', () => {
    const root = project('{ "hookpilot.permissions": { "deny": ["Read(.env)", 7] } }');
    let error: unknown;
    try {
      loadPermissions(root, { allowedTools: [], disallowedTools: [] }, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    expect((error as CliError).message).toBe(
      `${path.join(root, '.vscode', 'settings.json')}: "hookpilot.permissions.deny.1": Invalid input: expected string, received number`,
    );
  });
});
