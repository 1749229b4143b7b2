import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { unparseableRuleProblem } from '../../agent/permissions/rule-signals';
import { errorMessage } from '../../error-message';
import type { ConfigProblem } from './config-problems';
import { loadSettingsDocument } from './config-loader';
import type { LoadedConfig } from './loaded-config';

/**
 * The machine's managed policy (docs/hooks.md#managed-policy): hooks an administrator sets for
 * every workspace. They always run, trusted or not, and nothing below the policy turns them off.
 */

const MANAGED_FILES: Partial<Record<NodeJS.Platform, string>> = {
  linux: '/etc/hookpilot/managed-settings.json',
  darwin: '/Library/Application Support/Hookpilot/managed-settings.json',
  win32: 'C:\\ProgramData\\Hookpilot\\managed-settings.json',
};

/** The fixed place of the policy; no setting or variable moves it (whoever could, could replace it). */
export function managedPolicyFile(platform: NodeJS.Platform = process.platform): string {
  return MANAGED_FILES[platform] ?? MANAGED_FILES.linux!;
}

/** What the policy may set about hooks, read as in hooks.json. */
const MANAGED_HOOK_KEYS = ['hooks', 'servers', 'disableAllHooks', 'allowedHttpHookUrls', 'httpHookAllowedEnvVars'] as const;

const RULE_LISTS = ['allow', 'deny', 'ask'] as const;
const ruleListSchema = z.array(z.string());
export type ManagedPermissions = Partial<Record<(typeof RULE_LISTS)[number], string[]>>;

export interface ManagedPolicy {
  file: string;
  /** Absent when there is no policy, or it was refused (see `problems`). */
  config?: LoadedConfig;
  /** Its permission rules: deny rules are final (P1), whatever a lower level allows. */
  permissions: ManagedPermissions;
  /** Why the policy was ignored, or what is wrong in it. */
  problems: ConfigProblem[];
}

/** macOS's admin group may write /Library; anything else group-writable is not the administrator's alone. */
const ADMIN_GROUPS: Partial<Record<NodeJS.Platform, readonly number[]>> = { darwin: [0, 80] };

function writableByOthers(stats: Stats, platform: NodeJS.Platform): boolean {
  if (stats.mode & 0o002) return true;
  return (stats.mode & 0o020) !== 0 && !(ADMIN_GROUPS[platform] ?? [0]).includes(stats.gid);
}

/**
 * Why a policy file (or a folder above it) is not the administrator's alone, if it is not:
 * whoever else can write it could set the hooks every workspace runs.
 */
