import path from 'node:path';
import { z } from 'zod';
import type { ManagedPermissions } from '../../hooks/config/managed-policy';
import { permissionModeSchema, type PermissionMode, type PermissionSettings } from './permission-settings';

/** `hookpilot.permissions`: every field optional, what it leaves out is empty. */
export const permissionsSettingSchema = z.object({
  allow: z.array(z.string()).optional(),
  deny: z.array(z.string()).optional(),
  ask: z.array(z.string()).optional(),
  additionalDirectories: z.array(z.string()).optional(),
});
export type PermissionsSetting = z.infer<typeof permissionsSettingSchema>;

/** The CLI also reads the mode from the setting; VS Code has `hookpilot.permissionMode` for it. */
export const permissionsSettingWithModeSchema = permissionsSettingSchema.extend({ mode: permissionModeSchema.optional() });

export interface PermissionsContext {
  mode: PermissionMode;
  /** Relative additional directories resolve against it; without one they stay as written. */
  root: string | undefined;
  managed: ManagedPermissions;
}

/**
 * The settings the permission gate reads: the managed policy's rules first (its deny rules are
 * final, P1), then the setting's.
 */
export function permissionsFromSetting(setting: PermissionsSetting, { mode, root, managed }: PermissionsContext): PermissionSettings {
  return {
    mode,
    allow: [...(managed.allow ?? []), ...(setting.allow ?? [])],
    deny: [...(managed.deny ?? []), ...(setting.deny ?? [])],
    ask: [...(managed.ask ?? []), ...(setting.ask ?? [])],
    additionalDirectories: (setting.additionalDirectories ?? []).map((dir) => (root ? path.resolve(root, dir) : dir)),
  };
}
