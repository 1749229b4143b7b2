import { CLAUDE_SOURCES, isLockedSource, type HookSwitches } from '../hook-switches';
import { WORKSPACE_SOURCES } from '../registry';
import type { HookDefinition, HookSource, ServerDefinition } from '../types';
import type { ConfigProblem } from './config-problems';
import { hookBehaviourKey } from './hook-ids';
import { emptyConfig, type LoadedConfig } from './loaded-config';

const SOURCE_NAMES: Record<HookSource['kind'], string> = {
  user: 'user settings',
  workspace: 'workspace settings',
  folder: 'folder settings',
  hooksJson: 'hooks.json',
  builtin: 'built-in hooks',
  session: 'this session',
  cli: 'the command line',
  claudeUser: '~/.claude/settings.json',
  claudeProject: '.claude/settings.json',
  claudeLocal: '.claude/settings.local.json',
  managed: 'the managed policy',
};

/** Claude Code's precedence among its settings files: a later one's `disableAllHooks` wins. */
const CLAUDE_ORDER: readonly HookSource['kind'][] = ['claudeUser', 'claudeProject', 'claudeLocal'];

function describeSource(source: HookSource): string {
  const where = source.file ?? SOURCE_NAMES[source.kind];
  return source.line !== undefined ? `${where}:${source.line}` : where;
}

function problemAt(source: HookSource, fields: Pick<ConfigProblem, 'severity' | 'code' | 'message'> & { hookId?: string }): ConfigProblem {
  const problem: ConfigProblem = { ...fields, path: source.path ?? '', sourceKind: source.kind };
  if (source.file !== undefined) problem.file = source.file;
  if (source.line !== undefined) problem.line = source.line;
  if (source.column !== undefined) problem.column = source.column;
  return problem;
}

/**
 * Which copy of an identical hook runs: the managed policy's (it cannot be turned off), then
 * the first of a source that may run; an untrusted workspace's copy never shadows another.
 */
function dedupRank(config: LoadedConfig, inertConfigs: ReadonlySet<LoadedConfig>): number {
  if (config.source && isLockedSource(config.source.kind)) return 0;
  return inertConfigs.has(config) ? 2 : 1;
}

/** Claude Code runs an identical command or http handler from several settings files once. */
function mergeHooks(
  configs: readonly LoadedConfig[],
  inertConfigs: ReadonlySet<LoadedConfig>,
  problems: ConfigProblem[],
): HookDefinition[] {
  const hooks: HookDefinition[] = [];
  const firstByKey = new Map<string, { hook: HookDefinition; config: number }>();
  const ranked = configs
    .map((config, index) => ({ config, index }))
    .sort((a, b) => dedupRank(a.config, inertConfigs) - dedupRank(b.config, inertConfigs) || a.index - b.index);
  for (const { config, index } of ranked) {
    for (const hook of config.hooks) {
      if (hook.spec.type !== 'command' && hook.spec.type !== 'http') continue;
      const key = hookBehaviourKey(hook);
      if (!firstByKey.has(key)) firstByKey.set(key, { hook, config: index });
    }
  }
  configs.forEach((config, index) => {
    for (const hook of config.hooks) {
      if (hook.spec.type !== 'command' && hook.spec.type !== 'http') {
        hooks.push(hook);
        continue;
      }
      const first = firstByKey.get(hookBehaviourKey(hook));
      if (first && first.config !== index) {
        problems.push(
          problemAt(hook.source, {
            severity: 'info',
            code: 'duplicate-hook',
            message: `Identical to "${first.hook.name}" in ${describeSource(first.hook.source)}; it runs once, from there.`,
            hookId: hook.id,
          }),
        );
        continue;
      }
      hooks.push(hook);
    }
  });
  return hooks;
}

function mergeServers(configs: readonly LoadedConfig[], problems: ConfigProblem[]): ServerDefinition[] {
  const byName = new Map<string, ServerDefinition>();
  for (const server of configs.flatMap((config) => config.servers)) {
    const first = byName.get(server.name);
    if (!first) {
      byName.set(server.name, server);
      continue;
    }
    problems.push(
      problemAt(server.source, {
        severity: 'warning',
        code: 'server-clash',
        message: `Server "${server.name}" is already declared in ${describeSource(first.source)}; this declaration is ignored.`,
      }),
    );
  }
  return [...byName.values()];
}

function unionLists(lists: readonly (string[] | undefined)[]): string[] | undefined {
  const defined = lists.filter((list): list is string[] => list !== undefined);
  return defined.length === 0 ? undefined : [...new Set(defined.flat())];
}

/** A config of unknown origin counts as the workspace's: that is the safe side. */
function fromWorkspace(config: LoadedConfig): boolean {
  return config.source === undefined || WORKSPACE_SOURCES.has(config.source.kind);
}

/**
 * An untrusted source keeps only its hooks (listed, never active: the registry sees their
 * source) and its problems; its servers, built-in settings, defaults, disableAllHooks and
 * allowlists are dropped before anything merges.
 */
function inert(config: LoadedConfig): LoadedConfig {
  return { ...emptyConfig(), source: config.source, hooks: config.hooks, problems: config.problems };
}

/**
 * `allowedHttpHookUrls` and `httpHookAllowedEnvVars`: the person's sources (user settings,
 * `--hooks` files) union, as Claude Code merges them. A workspace may only narrow what the
 * person set: with both URL lists set, a URL must be allowed by both (`workspaceHttpHookUrls`
 * holds the workspace's), and a workspace variable counts only when the person's list has
 * it. When the person set no list, the workspace's lists are the lists.
 */
