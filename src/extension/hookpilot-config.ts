import * as vscode from 'vscode';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { checkModelEndpoint, type EndpointProblem, type ModelEndpoint } from '../core/agent/llm/model-endpoint';
import type { PermissionSettings } from '../core/agent/permissions/permission-settings';
import { mergePermissionScopes, permissionsFromSetting, permissionsScope } from '../core/agent/permissions/permissions-setting';
import { linkAmong } from '../core/agent/permissions/settings-links';
import { besideWorkspaceOnly } from '../core/agent/permissions/workspace-directories';
import { WORKSPACE_SETTINGS } from '../core/hooks/config/workspace-config-files';
import type { HookDefaults } from '../core/hooks/config/loaded-config';
import type { ManagedPermissions } from '../core/hooks/config/managed-policy';
import { MAX_TIMEOUT_MS } from '../core/hooks/config/timeout-bounds';
import { secretEnvValues } from '../core/secret-env-names';
import type { ModelStatus } from '../shared/chat-protocol';
import { MODEL_PRESETS, modelPreset, type ModelPresetId } from '../shared/model-presets';
import { Disposable } from './lifecycle';
import type { AppliedConfig, SettingsScope } from './pending-config-applied';
import { SECTION } from './pending-config-sources';

export { SECTION };
export const API_KEY_SECRET = 'hookpilot.apiKey';

export type { ModelEndpoint };

export type EndpointResolution = { ok: true; endpoint: ModelEndpoint } | { ok: false; problem: string };

const hookTimeoutsSchema = z.object({
  observer: z.number().int().positive().optional(),
  interceptor: z.number().int().positive().optional(),
  approval: z.number().int().positive().optional(),
  command: z.number().int().positive().optional(),
});

const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 600;

const SCOPE_LABELS: Record<SettingsScope, string> = { default: 'default settings', user: 'user settings', workspace: 'workspace settings' };

const passEnvSchema = z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/));

