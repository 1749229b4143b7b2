import path from 'node:path';
import { z } from 'zod';
import { permissionModeSchema, type PermissionMode, type PermissionSettings } from '../core/agent/permissions/permission-settings';
import { readManagedPolicy, type ManagedPermissions } from '../core/hooks/config/managed-policy';
import { readSettingsFile, WORKSPACE_SETTINGS } from '../core/hooks/config/workspace-config-files';
import { usageError } from './cli-error';

export const PERMISSIONS_KEY = 'hookpilot.permissions';

// Every field optional: what the file leaves out comes from the flags or the defaults.
const filePermissionsSchema = z.object({
  mode: permissionModeSchema.optional(),
  allow: z.array(z.string()).optional(),
  deny: z.array(z.string()).optional(),
  ask: z.array(z.string()).optional(),
  additionalDirectories: z.array(z.string()).optional(),
});

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
export function loadPermissions(projectDir: string, flags: PermissionFlags, managed: ManagedPermissions = readManagedPolicy().permissions): PermissionSettings {
  const file = path.join(projectDir, WORKSPACE_SETTINGS);
  const { settings } = readSettingsFile(file);
  const raw = settings[PERMISSIONS_KEY];
  const parsed = filePermissionsSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw usageError(`${file}: "${PERMISSIONS_KEY}${issue.path.map((p) => `.${String(p)}`).join('')}": ${issue.message}`);
  }
  const fromFile = parsed.data;
  return {
    mode: flags.mode ?? fromFile.mode ?? 'default',
    allow: [...(managed.allow ?? []), ...(fromFile.allow ?? []), ...flags.allowedTools],
    deny: [...(managed.deny ?? []), ...(fromFile.deny ?? []), ...flags.disallowedTools],
    ask: [...(managed.ask ?? []), ...(fromFile.ask ?? [])],
    additionalDirectories: (fromFile.additionalDirectories ?? []).map((dir) => path.resolve(projectDir, dir)),
  };
}
