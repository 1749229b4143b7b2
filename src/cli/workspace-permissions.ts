import { homedir } from 'node:os';
import path from 'node:path';
import type { PermissionMode, PermissionSettings } from '../core/agent/permissions/permission-settings';
import {
  mergePermissionScopes,
  PERMISSION_MODE_SETTING,
  PERMISSIONS_SETTING,
  permissionsFromSetting,
  permissionsScope,
  type PermissionsScope,
} from '../core/agent/permissions/permissions-setting';
import { readManagedPolicy, type ManagedPermissions } from '../core/hooks/config/managed-policy';
import { settingValue } from '../core/hooks/config/setting-value';
import { readSettingsFile, WORKSPACE_SETTINGS } from '../core/hooks/config/workspace-config-files';
import { besideWorkspaceOnly } from '../core/agent/permissions/workspace-directories';
import { usageError } from './cli-error';

export interface PermissionFlags {
  mode?: PermissionMode;
  allowedTools: readonly string[];
  disallowedTools: readonly string[];
}

export interface LoadedPermissions {
  settings: PermissionSettings;
  /** The workspace's settings set the mode, to something the user's settings (or the default) would not give. */
  workspaceChoseMode: boolean;
  /** Additional directories of the workspace's settings left out (besideWorkspaceOnly). */
  refusedDirectories: string[];
}

/** A settings file's `hookpilot.permissions` and `hookpilot.permissionMode`; a bad value or rule is a usage error naming the file. */
function scopeOf(file: string): PermissionsScope {
  const { settings } = readSettingsFile(file);
  const values = {
    permissions: settingValue(settings, PERMISSIONS_SETTING),
    permissionMode: settingValue(settings, PERMISSION_MODE_SETTING),
  };
  const { scope, problems, brokenRules } = permissionsScope(values, { modeInPermissions: true });
  const [problem] = [...problems, ...brokenRules];
  if (problem !== undefined) throw usageError(`${file}: ${problem}`);
  return scope;
}

/**
 * The permissions of a run: the user's settings file, then the workspace's
 * .vscode/settings.json adding to its lists (it cannot remove a rule of the user's), then the
 * command line's rules (`--allowed-tools` become allow rules, `--disallowed-tools` deny rules).
 * The mode: the flag, else the workspace's, else the user's. The managed policy's rules come
 * first: its deny rules are final (P1) whatever the workspace or the command line allows.
 */
export function loadPermissions(
  projectDir: string,
  userSettingsFile: string,
  flags: PermissionFlags,
  managed: ManagedPermissions = readManagedPolicy().permissions,
  home: string = homedir(),
): LoadedPermissions {
  const user = scopeOf(userSettingsFile);
  const { scope: workspace, refused } = besideWorkspaceOnly(scopeOf(path.join(projectDir, WORKSPACE_SETTINGS)), {
    root: projectDir,
    home,
  });
  const { mode, ...lists } = mergePermissionScopes([user, workspace, { allow: [...flags.allowedTools], deny: [...flags.disallowedTools] }]);
  const settings = permissionsFromSetting(lists, { mode: flags.mode ?? mode ?? 'default', root: projectDir, managed });
  return {
    settings,
    workspaceChoseMode: flags.mode === undefined && workspace.mode !== undefined && workspace.mode !== (user.mode ?? 'default'),
    refusedDirectories: refused,
  };
}

/**
 * What whoever runs a command in a workspace should know before the model acts: a cloned
 * repository's settings chose the permission mode, or listed additional directories that were
 * left out. One line each, for stderr after "hookpilot: ".
 */
export function workspacePermissionNotices({ settings, workspaceChoseMode, refusedDirectories }: LoadedPermissions): string[] {
  const notices = workspaceChoseMode
    ? [`permission mode ${settings.mode}, from the workspace's settings (--permission-mode overrides it)`]
    : [];
  for (const dir of refusedDirectories) {
    notices.push(
      `the workspace's settings list ${JSON.stringify(dir)} as an additional directory: not used (a workspace's settings may add only folders beside the workspace, never the home folder's own or a folder above it)`,
    );
  }
  return notices;
}
