import * as vscode from 'vscode';
import { z } from 'zod';
import { HookEngine } from '../core/engine/hook-engine';
import { loadHooksDocument, loadHooksValue } from '../core/hooks/config/config-loader';
import type { LoadedConfig } from '../core/hooks/config/loaded-config';
import type { HookState } from '../core/hooks/registry';
import type { HookSourceKind } from '../core/hooks/types';
import { ClaudeManagedSources } from './claude-managed-sources';
import type { HookpilotConfig } from './hookpilot-config';
import { Disposable } from './lifecycle';
import type { HookpilotLog } from './log';
import type { AppliedConfig } from './pending-config-applied';
import { ConfigChangeHooks, type CurrentSession } from './pending-config-hooks';
import { describeBlockedChange } from '../core/hooks/config-change';
import { STALE_CHANGE, type PendingConfigChange, type SourceText } from './pending-config-guard';
import { GOVERNING_KEYS, governedSources, hooksJsonFile, readSource, SECTION, savedText } from './pending-config-sources';
import { withoutBom } from '../core/hooks/config/jsonc-document';
import { errorMessage } from '../core/error-message';
import { showError } from './notifications';
import { readConfigText } from '../core/read-regular-file';
import { governedSourceProblems } from './governed-source-problems';

export const HOOKS_JSON_RELATIVE = '.vscode/hooks.json';
const OVERRIDES_KEY = 'hookpilot.enabledOverrides';
const HELD_CHANGES_KEY = 'hookpilot.heldConfigChanges';
const storedHeldSchema = z.array(
  z.object({ file: z.string(), label: z.string(), appliedText: z.string().optional(), heldHash: z.string(), discarded: z.boolean() }),
);
/** Each governed source's applied content: one found changed at the next activation is held (see ConfigChangeGuard.adopt). */
const APPLIED_CONFIG_KEY = 'hookpilot.appliedConfig';
const storedAppliedSchema = z.array(z.object({ file: z.string(), text: z.string().optional() }));
const RELOAD_DEBOUNCE_MS = 150;
const MCP_FILES_PATTERN = '{**/.mcp.json,**/.vscode/mcp.json}';

export interface EngineHostOptions {
  config: HookpilotConfig;
  log: HookpilotLog;
  workspaceState: vscode.Memento;
  /** audit/, transcripts/, spill/ and summaries/ go here. */
  storageDir: string;
  env: NodeJS.ProcessEnv;
  /** The built helper that command hooks are spawned from (see SpawnerProcessRunner). */
  spawnerModulePath: string;
  /** The governing configuration as applied; changes no person made wait here. */
  applied: AppliedConfig;
  /** VS Code's user settings.json: protected from the agent, since it applies live. */
  userSettingsFile?: string;
  /** Where the user's command hooks and rpc servers run while the workspace is untrusted: an empty folder of global storage. */
  untrustedCwd: string;
}

/** What one hooks.json said, kept for diagnostics (positions need the text). */
export interface HooksJsonFile {
  file: string;
  text: string;
}

/**
 * Owns the one HookEngine of this window: loads hooks from the settings (user, workspace,
 * folder) and from .vscode/hooks.json, follows workspace trust, and keeps the user's
 * enable/disable choices in workspace state. Workspace hooks and settings are loaded from the
 * applied configuration: a change a person saved in the editor (or made through Hookpilot's
 * commands) reloads at once; any other change is held until a person applies it.
 */
export class EngineHost extends Disposable {
  readonly engine: HookEngine;
  private hooksJsonFiles: HooksJsonFile[] = [];
  /** Governed files that could not be read at the last look, and why: their applied content stays. */
  private readonly unreadable = new Map<string, string>();
  private readonly claudeManaged: ClaudeManagedSources;
  private reloading: Promise<void> = Promise.resolve();
  private reloadTimer: NodeJS.Timeout | undefined;
  private readonly announced = new Set<string>();
  private readonly reloaded = this._register(new vscode.EventEmitter<void>());
  /** After every reload and trust change: hooks, problems and trust may differ. */
  readonly onDidReload = this.reloaded.event;
  private loaded = false;
  private notLoaded: string | undefined;
  private readonly held = this._register(new vscode.EventEmitter<PendingConfigChange>());
  /** A change no person made was found and held (once per distinct content). */
  readonly onDidHoldChange = this.held.event;
  private readonly configChangeHooks: ConfigChangeHooks;