function ownershipProblem(file: string, stats: Stats, platform: NodeJS.Platform): string | undefined {
  if (!stats.isFile()) return `${file} is not a regular file`;
  if (stats.uid !== 0) return `${file} is owned by uid ${stats.uid}, not root`;
  if (stats.mode & 0o022) return `${file} is writable by group or others (mode ${(stats.mode & 0o777).toString(8)})`;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const folder = lstatSync(dir);
    if (folder.isSymbolicLink()) return `${dir} is a symbolic link`;
    if (folder.uid !== 0) return `${dir} is owned by uid ${folder.uid}, not root`;
    if (writableByOthers(folder, platform)) return `${dir} is writable by others (mode ${(folder.mode & 0o777).toString(8)})`;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function refused(file: string, message: string): ManagedPolicy {
  return {
    file,
    permissions: {},
    problems: [{ severity: 'error', code: 'untrusted-policy', message, path: '', sourceKind: 'managed', file }],
  };
}

/**
 * On Windows any user may create a folder under C:\ProgramData, and whether only administrators
 * can write the file is a matter of ACLs this process cannot read without native code: a
 * policy that cannot be shown to be the administrators' alone is no policy.
 */
const WINDOWS_UNCHECKED =
  'on Windows Hookpilot cannot check that only administrators can write it (managed policy is supported on Linux and macOS)';

function readText(file: string, platform: NodeJS.Platform): { text?: string; problem?: string } {
  if (platform === 'win32') {
    statSync(file);
    return { problem: WINDOWS_UNCHECKED };
  }
  // Opened without following a link, then checked on the open file: no swap between check and read.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const problem = ownershipProblem(file, fstatSync(fd), platform);
    return problem ? { problem } : { text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the policy. On Linux and macOS it counts only when root owns it and the folders above
 * it and no one else can write them; otherwise, and on Windows, it is ignored with an error problem.
 */
export function readManagedPolicy(file: string = managedPolicyFile(), platform: NodeJS.Platform = process.platform): ManagedPolicy {
  let read: { text?: string; problem?: string };
  try {
    read = readText(file, platform);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { file, permissions: {}, problems: [] };
    const why = code === 'ELOOP' ? `${file} is a symbolic link` : `cannot read ${file}: ${errorMessage(error)}`;
    return refused(file, `The managed policy is ignored: ${why}.`);
  }
  if (read.problem === WINDOWS_UNCHECKED) return refused(file, `The managed policy is ignored: ${WINDOWS_UNCHECKED}.`);
  if (read.text === undefined)
    return refused(
      file,
      `The managed policy is ignored: ${read.problem ?? 'unreadable'}; it must be root's alone (chown root, chmod go-w).`,
    );
  const { config, value } = loadSettingsDocument(read.text, { kind: 'managed', file }, MANAGED_HOOK_KEYS);
  const problem = (message: string, at: string): ConfigProblem => ({
    severity: 'error',
    code: 'invalid-value',
    message,
    path: at,
    sourceKind: 'managed',
    file,
  });
  if (value.allowManagedHooksOnly !== undefined) {
    if (typeof value.allowManagedHooksOnly === 'boolean') config.allowManagedHooksOnly = value.allowManagedHooksOnly;
    else config.problems.push(problem('"allowManagedHooksOnly" must be true or false; it is ignored.', 'allowManagedHooksOnly'));
  }
  return {
    file,
    config,
    permissions: readPermissions(value.permissions, (message, at) => config.problems.push(problem(message, at))),
    problems: [],
  };
}

/**
 * Each rule list on its own: a broken `allow` must not take the valid `deny` rules with it. A
 * rule that does not parse is an error and is kept: a broken deny rule denies its whole tool.
 * What is wrong in a `deny` or `ask` list costs only its wrong entries (a lone rule given as a
 * string is read as that rule): a broken guard is never fewer guards. A wrong `allow` list
 * allows nothing.
 */
/** The rules a broken `deny` or `ask` list still holds, each wrong part reported; undefined when it holds none. */
function guardRules(list: string, raw: unknown, report: (message: string, at: string) => void): string[] | undefined {
  if (typeof raw === 'string') {
    report(`"permissions.${list}" must be a list of rules; its one rule is read as ["${raw}"].`, `permissions.${list}`);
    return [raw];
  }
  if (!Array.isArray(raw)) return undefined;
  raw.forEach((entry, index) => {
    if (typeof entry !== 'string')
      report(`"permissions.${list}[${index}]" is not a rule (a string); it is ignored.`, `permissions.${list}[${index}]`);
  });
  return raw.filter((entry): entry is string => typeof entry === 'string');
}

function readPermissions(value: unknown, report: (message: string, at: string) => void): ManagedPermissions {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    report('"permissions" must be an object with "allow", "deny" and "ask" lists; it is ignored.', 'permissions');
    return {};
  }
  const permissions: ManagedPermissions = {};
  for (const list of RULE_LISTS) {
    const raw = (value as Record<string, unknown>)[list];
    if (raw === undefined) continue;
    const parsed = ruleListSchema.safeParse(raw);
    const rules = parsed.success ? parsed.data : list === 'allow' ? undefined : guardRules(list, raw, report);
    if (rules === undefined) {
      report(`"permissions.${list}" must be a list of rules; it is ignored.`, `permissions.${list}`);
      continue;
    }
    permissions[list] = rules;
    rules.forEach((text, index) => {
      const problem = unparseableRuleProblem(list, text);
      if (problem !== undefined) report(`${problem}.`, `permissions.${list}[${index}]`);
    });
  }
  return permissions;
}
