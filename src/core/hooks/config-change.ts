import path from 'node:path';
import { managedPolicyFile } from './config/managed-policy';
import type { DispatchResult } from './dispatch-result';
import type { ConfigChangeSource } from './payloads';

export interface ConfigLocations {
  /** The workspace folders: a file inside one is the project's. */
  projectDirs: readonly string[];
  /** Files or folders of managed policy (default: the folder of this platform's managed-settings.json). */
  policyPaths?: readonly string[];
}

function isInside(file: string, dir: string): boolean {
  const relative = path.relative(dir, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The ConfigChange `source` of a configuration file, by where it lives. */
export function configChangeSource(file: string, where: ConfigLocations): ConfigChangeSource {
  const absolute = path.resolve(file);
  if ((where.policyPaths ?? [path.dirname(managedPolicyFile())]).some((policy) => isInside(absolute, path.resolve(policy))))
    return 'policy_settings';
  if (path.basename(absolute) === 'settings.local.json' && path.basename(path.dirname(absolute)) === '.claude') return 'local_settings';
  return where.projectDirs.some((dir) => isInside(absolute, path.resolve(dir))) ? 'project_settings' : 'user_settings';
}

/** What the ConfigChange hooks decided about one change. */
export type ConfigChangeVerdict =
  { blocked: false; warnings: string[] } | { blocked: true; hookName: string; reason: string; warnings: string[] };

/**
 * Folds a ConfigChange dispatch into a verdict. A policy change is never blocked (as in
 * Claude Code); a blocking hook of any other source keeps the configuration applied before.
 */
export function configChangeVerdict(result: DispatchResult, source: ConfigChangeSource): ConfigChangeVerdict {
  const warnings = [...result.warnings];
  const first = result.blockingErrors[0];
  if (!result.blocked || !first) return { blocked: false, warnings };
  if (source === 'policy_settings') {
    return {
      blocked: false,
      warnings: [...warnings, `hook "${first.hookName}" tried to block a policy change, which cannot be blocked: ${first.reason}`],
    };
  }
  return { blocked: true, hookName: first.hookName, reason: first.reason, warnings };
}

/** One line for a person: which hook kept which file's change out, and why. */
export function describeBlockedChange(label: string, block: { hookName: string; reason: string }): string {
  return `ConfigChange hook "${block.hookName}" blocked the change to ${label}: ${block.reason}`;
}
