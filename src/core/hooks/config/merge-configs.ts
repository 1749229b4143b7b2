import { BUILTINS_OFF_BY_DEFAULT } from '../builtins/builtin-names';
import { CLAUDE_SOURCES, isLockedSource, switchedOff, WORKSPACE_SOURCES, type HookSwitches } from '../hook-switches';
import type { HookDefinition, HookSource, ServerDefinition } from '../types';
import { formatJsonPath, type ConfigProblem, type JsonPath } from './config-problems';
import { hookBehaviourKey } from './hook-ids';
import { emptyConfig, type HookDefaults, type LoadedConfig } from './loaded-config';

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

/** Claude Code's precedence among its settings files: a later one's `disableAllHooks` wins (within its scope: mergeSwitches). */
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
 * Which source's copy of an identical hook or server name is kept: the managed policy's (it
 * cannot be turned off), then the person's own, then the workspace's; an untrusted workspace's
 * never shadows another. A workspace's copy of the user's guard must not run in its place: the
 * workspace's switches and defaults reach its copy.
 */
function dedupRank(config: LoadedConfig, inertConfigs: ReadonlySet<LoadedConfig>): number {
  if (config.source && isLockedSource(config.source.kind)) return 0;
  if (inertConfigs.has(config)) return 3;
  return fromWorkspace(config) ? 2 : 1;
}

/** A copy that does not run (`enabled: false`, or off by its scope's switch) ranks with an untrusted one: it never shadows a copy that runs. */
function copyRank(hook: HookDefinition, config: LoadedConfig, inertConfigs: ReadonlySet<LoadedConfig>, switches: HookSwitches): number {
  const off = !hook.enabled || switchedOff(hook.source.kind, switches) !== undefined;
  return off ? 3 : dedupRank(config, inertConfigs);
}

