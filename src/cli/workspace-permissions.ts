import path from 'node:path';
import type { PermissionMode, PermissionSettings } from '../core/agent/permissions/permission-settings';
import { permissionsFromSetting, permissionsSettingWithModeSchema } from '../core/agent/permissions/permissions-setting';
import { readManagedPolicy, type ManagedPermissions } from '../core/hooks/config/managed-policy';
import { readSettingsFile, WORKSPACE_SETTINGS } from '../core/hooks/config/workspace-config-files';
import { usageError } from './cli-error';

export const PERMISSIONS_KEY = 'hookpilot.permissions';

export interface PermissionFlags {
  mode?: PermissionMode;
  allowedTools: readonly string[];
  disallowedTools: readonly string[];
}

/**
 * `hookpilot.permissions` from the workspace's .vscode/settings.json, with the command
 * line's rules added (`--allowed-tools` become allow rules, `--disallowed-tools` deny
 * rules) and its mode taking precedence. The managed policy's rules come first: its deny
 * rules are final (P1) whatever the workspace or the command line allows.
 */
export function loadPermissions(
  projectDir: string,
  flags: PermissionFlags,
  managed: ManagedPermissions = readManagedPolicy().permissions,
): PermissionSettings {
  const file = path.join(projectDir, WORKSPACE_SETTINGS);
  const { settings } = readSettingsFile(file);
  const raw = settings[PERMISSIONS_KEY];
  const parsed = permissionsSettingWithModeSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw usageError(`${file}: "${PERMISSIONS_KEY}${issue.path.map((p) => `.${String(p)}`).join('')}": ${issue.message}`);
  }
  const { mode, ...fromFile } = parsed.data;
  const setting = {
    ...fromFile,
    allow: [...(fromFile.allow ?? []), ...flags.allowedTools],
    deny: [...(fromFile.deny ?? []), ...flags.disallowedTools],
  };
  return permissionsFromSetting(setting, { mode: flags.mode ?? mode ?? 'default', root: projectDir, managed });
}