  constructor(private readonly options: EngineHostOptions) {
    super();
    const { guard } = options.applied;
    // A held change survives a window reload: reloading must not be a way to apply it.
    const stored = storedHeldSchema.safeParse(options.workspaceState.get(HELD_CHANGES_KEY) ?? []);
    guard.restore(stored.success ? stored.data.map((c) => ({ ...c, appliedText: c.appliedText })) : []);
    const applied = storedAppliedSchema.safeParse(options.workspaceState.get(APPLIED_CONFIG_KEY) ?? []);
    guard.restoreApplied(applied.success ? applied.data.map(({ file, text }) => ({ file, text })) : []);
    this._register(
      guard.onDidChange(() => {
        void options.workspaceState.update(HELD_CHANGES_KEY, guard.stored());
        void options.workspaceState.update(APPLIED_CONFIG_KEY, guard.appliedSources());
      }),
    );
    this.engine = new HookEngine({
      projectDir: this.projectDir ?? options.storageDir,
      storageDir: options.storageDir,
      trusted: vscode.workspace.isTrusted,
      enabledOverrides: options.workspaceState.get<Record<string, boolean>>(OVERRIDES_KEY) ?? {},
      env: options.env,
      writableRoots: () => options.config.permissions(this.projectDir).additionalDirectories,
      log: options.log.engineLogger,
      secretValues: options.config.secretValues(),
      spawnerModulePath: options.spawnerModulePath,
      userSettingsFile: options.userSettingsFile,
      untrustedCwd: options.untrustedCwd,
    });
    const projectDirs = () => (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
    this.configChangeHooks = new ConfigChangeHooks({
      engine: this.engine,
      log: options.log,
      projectDirs,
      userSettingsFile: options.userSettingsFile,
    });
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (GOVERNING_KEYS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`))) this.scheduleReload();
      }),
    );
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => void this.setTrusted(true)));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.scheduleReload()));
    this._register(options.config.onDidChangeModel(() => this.registerSecrets()));
    // The editor saved a governed file: that content is a person's, and applies when it is seen on disk.
    this._register(
      vscode.workspace.onDidSaveTextDocument((document) => {
        const source = governedSources().find((s) => s.file === document.uri.fsPath);
        if (!source) return;
        guard.noteSave(source.file, savedText(source, document.getText()));
        this.scheduleReload();
      }),
    );
    // One watcher for every folder, present or added later; nested .vscode folders are filtered out.
    const watcher = this._register(vscode.workspace.createFileSystemWatcher(`**/${HOOKS_JSON_RELATIVE}`));
    const onHooksJson = (uri: vscode.Uri) => {
      if ((vscode.workspace.workspaceFolders ?? []).some((folder) => hooksJsonFile(folder) === uri.fsPath)) this.scheduleReload();
    };
    this._register(watcher.onDidChange(onHooksJson));
    this._register(watcher.onDidCreate(onHooksJson));
    this._register(watcher.onDidDelete(onHooksJson));
    // The agent root's MCP files: what they start is held like the hooks (McpHost loads them as applied).
    const mcpWatcher = this._register(vscode.workspace.createFileSystemWatcher(MCP_FILES_PATTERN));
    const onMcpJson = (uri: vscode.Uri) => {
      if (governedSources().some((s) => s.kind === 'mcpJson' && s.file === uri.fsPath)) this.scheduleReload();
    };
    for (const event of [mcpWatcher.onDidChange, mcpWatcher.onDidCreate, mcpWatcher.onDidDelete]) this._register(event(onMcpJson));
    this.claudeManaged = this._register(
      new ClaudeManagedSources({ appliedText: (file) => guard.appliedText(file), projectDir: () => this.projectDir }),
    );
    this._register(this.claudeManaged.onDidChange(() => this.scheduleReload()));
    options.config.useManagedPermissions(() => this.claudeManaged.managedPermissions);
  }

  /** The first workspace folder: the agent's root and CLAUDE_PROJECT_DIR. */
  get projectDir(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** The hooks.json files as applied (what the engine loaded). */
  get hooksJson(): readonly HooksJsonFile[] {
    return this.hooksJsonFiles;
  }

  /** A change was held, applied or discarded. */
  onDidChangePending(listener: () => void): vscode.Disposable {
    return this.options.applied.guard.onDidChange(listener);
  }

  /** The changes held until a person applies or discards them. */
  get pendingChanges(): readonly PendingConfigChange[] {
    return this.options.applied.guard.pendingChanges();
  }

  /** The files whose content on disk a person discarded: the applied configuration is not theirs. */
  get discardedChanges(): readonly string[] {
    return this.options.applied.guard.discardedLabels();
  }

  /** Looks at every governed source again and reloads from the applied configuration; calls run one after the other. */
  reload(): Promise<void> {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = undefined;
    return this.serialized(async () => {
      await this.checkSources();
      await this.doReload();
    }).catch((error: unknown) => {
      // The hooks that applied before stay; a person must know the new ones did not load.
      const reason = errorMessage(error);
      if (!this.loaded) this.notLoaded = reason;
      const outcome = this.loaded ? 'The hooks loaded before stay in effect.' : 'The agent does not run until it loads.';
      const message = `Hookpilot could not load the hook configuration: ${reason}. ${outcome}`;
      void showError(message, 'Show Log').then((choice) => choice && this.options.log.show());
    });
  }

  /** Why no hook configuration is in effect yet (its first load failed): the agent must not run without its guards. */
  get notLoadedReason(): string | undefined {
    return this.notLoaded;
  }

  /** ConfigChange payloads name the chat's session while there is one. */
  useSession(session: CurrentSession): void {
    this.configChangeHooks.useSession(session);
  }

  /** A person applies the held change `id`: it is loaded now, unless a ConfigChange hook blocks it (it then stays held). */
  applyPending(id: string): Promise<PendingConfigChange> {
    const { guard } = this.options.applied;
    // Checked now too, so that a stale Apply is the caller's error, not a failed reload.
    if (!guard.find(id)) return Promise.reject(new Error(STALE_CHANGE));
    return this.serialized(async () => {
      const pending = guard.find(id);
      const source = governedSources().find((s) => s.file === pending?.file);
      if (!pending || !source) throw new Error(STALE_CHANGE);
      const verdict = await this.configChangeHooks.judge(source, pending.newText);
      if (verdict.blocked) {
        guard.markBlocked(id, { hookName: verdict.hookName, reason: verdict.reason });
        throw new Error(describeBlockedChange(pending.label, verdict));
      }
      const change = guard.apply(id);
      this.options.log.info(`${change.label}: the change on disk was applied by the user`);
      await this.doReload();
      return change;
    });
  }

  /** A person discards the held change `id`: the applied configuration stays; the file on disk still differs. */
  discardPending(id: string): PendingConfigChange {
    const change = this.options.applied.guard.discard(id);
    this.options.log.info(`${change.label}: the change on disk was discarded by the user; the applied configuration stays`);
    return change;
  }

  /**
   * One of Hookpilot's own commands, on a person's word, is about to write `text` to the
   * hooks.json `file`: call right before writing, and that write applies as soon as it is seen.
   */
  expectHooksJsonWrite(file: string, text: string): void {
    let before: SourceText;
    try {
      before = withoutBom(readConfigText(file));
    } catch (error) {
      // A file that exists but cannot be read explains nothing: what is written stays held.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
    }
    this.options.applied.guard.expect(file, before, text);
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.reloading.then(work);
    this.reloading = run.then(
      () => undefined,
      (error: unknown) => this.options.log.error(`reloading hooks failed: ${errorMessage(error)}`),
    );
    return run;
  }

  /** After a change event: user settings apply live, workspace sources only as the guard allows. */
  private scheduleReload(): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.reload(), RELOAD_DEBOUNCE_MS);
  }

  /** Compares every governed source with its applied content: applies what a person's action explains, holds the rest. */
  private async checkSources(): Promise<void> {
    if (this.isDisposed) return;
    const { guard } = this.options.applied;
    const sources = governedSources();
    guard.retain(new Set(sources.map((s) => s.file)));
    this.unreadable.clear();
    for (const source of sources) {
      let text: SourceText;
      try {
        text = await readSource(source);
      } catch (error) {
        // Unreadable is not a change anyone can review: the applied content stays, and a problem says so.
        this.unreadable.set(source.file, errorMessage(error));
        this.options.log.warn(`cannot read ${source.file}: ${errorMessage(error)}; the applied hook configuration stays`);
        continue;
      }
      // A change about to apply goes through the ConfigChange hooks of the applied configuration first.
      const verdict = guard.wouldApply(source.file, text) ? await this.configChangeHooks.judge(source, text) : undefined;
      if (verdict?.blocked) guard.refuse(source.file, source.label, text, { hookName: verdict.hookName, reason: verdict.reason });
      else guard.observe(source.file, source.label, text);
    }
    await this.configChangeHooks.observeLive();
    // Announced once each, including those held at a first read elsewhere (a restored change).
    for (const change of guard.pendingChanges().filter((c) => !this.announced.has(c.id))) {
      this.announced.add(change.id);
      const why = change.blockedBy
        ? describeBlockedChange(change.label, change.blockedBy)
        : `${change.label} changed on disk outside the editor`;
      this.options.log.warn(`${why}; the change is held until you apply it (Hook Manager)`);
      this.held.fire(change);
    }
  }

  private async doReload(): Promise<void> {
    if (this.isDisposed) return;
    const { claudeManaged } = this;
    const configs = [
      ...claudeManaged.managedConfigs(),
      ...this.settingsDefaults(),
      ...this.settingsHooks(),
      ...this.loadHooksJsonFiles(),
      ...claudeManaged.claudeConfigs(),
      ...governedSourceProblems(governedSources(), this.unreadable, (file) => this.options.applied.guard.appliedText(file)),
    ];
    await this.engine.reload(configs);
    this.loaded = true;
    this.notLoaded = undefined;
    const hooks = this.engine.registry.current().states;
    this.options.log.info(
      `hooks loaded: ${hooks.filter((s) => s.active).length} active of ${hooks.length}${this.trusted ? '' : ' (Restricted Mode: workspace hooks are off)'}`,
    );
    this.reloaded.fire();
  }

  async setTrusted(trusted: boolean): Promise<void> {
    await this.engine.setTrusted(trusted);
    // The workspace's settings values are read only while it is trusted: read them again.
    await this.reload();
    this.options.log.info(trusted ? 'workspace trusted: workspace hooks are on' : 'workspace not trusted: workspace hooks are off');
    this.reloaded.fire();
  }

  setEnabled(id: string, enabled: boolean): Promise<void> {
    this.engine.registry.setEnabled(id, enabled);
    return this.persistOverrides();
  }

  /** Hooks from settings and hooks.json: what "Toggle All Hooks" and the status bar count (built-ins are plumbing). */
  configuredStates(): HookState[] {
    return this.engine.registry.current().states.filter((s) => s.hook.source.kind !== 'builtin' && s.hook.source.kind !== 'session');
  }

  /** Turns every configured hook on or off; built-ins such as Cancellation keep their state. */
  setAllEnabled(enabled: boolean): Promise<void> {
    for (const state of this.configuredStates()) {
      if (state.enabled !== enabled && !state.locked) this.engine.registry.setEnabled(state.hook.id, enabled);
    }
    return this.persistOverrides();
  }

  private async persistOverrides(): Promise<void> {
    await this.options.workspaceState.update(OVERRIDES_KEY, this.engine.registry.enabledOverrides());
  }

  private registerSecrets(): void {
    for (const secret of this.options.config.secretValues()) this.engine.audit.redactor.addSecretValue(secret);
  }

  /** hookpilot.builtins and hookpilot.hookTimeouts, lowest precedence: hooks.json may override them. */
  /**
   * `hookpilot.builtins` and `hookpilot.hookTimeouts`: the user's, and apart the workspace's
   * (its settings file as the source), which the merge lets reach only the workspace's hooks.
   */
  private settingsDefaults(): LoadedConfig[] {
    const { config } = this.options;
    const user = loadHooksValue({ builtins: config.builtins('user') ?? {} }, { kind: 'user' });
    user.defaults = config.hookTimeouts('user');
    const file = governedSources().find((source) => source.kind === 'workspaceSettings')?.file;
    const builtins = config.builtins('workspace');
    const defaults = config.hookTimeouts('workspace');
    if (file === undefined || (builtins === undefined && Object.keys(defaults).length === 0)) return [user];
    const workspace = loadHooksValue(builtins === undefined ? {} : { builtins }, { kind: 'workspace', file });
    workspace.defaults = defaults;
    return [user, workspace];
  }

  /** hookpilot.hooks per scope: the user's live, the workspace's and folders' as applied. */
  private settingsHooks(): LoadedConfig[] {
    const configs: LoadedConfig[] = [];
    const add = (value: unknown, kind: HookSourceKind, file?: string) => {
      if (value !== undefined && value !== null) configs.push(loadHooksValue(value, file ? { kind, file } : { kind }));
    };
    const { applied } = this.options;
    add(vscode.workspace.getConfiguration(SECTION).inspect('hooks')?.globalValue, 'user');
    for (const source of governedSources()) {
      if (source.kind === 'workspaceSettings') add(applied.settingsValues('workspaceSettings').hooks, 'workspace', source.file);
      if (source.kind === 'folderSettings') add(applied.settingsValues('folderSettings', source.folder).hooks, 'folder', source.file);
    }
    return configs;
  }

  private loadHooksJsonFiles(): LoadedConfig[] {
    const { guard } = this.options.applied;
    const files: HooksJsonFile[] = [];
    for (const source of governedSources()) {
      const text = source.kind === 'hooksJson' ? guard.appliedText(source.file) : undefined;
      if (text !== undefined) files.push({ file: source.file, text });
    }
    this.hooksJsonFiles = files;
    return files.map(({ file, text }) => loadHooksDocument(text, { kind: 'hooksJson', file }));
  }

  override dispose(): void {
    clearTimeout(this.reloadTimer);
    super.dispose();
  }
}
