import type { HookSwitches } from '../hook-switches';
import type { HookDefinition, HookSourceKind, ServerDefinition } from '../types';
import type { ConfigProblem } from './config-problems';
import type { HookDefaults } from './config-schema';

export type { HookDefaults } from './config-schema';

export interface BuiltinSetting {
  enabled: boolean;
  options?: Record<string, unknown>;
}

/** One configuration source, resolved: what loaded, and every problem found on the way. */
export interface LoadedConfig {
  /** Where it came from: an untrusted workspace's sources contribute nothing (merge-configs). */
  source?: ConfigSource;
  hooks: HookDefinition[];
  servers: ServerDefinition[];
  builtins: Record<string, BuiltinSetting>;
  /** Only the values the source sets; the dispatcher supplies the rest. Merged: the person's, for every hook but the policy's. */
  defaults: HookDefaults;
  /** Merged only: a trusted workspace's `defaults`, over `defaults` for its own hooks alone. */
  workspaceDefaults?: HookDefaults;
  disableAllHooks?: boolean;
  /** Read from the managed policy only: every other source's hooks are off. */
  allowManagedHooksOnly?: boolean;
  /** Merged only: each scope's kill switch (a source's `disableAllHooks` reaches its scope's hooks). */
  switches?: HookSwitches;
  /** Merged: the person's list, which bounds every http hook but the policy's. */
  allowedHttpHookUrls?: string[];
  /** Merged only: a trusted workspace's list; its own http hooks must match it too. */
  workspaceHttpHookUrls?: string[];
  /** Merged only: the managed policy's list, which alone bounds its own http hooks. */
  managedHttpHookUrls?: string[];
  /** Merged: the person's list, for every http hook but the policy's. */
  httpHookAllowedEnvVars?: string[];
  /** Merged only: the list for a trusted workspace's own http hooks (its list, within the person's). */
  workspaceHttpHookAllowedEnvVars?: string[];
  /** Merged only: the managed policy's list, for its own http hooks alone. */
  managedHttpHookAllowedEnvVars?: string[];
  problems: ConfigProblem[];
}

export interface ConfigSource {
  kind: HookSourceKind;
  file?: string;
}

export function emptyConfig(): LoadedConfig {
  return { hooks: [], servers: [], builtins: {}, defaults: {}, problems: [] };
}
