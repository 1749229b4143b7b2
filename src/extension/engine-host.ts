import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import { HookEngine } from '../core/engine/hook-engine';
import { loadHooksDocument, loadHooksValue } from '../core/hooks/config/config-loader';
import type { LoadedConfig } from '../core/hooks/config/loaded-config';
import type { HookState } from '../core/hooks/registry';
import type { HookSourceKind } from '../core/hooks/types';
import type { HookpilotConfig } from './hookpilot-config';
import { SECTION } from './hookpilot-config';
import { Disposable } from './lifecycle';
import type { HookpilotLog } from './log';

export const HOOKS_JSON_RELATIVE = '.vscode/hooks.json';
const OVERRIDES_KEY = 'hookpilot.enabledOverrides';
const RELOAD_DEBOUNCE_MS = 150;

export interface EngineHostOptions {
  config: HookpilotConfig;
  log: HookpilotLog;
  workspaceState: vscode.Memento;
  /** audit/, transcripts/, spill/ and summaries/ go here. */
  storageDir: string;
  env: NodeJS.ProcessEnv;
  /** The built helper that command hooks are spawned from (see SpawnerProcessRunner). */
  spawnerModulePath: string;
}

/** What one hooks.json said, kept for diagnostics (positions need the text). */
export interface HooksJsonFile {
  file: string;
  text: string;
}

function hooksJsonPath(folder: vscode.WorkspaceFolder): string {
  return path.join(folder.uri.fsPath, '.vscode', 'hooks.json');
}

/**
 * Owns the one HookEngine of this window: loads hooks from the settings (user, workspace,
 * folder, via inspect) and from .vscode/hooks.json, reloads when they change, follows
 * workspace trust, and keeps the user's enable/disable choices in workspace state.
 */
export class EngineHost extends Disposable {
  readonly engine: HookEngine;
  private hooksJsonFiles: HooksJsonFile[] = [];
  private reloading: Promise<void> = Promise.resolve();
  private reloadTimer: NodeJS.Timeout | undefined;
  private readonly reloaded = this._register(new vscode.EventEmitter<void>());
  /** After every reload and trust change: hooks, problems and trust may differ. */
  readonly onDidReload = this.reloaded.event;

  constructor(private readonly options: EngineHostOptions) {
    super();
    this.engine = new HookEngine({
      projectDir: this.projectDir ?? options.storageDir,
      storageDir: options.storageDir,
      trusted: vscode.workspace.isTrusted,
      enabledOverrides: options.workspaceState.get<Record<string, boolean>>(OVERRIDES_KEY) ?? {},
      env: options.env,
      log: options.log.engineLogger,
      secretValues: options.config.secretValues(),
      spawnerModulePath: options.spawnerModulePath,
    });
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (['hooks', 'builtins', 'hookTimeouts'].some((key) => e.affectsConfiguration(`${SECTION}.${key}`))) this.scheduleReload();
      }),
    );
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => void this.setTrusted(true)));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.scheduleReload()));
    this._register(options.config.onDidChangeModel(() => this.registerSecrets()));
    // One watcher for every folder, present or added later; nested .vscode folders are filtered out.
    const watcher = this._register(vscode.workspace.createFileSystemWatcher(`**/${HOOKS_JSON_RELATIVE}`));
    const onHooksJson = (uri: vscode.Uri) => {
      if ((vscode.workspace.workspaceFolders ?? []).some((folder) => hooksJsonPath(folder) === uri.fsPath)) this.scheduleReload();
    };
    this._register(watcher.onDidChange(onHooksJson));
    this._register(watcher.onDidCreate(onHooksJson));
    this._register(watcher.onDidDelete(onHooksJson));
  }

  /** The first workspace folder: the agent's root and CLAUDE_PROJECT_DIR. */
  get projectDir(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** The hooks.json files as last loaded. */
  get hooksJson(): readonly HooksJsonFile[] {
    return this.hooksJsonFiles;
  }

  /** Reloads every source now; overlapping calls run one after the other. */
  reload(): Promise<void> {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = undefined;
    this.reloading = this.reloading.then(() => this.doReload()).catch((error: unknown) => this.options.log.error(`reloading hooks failed: ${error instanceof Error ? error.message : String(error)}`));
    return this.reloading;
  }

  private scheduleReload(): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.reload(), RELOAD_DEBOUNCE_MS);
  }

  private async doReload(): Promise<void> {
    if (this.isDisposed) return;
    const configs = [this.settingsDefaults(), ...this.settingsHooks(), ...(await this.loadHooksJsonFiles())];
    await this.engine.reload(configs);
    const hooks = this.engine.registry.current().states;
    this.options.log.info(`hooks loaded: ${hooks.filter((s) => s.active).length} active of ${hooks.length}${this.trusted ? '' : ' (Restricted Mode: workspace hooks are off)'}`);
    this.reloaded.fire();
  }

  async setTrusted(trusted: boolean): Promise<void> {
    await this.engine.setTrusted(trusted);
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
      if (state.enabled !== enabled) this.engine.registry.setEnabled(state.hook.id, enabled);
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
  private settingsDefaults(): LoadedConfig {
    const config = loadHooksValue({ builtins: this.options.config.builtins() ?? {} }, { kind: 'user' });
    config.defaults = this.options.config.hookTimeouts();
    return config;
  }

  /** hookpilot.hooks per scope: inspect() keeps user, workspace and folder values apart. */
  private settingsHooks(): LoadedConfig[] {
    const configs: LoadedConfig[] = [];
    const add = (value: unknown, kind: HookSourceKind, file?: string) => {
      if (value !== undefined && value !== null) configs.push(loadHooksValue(value, file ? { kind, file } : { kind }));
    };
    const folders = vscode.workspace.workspaceFolders ?? [];
    const inspected = vscode.workspace.getConfiguration(SECTION).inspect('hooks');
    add(inspected?.globalValue, 'user');
    const workspaceFile = vscode.workspace.workspaceFile?.fsPath ?? (folders[0] ? path.join(folders[0].uri.fsPath, '.vscode', 'settings.json') : undefined);
    add(inspected?.workspaceValue, 'workspace', workspaceFile);
    // In a single-folder window the folder's settings are the workspace settings; only multi-root has both.
    if (vscode.workspace.workspaceFile) {
      for (const folder of folders) {
        const value = vscode.workspace.getConfiguration(SECTION, folder.uri).inspect('hooks')?.workspaceFolderValue;
        add(value, 'folder', path.join(folder.uri.fsPath, '.vscode', 'settings.json'));
      }
    }
    return configs;
  }

  private async loadHooksJsonFiles(): Promise<LoadedConfig[]> {
    const files: HooksJsonFile[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const file = hooksJsonPath(folder);
      try {
        files.push({ file, text: await readFile(file, 'utf8') });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.options.log.warn(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.hooksJsonFiles = files;
    return files.map(({ file, text }) => loadHooksDocument(text, { kind: 'hooksJson', file }));
  }

  override dispose(): void {
    clearTimeout(this.reloadTimer);
    super.dispose();
  }
}