/** Claude Code runs an identical command or http handler from several settings files once. */
function mergeHooks(
  configs: readonly LoadedConfig[],
  inertConfigs: ReadonlySet<LoadedConfig>,
  switches: HookSwitches,
  problems: ConfigProblem[],
): HookDefinition[] {
  const hooks: HookDefinition[] = [];
  const firstByKey = new Map<string, { hook: HookDefinition; config: number }>();
  const ranked = configs
    .flatMap((config, index) =>
      config.hooks
        .filter((hook) => hook.spec.type === 'command' || hook.spec.type === 'http')
        .map((hook) => ({ hook, index, rank: copyRank(hook, config, inertConfigs, switches) })),
    )
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  for (const { hook, index } of ranked) {
    const key = hookBehaviourKey(hook);
    if (!firstByKey.has(key)) firstByKey.set(key, { hook, config: index });
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

/**
 * One server per name, ranked as identical hooks are (dedupRank), as MCP servers are
 * (serversByPrecedence). A workspace's server of a name that the person's sources or the policy
 * declare is refused with an error: it would take that server's hooks, the person's guard's.
 */
function mergeServers(
  configs: readonly LoadedConfig[],
  inertConfigs: ReadonlySet<LoadedConfig>,
  problems: ConfigProblem[],
): ServerDefinition[] {
  const byName = new Map<string, { server: ServerDefinition; config: LoadedConfig }>();
  const ranked = configs
    .map((config, index) => ({ config, index }))
    .sort((a, b) => dedupRank(a.config, inertConfigs) - dedupRank(b.config, inertConfigs) || a.index - b.index);
  for (const { config } of ranked) {
    for (const server of config.servers) {
      const kept = byName.get(server.name);
      if (!kept) {
        byName.set(server.name, { server, config });
        continue;
      }
      const where = describeSource(kept.server.source);
      problems.push(
        fromWorkspace(config) && !fromWorkspace(kept.config)
          ? problemAt(server.source, {
              severity: 'error',
              code: 'server-clash',
              message: `Server "${server.name}" is already declared in ${where}; this workspace's declaration in ${describeSource(server.source)} is refused: it does not start, and that server keeps its hooks.`,
            })
          : problemAt(server.source, {
              severity: 'warning',
              code: 'server-clash',
              message: `Server "${server.name}" is already declared in ${where}; this declaration is ignored.`,
            }),
      );
    }
  }
  return [...byName.values()].map(({ server }) => server);
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
 * A trusted workspace's value that does not reach the user's hooks, said where the workspace
 * set it (`hooks validate`, the editor's problems, the Hook Manager) instead of dropped unseen.
 */
function workspaceOnly(config: LoadedConfig, path: JsonPath, message: string): ConfigProblem {
  const problem: ConfigProblem = {
    severity: 'warning',
    code: 'workspace-only',
    message,
    path: formatJsonPath(path),
    sourceKind: config.source?.kind ?? 'workspace',
  };
  if (config.source?.file !== undefined) problem.file = config.source.file;
  return problem;
}

/**
 * `allowedHttpHookUrls` and `httpHookAllowedEnvVars`: the person's sources (user settings,
 * `--hooks` files) union, as Claude Code merges them, and bound every http hook but the
 * policy's. A workspace's lists bound only its own http hooks, within the person's: a
 * repository's `[]` must not make the user's http guard fail (a failure lets the call through).
 * The policy's locked hooks have the policy's lists alone, for the same reason.
 */
function mergeAllowlists(configs: readonly LoadedConfig[], merged: LoadedConfig, problems: ConfigProblem[]): void {
  const own = configs.filter((config) => !fromWorkspace(config));
  const workspace = configs.filter(fromWorkspace);
  const managed = configs.filter(isManaged);
  const managedUrls = unionLists(managed.map((config) => config.allowedHttpHookUrls));
  const managedVars = unionLists(managed.map((config) => config.httpHookAllowedEnvVars));
  if (managedUrls) merged.managedHttpHookUrls = managedUrls;
  if (managedVars) merged.managedHttpHookAllowedEnvVars = managedVars;
  const ownUrls = unionLists(own.map((config) => config.allowedHttpHookUrls));
  const workspaceUrls = unionLists(workspace.map((config) => config.allowedHttpHookUrls));
  if (ownUrls) merged.allowedHttpHookUrls = ownUrls;
  if (workspaceUrls) merged.workspaceHttpHookUrls = workspaceUrls;
  const ownVars = unionLists(own.map((config) => config.httpHookAllowedEnvVars));
  const workspaceVars = unionLists(workspace.map((config) => config.httpHookAllowedEnvVars));
  if (ownVars) merged.httpHookAllowedEnvVars = ownVars;
  if (workspaceVars)
    merged.workspaceHttpHookAllowedEnvVars = ownVars ? workspaceVars.filter((name) => ownVars.includes(name)) : workspaceVars;
  for (const config of workspace) {
    if (config.allowedHttpHookUrls)
      problems.push(
        workspaceOnly(
          config,
          ['allowedHttpHookUrls'],
          `"allowedHttpHookUrls" here limits only this workspace's http hooks; your own http hooks keep ${ownUrls ? 'your list' : 'any URL'}.`,
        ),
      );
    if (config.httpHookAllowedEnvVars)
      problems.push(
        workspaceOnly(
          config,
          ['httpHookAllowedEnvVars'],
          `"httpHookAllowedEnvVars" here limits only this workspace's http hooks; your own http hooks keep ${ownVars ? 'your list' : 'their own allowedEnvVars'}.`,
        ),
      );
  }
}

/**
 * `defaults`: the person's, the last value set winning, time every hook but the policy's (it
 * sets none: its hooks keep Hookpilot's); a workspace's time only its own hooks, so that a
 * repository's 1 ms cannot cut the user's guards short.
 */
function mergeDefaults(configs: readonly LoadedConfig[], merged: LoadedConfig, problems: ConfigProblem[]): void {
  const own: HookDefaults = {};
  const workspace: HookDefaults = {};
  for (const config of configs.filter((config) => !fromWorkspace(config))) Object.assign(own, definedDefaults(config.defaults));
  for (const config of configs.filter(fromWorkspace)) {
    for (const [key, value] of Object.entries(definedDefaults(config.defaults)) as [keyof HookDefaults, number][]) {
      workspace[key] = value;
      if (value === own[key]) continue;
      const kept = own[key] === undefined ? 'the default' : `${own[key]} ms`;
      const message = `"defaults.${key}" here times only this workspace's hooks; your own hooks and the built-in hooks keep ${kept}.`;
      problems.push(workspaceOnly(config, ['defaults', key], message));
    }
  }
  merged.defaults = own;
  if (Object.keys(workspace).length > 0) merged.workspaceDefaults = workspace;
}

function definedDefaults(defaults: HookDefaults): HookDefaults {
  return Object.fromEntries(Object.entries(defaults).filter(([, value]) => value !== undefined));
}

/**
 * `builtins`: the person's settings, the last value set winning. A workspace may turn on a
 * built-in that is off, never turn off one the person's settings or the defaults turn on
 * (Cancellation and AuditLog are the user's guard and record), nor overrule the person's choice;
 * under allowManagedHooksOnly it turns none on: a hook the policy did not allow would run.
 */
function mergeBuiltins(configs: readonly LoadedConfig[], managedOnly: boolean, merged: LoadedConfig, problems: ConfigProblem[]): void {
  const set = (name: string, setting: LoadedConfig['builtins'][string]) => {
    const options = setting.options ?? merged.builtins[name]?.options;
    merged.builtins[name] = options === undefined ? { enabled: setting.enabled } : { enabled: setting.enabled, options };
  };
  for (const config of configs.filter((config) => !fromWorkspace(config)))
    for (const [name, setting] of Object.entries(config.builtins)) set(name, setting);
  const own = { ...merged.builtins };
  for (const config of configs.filter(fromWorkspace)) {
    for (const [name, setting] of Object.entries(config.builtins)) {
      const chosen = own[name]?.enabled;
      const on = chosen ?? !BUILTINS_OFF_BY_DEFAULT.has(name);
      const key = formatJsonPath(['builtins', name]);
      if (!setting.enabled && on) {
        const why = chosen === undefined ? 'that is on by default' : 'that your settings turn on';
        const message = `"${key}": false here is ignored: a workspace cannot turn off a built-in hook ${why}; it keeps running.`;
        problems.push(workspaceOnly(config, ['builtins', name], message));
      } else if (chosen !== undefined && setting.enabled !== chosen) {
        const message = `"${key}": true here is ignored: your settings turn this built-in hook off.`;
        problems.push(workspaceOnly(config, ['builtins', name], message));
      } else if (chosen === undefined && !managedOnly) {
        set(name, setting);
      } else if (chosen === undefined && setting.enabled && !on) {
        const message = `"${key}": true here is ignored: the managed policy allows only its own hooks, and the built-in hooks as your settings set them.`;
        problems.push(workspaceOnly(config, ['builtins', name], message));
      }
    }
  }
}

/**
 * A workspace's `{ "type": "builtin" }` entry runs the very built-in that `builtins` switches:
 * it stays off (listed, with a warning) where that built-in is off once mergeBuiltins has
 * decided, so that a repository cannot turn on by an entry what it may not by `builtins`.
 */
function offBuiltinEntries(
  configs: readonly LoadedConfig[],
  inertConfigs: ReadonlySet<LoadedConfig>,
  merged: LoadedConfig,
  problems: ConfigProblem[],
): void {
  const workspaceHooks = new Set(configs.filter((config) => fromWorkspace(config) && !inertConfigs.has(config)).flatMap((c) => c.hooks));
  merged.hooks = merged.hooks.map((hook) => {
    if (hook.spec.type !== 'builtin' || !hook.enabled || !workspaceHooks.has(hook)) return hook;
    const name = hook.spec.builtin;
    if (merged.builtins[name]?.enabled ?? !BUILTINS_OFF_BY_DEFAULT.has(name)) return hook;
    const why = merged.builtins[name] === undefined ? 'is off by default' : 'is turned off by your settings';
    problems.push(
      problemAt(hook.source, {
        severity: 'warning',
        code: 'workspace-only',
        message: `The built-in hook "${name}" ${why}: this workspace's entry does not turn it on, and does not run.`,
        hookId: hook.id,
      }),
    );
    return { ...hook, enabled: false };
  });
}

function isManaged(config: LoadedConfig): boolean {
  return config.source !== undefined && isLockedSource(config.source.kind);
}

function track(config: LoadedConfig, set: Set<LoadedConfig>): LoadedConfig {
  set.add(config);
  return config;
}

/**
 * Each scope's `disableAllHooks`: the person's sources and the workspace's, the last set wins
 * in each; Claude Code's files by Claude Code's precedence (local over project), the user's
 * file apart; the managed policy's alone reaches managed hooks. A workspace's switch reaches
 * only the workspace's hooks, and cannot undo the person's. `allowManagedHooksOnly` counts
 * only from the managed policy.
 */
function mergeSwitches(configs: readonly LoadedConfig[], managedHooksOnly: boolean, problems: ConfigProblem[]): HookSwitches {
  const switches: HookSwitches = {};
  const claudeRank = (config: LoadedConfig) => CLAUDE_ORDER.indexOf(config.source?.kind ?? 'user');
  const isClaude = (config: LoadedConfig) => config.source !== undefined && CLAUDE_SOURCES.has(config.source.kind);
  const claude = configs.filter(isClaude);
  for (const config of [...claude].sort((a, b) => claudeRank(a) - claudeRank(b))) {
    if (config.disableAllHooks === undefined) continue;
    if (fromWorkspace(config)) switches.disableClaudeProjectHooks = config.disableAllHooks;
    else switches.disableClaudeHooks = config.disableAllHooks;
  }
  for (const config of configs) {
    if (config.disableAllHooks === undefined || claude.includes(config)) continue;
    if (isManaged(config)) switches.disableManagedHooks = config.disableAllHooks;
    else if (fromWorkspace(config)) switches.disableWorkspaceHooks = config.disableAllHooks;
    else switches.disableAllHooks = config.disableAllHooks;
  }
  for (const config of configs.filter(fromWorkspace)) {
    if (config.disableAllHooks === undefined) continue;
    const offFromAbove = switches.disableAllHooks === true || (isClaude(config) && switches.disableClaudeHooks === true);
    if (config.disableAllHooks && !offFromAbove)
      problems.push(
        workspaceOnly(
          config,
          ['disableAllHooks'],
          `"disableAllHooks" here turns off only this workspace's hooks; the hooks of your own settings keep running.`,
        ),
      );
    else if (!config.disableAllHooks && offFromAbove)
      problems.push(
        workspaceOnly(
          config,
          ['disableAllHooks'],
          `"disableAllHooks": false here turns nothing back on: your own settings turn every hook off.`,
        ),
      );
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
 * settings, hooks.json). Hooks concatenate (Claude Code: merge, not override), servers keep
 * the policy's declaration, else the person's, else the workspace's first; scalar settings
 * take the last value set within their scope: a workspace's settings reach only the
 * workspace's hooks (docs/hooks.md#what-a-workspaces-settings-reach).
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
  const inertMerged = new Set(configs.filter((_config, i) => inertConfigs.has(untrusted[i])));
  merged.switches = mergeSwitches(configs, managedOnly, mergeProblems);
  merged.hooks = mergeHooks(configs, inertMerged, merged.switches, mergeProblems);
  merged.servers = mergeServers(configs, inertMerged, mergeProblems);
  mergeBuiltins(configs, managedOnly, merged, mergeProblems);
  offBuiltinEntries(configs, inertMerged, merged, mergeProblems);
  mergeDefaults(configs, merged, mergeProblems);
  // The person's switch only: a workspace's turns off its own hooks, not "all hooks".
  if (merged.switches.disableAllHooks !== undefined) merged.disableAllHooks = merged.switches.disableAllHooks;
  mergeAllowlists(configs, merged, mergeProblems);

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
