import path from 'node:path';
import { z } from 'zod';
import type { ManagedPermissions } from '../../hooks/config/managed-policy';
import { permissionModeSchema, type PermissionMode, type PermissionSettings } from './permission-settings';
import { unparseableRuleProblem } from './rule-signals';

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

/** One settings level's permissions (the user's, the workspace's, ...): its lists and, when it sets one, its mode. */
export type PermissionsScope = z.infer<typeof permissionsSettingWithModeSchema>;

export const PERMISSIONS_SETTING = 'hookpilot.permissions';
export const PERMISSION_MODE_SETTING = 'hookpilot.permissionMode';

/** What one level holds of the two settings, as written. */
export interface PermissionsScopeValues {
  permissions?: unknown;
  permissionMode?: unknown;
}

/**
 * One level's permissions, each of its two values checked on its own: a value that does not fit
 * is left out, with a problem naming the field, and takes no other value or level with it.
 * A rule that does not parse is kept, with a problem in `brokenRules`: left out, a broken deny
 * rule would silently guard nothing; kept, it stands for its whole tool (compileRules).
 * `modeInPermissions`: the CLI form, where `hookpilot.permissions.mode` comes before `hookpilot.permissionMode`.
 */
export function permissionsScope(
  values: PermissionsScopeValues,
  { modeInPermissions }: { modeInPermissions: boolean },
): { scope: PermissionsScope; problems: string[]; brokenRules: string[] } {
  const problems: string[] = [];
  const check = <T>(schema: z.ZodType<T>, key: string, value: unknown): T | undefined => {
    if (value === undefined) return undefined;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    problems.push(`"${key}${issue.path.map((p) => `.${String(p)}`).join('')}": ${issue.message}`);
    return undefined;
  };
  const schema = modeInPermissions ? permissionsSettingWithModeSchema : permissionsSettingSchema;
  const { mode: inPermissions, ...lists } = check<PermissionsScope>(schema, PERMISSIONS_SETTING, values.permissions) ?? {};
  const mode = inPermissions ?? check(permissionModeSchema, PERMISSION_MODE_SETTING, values.permissionMode);
  const brokenRules = (['deny', 'ask', 'allow'] as const).flatMap((verdict) =>
    (lists[verdict] ?? []).flatMap((text, index) => {
      const problem = unparseableRuleProblem(verdict, text);
      return problem === undefined ? [] : [`"${PERMISSIONS_SETTING}.${verdict}.${index}": ${problem}`];
    }),
  );
  return { scope: mode === undefined ? lists : { ...lists, mode }, problems, brokenRules };
}

/**
 * The levels' permissions as one, lowest level first: as in Claude Code's settings levels,
 * every level's allow, deny and ask rules and additional directories add up, so no level (a
 * cloned workspace) can take away another's deny rule. The mode is the last one set.
 */
export function mergePermissionScopes(scopes: readonly PermissionsScope[]): Required<PermissionsSetting> & { mode?: PermissionMode } {
  let mode: PermissionMode | undefined;
  for (const scope of scopes) mode = scope.mode ?? mode;
  return {
    allow: scopes.flatMap((s) => s.allow ?? []),
    deny: scopes.flatMap((s) => s.deny ?? []),
    ask: scopes.flatMap((s) => s.ask ?? []),
    additionalDirectories: scopes.flatMap((s) => s.additionalDirectories ?? []),
    mode,
  };
}

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