function mergeAllowlists(configs: readonly LoadedConfig[], merged: LoadedConfig): void {
  const own = configs.filter((config) => !fromWorkspace(config));
  const workspace = configs.filter(fromWorkspace);
  const ownUrls = unionLists(own.map((config) => config.allowedHttpHookUrls));
  const workspaceUrls = unionLists(workspace.map((config) => config.allowedHttpHookUrls));
  const urls = ownUrls ?? workspaceUrls;
  if (urls) merged.allowedHttpHookUrls = urls;
  if (ownUrls && workspaceUrls) merged.workspaceHttpHookUrls = workspaceUrls;
  const ownVars = unionLists(own.map((config) => config.httpHookAllowedEnvVars));
  const workspaceVars = unionLists(workspace.map((config) => config.httpHookAllowedEnvVars));
  const vars = ownVars && workspaceVars ? workspaceVars.filter((name) => ownVars.includes(name)) : (ownVars ?? workspaceVars);
  if (vars) merged.httpHookAllowedEnvVars = vars;
}

function isManaged(config: LoadedConfig): boolean {
  return config.source !== undefined && isLockedSource(config.source.kind);
}

function track(config: LoadedConfig, set: Set<LoadedConfig>): LoadedConfig {
  set.add(config);
  return config;
}

/**
 * Each scope's `disableAllHooks`: Hookpilot's sources, the last set wins; Claude Code's files
 * by Claude Code's precedence (local over project over user); the managed policy's alone
 * reaches managed hooks. `allowManagedHooksOnly` counts only from the managed policy.
 */
function mergeSwitches(configs: readonly LoadedConfig[], managedHooksOnly: boolean): HookSwitches {
  const switches: HookSwitches = {};
  const claudeRank = (config: LoadedConfig) => CLAUDE_ORDER.indexOf(config.source?.kind ?? 'user');
  const claude = configs.filter((config) => config.source !== undefined && CLAUDE_SOURCES.has(config.source.kind));
  for (const config of [...claude].sort((a, b) => claudeRank(a) - claudeRank(b))) {
    if (config.disableAllHooks !== undefined) switches.disableClaudeHooks = config.disableAllHooks;
  }
  for (const config of configs) {
    if (config.disableAllHooks === undefined || claude.includes(config)) continue;
    if (isManaged(config)) switches.disableManagedHooks = config.disableAllHooks;
    else switches.disableAllHooks = config.disableAllHooks;
  }
  if (managedHooksOnly) switches.managedHooksOnly = true;
  return switches;
}

export interface MergeOptions {
  /** false: the workspace's sources contribute nothing (Restricted Mode). Default true. */
  trusted?: boolean;
}

/**
 * Merges sources given from lowest to highest precedence (user settings, workspace
 * settings, hooks.json). Hooks concatenate (Claude Code: merge, not override), servers
 * keep the first declaration, scalar settings take the last value set.
 */
export function mergeConfigs(sources: readonly LoadedConfig[], options: MergeOptions = {}): LoadedConfig {
  const inertConfigs = new Set<LoadedConfig>();
  const untrusted =
    options.trusted === false ? sources.map((config) => (fromWorkspace(config) ? track(inert(config), inertConfigs) : config)) : sources;
  const managedOnly = untrusted.some((config) => isManaged(config) && config.allowManagedHooksOnly === true);
  // Under allowManagedHooksOnly the other sources' hooks are listed (off) and their servers never start.
  const configs = managedOnly ? untrusted.map((config) => (isManaged(config) ? config : { ...config, servers: [] })) : untrusted;
  const merged = emptyConfig();
  const mergeProblems: ConfigProblem[] = [];
  merged.hooks = mergeHooks(configs, new Set(configs.filter((_config, i) => inertConfigs.has(untrusted[i]))), mergeProblems);
  merged.servers = mergeServers(configs, mergeProblems);
  merged.switches = mergeSwitches(configs, managedOnly);
  for (const config of configs) {
    for (const [name, setting] of Object.entries(config.builtins)) {
      const options = setting.options ?? merged.builtins[name]?.options;
      merged.builtins[name] = options === undefined ? { enabled: setting.enabled } : { enabled: setting.enabled, options };
    }
    for (const [key, value] of Object.entries(config.defaults)) {
      if (value !== undefined) Object.assign(merged.defaults, { [key]: value });
    }
  }
  if (merged.switches.disableAllHooks !== undefined) merged.disableAllHooks = merged.switches.disableAllHooks;
  mergeAllowlists(configs, merged);

  // An rpc hook may name a server another source declares (an untrusted one's too: no false alarm).
  const serverNames = new Set(sources.flatMap((config) => config.servers).map((server) => server.name));
  const hooksById = new Map(configs.flatMap((config) => config.hooks).map((hook) => [hook.id, hook]));
  const resolved = (problem: ConfigProblem): boolean => {
    if (problem.code !== 'unknown-server' || problem.hookId === undefined) return false;
    const spec = hooksById.get(problem.hookId)?.spec;
    return spec?.type === 'rpc' && serverNames.has(spec.server);
  };
  merged.problems = [...configs.flatMap((config) => config.problems).filter((problem) => !resolved(problem)), ...mergeProblems];
  return merged;
}