/** The chat's setup panel wording: names the setting or command that fixes it. */
function endpointSetupText(problem: EndpointProblem): string {
  switch (problem.kind) {
    case 'no-base-url':
      return 'No model is configured. Pick a provider below, or set hookpilot.baseUrl and hookpilot.model in the settings.';
    case 'not-a-url':
      return `hookpilot.baseUrl "${problem.baseURL}" is not a URL. Use e.g. https://api.openai.com/v1 or http://localhost:11434/v1.`;
    case 'not-http':
      return `hookpilot.baseUrl "${problem.baseURL}" must start with http:// or https://.`;
    case 'no-model':
      return `No model name is set for ${problem.baseURL}. Set hookpilot.model (e.g. gpt-4.1, or qwen2.5-coder:7b on Ollama), or run "Hookpilot: Select Model".`;
    case 'no-api-key':
      return `The API key is missing: ${problem.baseURL} is not on this machine. Click "Set API key…" (or run "Hookpilot: Set API Key"), or set HOOKPILOT_API_KEY.`;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Hookpilot's settings and its one secret. The API key lives in SecretStorage (falling back
 * to HOOKPILOT_API_KEY / OPENAI_API_KEY); it is cached here so the chat can ask "is a model
 * usable?" synchronously, and it is handed only to the model client and the redactor. The
 * settings that govern the agent (permissions, hook defaults, the endpoint the key goes to)
 * are read from the applied configuration, so a change no person made does not widen them.
 */
export class HookpilotConfig extends Disposable {
  private storedKey: string | undefined;
  private managedPermissions: () => ManagedPermissions = () => ({});
  private warnPermissions: (message: string) => void = () => undefined;
  private reportedPermissionProblems = new Set<string>();
  private readonly modelChanged = this._register(new vscode.EventEmitter<void>());
  /** baseUrl, model or the API key changed. */
  readonly onDidChangeModel = this.modelChanged.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly env: NodeJS.ProcessEnv,
    private readonly applied: AppliedConfig,
  ) {
    super();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.baseUrl`) || e.affectsConfiguration(`${SECTION}.model`)) this.modelChanged.fire();
      }),
    );
    // A held change applied by a person may move the endpoint.
    this._register(applied.guard.onDidChange(() => this.modelChanged.fire()));
    this._register(
      secrets.onDidChange(async (e) => {
        if (e.key !== API_KEY_SECRET) return;
        await this.loadSecret();
        this.modelChanged.fire();
      }),
    );
  }

  /** Reads the stored key once at start; later changes arrive through onDidChange. */
  async loadSecret(): Promise<void> {
    this.storedKey = nonEmpty(await this.secrets.get(API_KEY_SECRET));
  }

  private settings(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  apiKey(): string | undefined {
    return this.storedKey ?? nonEmpty(this.env.HOOKPILOT_API_KEY) ?? nonEmpty(this.env.OPENAI_API_KEY);
  }

  /** Every value that must never reach a log, the audit log, a webview or the model: the key and secret-looking variables. */
  secretValues(): string[] {
    const key = [this.storedKey, nonEmpty(this.env.HOOKPILOT_API_KEY), nonEmpty(this.env.OPENAI_API_KEY)].filter(
      (v): v is string => v !== undefined,
    );
    return [...key, ...secretEnvValues(this.env)];
  }

  /**
   * `hookpilot.tools.bash.passEnv`: the secret-looking variables the Bash tool keeps. From the
   * user's settings only (the setting is machine-scoped): a workspace must not be able to hand
   * the user's credentials to the model's shell.
   */
  bashPassEnv(): string[] {
    const parsed = passEnvSchema.safeParse(this.settings().inspect('tools.bash.passEnv')?.globalValue ?? []);
    return parsed.success ? parsed.data : [];
  }

  baseUrl(): string | undefined {
    const value = this.applied.value('baseUrl');
    return nonEmpty(typeof value === 'string' ? value : undefined) ?? nonEmpty(this.env.HOOKPILOT_BASE_URL);
  }

  modelName(): string | undefined {
    return nonEmpty(this.settings().get<string>('model')) ?? nonEmpty(this.env.HOOKPILOT_MODEL);
  }

  resolveEndpoint(): EndpointResolution {
    const check = checkModelEndpoint({ baseURL: this.baseUrl(), model: this.modelName(), apiKey: this.apiKey() });
    return check.ok ? check : { ok: false, problem: endpointSetupText(check.problem) };
  }

  /** What the chat's footer or setup panel shows; never carries the key. */
  modelStatus(): ModelStatus {
    const resolution = this.resolveEndpoint();
    if (!resolution.ok) return { configured: false, problem: resolution.problem, presets: [...MODEL_PRESETS] };
    return { configured: true, name: resolution.endpoint.model, endpoint: resolution.endpoint.baseURL };
  }

  /** The managed policy's rules, as the engine host last read the policy. */
  useManagedPermissions(rules: () => ManagedPermissions): void {
    this.managedPermissions = rules;
  }

  /** Where the problems of the permission settings are said (the log, once it exists). */
  usePermissionsLog(warn: (message: string) => void): void {
    this.warnPermissions = warn;
  }

  /**
   * `hookpilot.permissions` and `hookpilot.permissionMode` of every scope, after the managed
   * policy's rules (its deny rules are final): the scopes' lists add up, so the workspace cannot
   * remove a rule of the user's, and the mode is the workspace's if it sets one. Relative
   * additional directories resolve against `root`. No folder scope: both settings are
   * window-scoped, and VS Code applies no folder value of them in a multi-root workspace.
   */
  permissions(root: string | undefined): PermissionSettings {
    const problems: string[] = [];
    const levels = this.applied.scopes(['permissions', 'permissionMode']).map(({ scope, values }) => {
      const read = permissionsScope(values, { modeInPermissions: false });
      // An invalid value (VS Code only warns about it) grants nothing and takes nothing of the other scopes with it.
      problems.push(
        ...read.problems.map((problem) => `${SCOPE_LABELS[scope]}: ${problem}. That value is ignored; the other settings still apply.`),
        ...read.brokenRules.map((problem) => `${SCOPE_LABELS[scope]}: ${problem}.`),
      );
      if (scope !== 'workspace') return { scope, permissions: read.scope };
      const { scope: kept, refused } = besideWorkspaceOnly(read.scope, { root: root ?? homedir(), home: homedir() });
      problems.push(
        ...refused.map(
          (dir) =>
            `workspace settings: the additional directory ${JSON.stringify(dir)} is not used: a workspace's settings may add only folders beside the workspace, never the home folder's own or a folder above it.`,
        ),
      );
      return { scope, permissions: kept };
    });
    const { mode, ...lists } = mergePermissionScopes(levels.map((level) => level.permissions));
    // A cloned repository may choose a wider mode: the person should know before the model acts.
    const userMode = mergePermissionScopes(levels.filter((l) => l.scope !== 'workspace').map((l) => l.permissions)).mode ?? 'default';
    const workspaceMode = levels.find((l) => l.scope === 'workspace')?.permissions.mode;
    if (workspaceMode !== undefined && workspaceMode !== userMode)
      problems.push(`workspace settings: the permission mode is ${workspaceMode} (your settings: ${userMode}).`);
    this.reportPermissionProblems(problems);
    return permissionsFromSetting(lists, { mode: mode ?? 'default', root, managed: this.managedPermissions() });
  }

  /** Each problem once while it lasts: the gate reads the settings at every tool call. */
  private reportPermissionProblems(problems: readonly string[]): void {
    for (const problem of problems) if (!this.reportedPermissionProblems.has(problem)) this.warnPermissions(problem);
    this.reportedPermissionProblems = new Set(problems);
  }

  /** How long a person has to answer a permission prompt before it is denied: at most a day (a longer timer would fire at once). */
  approvalTimeoutMs(): number {
    const seconds = this.settings().get<number>('approvalTimeoutSeconds');
    const ms =
      typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0
        ? Math.round(seconds * 1000)
        : DEFAULT_APPROVAL_TIMEOUT_SECONDS * 1000;
    return Math.min(ms, MAX_TIMEOUT_MS);
  }

  /** `hookpilot.hookTimeouts` as the engine's defaults (a hooks.json `defaults` block wins). */
  /** `hookpilot.hookTimeouts` of one side: a workspace's reach only the workspace's hooks. */
  hookTimeouts(side: 'user' | 'workspace'): HookDefaults {
    const parsed = hookTimeoutsSchema.safeParse(this.applied.valueOf('hookTimeouts', side) ?? {});
    if (!parsed.success) return {};
    const t = parsed.data;
    const out: HookDefaults = {};
    if (t.observer !== undefined) out.observerTimeoutMs = t.observer;
    if (t.interceptor !== undefined) out.interceptorTimeoutMs = t.interceptor;
    if (t.approval !== undefined) out.approvalTimeoutMs = t.approval;
    if (t.command !== undefined) out.commandTimeoutMs = t.command;
    return out;
  }

  /** `hookpilot.builtins` of one side: a workspace may turn a built-in on, not off one the user's settings keep on. */
  builtins(side: 'user' | 'workspace'): unknown {
    return this.applied.valueOf('builtins', side);
  }

  async setApiKey(key: string): Promise<void> {
    const trimmed = key.trim();
    if (trimmed === '') await this.secrets.delete(API_KEY_SECRET);
    else await this.secrets.store(API_KEY_SECRET, trimmed);
    await this.loadSecret();
    this.modelChanged.fire();
  }

  /** A preset's base URL and model go to the user settings: a model is a person's choice, not a folder's. */
  async applyPreset(id: ModelPresetId): Promise<void> {
    const preset = modelPreset(id);
    await this.settings().update('baseUrl', preset.baseUrl, vscode.ConfigurationTarget.Global);
    await this.settings().update('model', preset.defaultModel, vscode.ConfigurationTarget.Global);
  }

  async setModelName(model: string): Promise<void> {
    await this.settings().update('model', model, vscode.ConfigurationTarget.Global);
  }

  /** "Always allow in this workspace": adds `rule` to the workspace's hookpilot.permissions.allow, never through a link. */
  async addWorkspaceAllowRule(rule: string): Promise<void> {
    const link = linkAmong(workspaceSettingsPlaces());
    if (link !== undefined) throw new Error(`${link} is a link; the rule is not written through it`);
    const current = this.settings().inspect<Record<string, unknown>>('permissions')?.workspaceValue;
    const base = current !== null && typeof current === 'object' && !Array.isArray(current) ? current : {};
    const allow = Array.isArray(base.allow) ? base.allow.filter((r): r is string => typeof r === 'string') : [];
    if (allow.includes(rule)) return;
    this.applied.expectWorkspaceWrite('permissions', { ...base, allow: [...allow, rule] });
    await this.settings().update('permissions', { ...base, allow: [...allow, rule] }, vscode.ConfigurationTarget.Workspace);
  }
}

/** Where VS Code writes workspace settings: the .code-workspace file, or the folder's .vscode/settings.json. */
function workspaceSettingsPlaces(): string[] {
  const workspaceFile = vscode.workspace.workspaceFile;
  if (workspaceFile?.scheme === 'file') return [workspaceFile.fsPath];
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (folder === undefined) return [];
  const file = path.join(folder, WORKSPACE_SETTINGS);
  return [path.dirname(file), file];
}
