import { homedir } from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import {
  claudeSettingsFiles,
  claudeSettingsMode,
  loadClaudeSettingsText,
  readClaudeSettingsConfigs,
} from '../core/hooks/config/claude-settings';
import { emptyConfig, type LoadedConfig } from '../core/hooks/config/loaded-config';
import { managedPolicyFile, readManagedPolicy, type ManagedPermissions } from '../core/hooks/config/managed-policy';
import { Disposable } from './lifecycle';
import { SECTION } from './pending-config-sources';
import type { SourceText } from './pending-config-guard';

export interface ClaudeManagedSourcesOptions {
  /** The applied text of a governed file: the workspace's Claude files load from it, never live. */
  appliedText: (file: string) => SourceText;
  /** The first workspace folder, the agent's root. */
  projectDir: () => string | undefined;
}

/**
 * The sources beside Hookpilot's own: Claude Code's settings files (`hookpilot.hooks.claudeSettings`,
 * read from the user's settings only) and the machine's managed policy. The user's
 * `~/.claude/settings.json` and the policy apply live, as the user's settings do; the
 * workspace's `.claude/settings*.json` are governed sources, applied only on a person's word.
 */
export class ClaudeManagedSources extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** One of the files changed on disk (or appeared, or went away). */
  readonly onDidChange = this.changed.event;
  private permissions: ManagedPermissions = {};

  constructor(private readonly options: ClaudeManagedSourcesOptions) {
    super();
    const policy = managedPolicyFile();
    const patterns: vscode.GlobPattern[] = [
      '**/.claude/settings{,.local}.json',
      new vscode.RelativePattern(vscode.Uri.file(path.join(homedir(), '.claude')), 'settings.json'),
      new vscode.RelativePattern(vscode.Uri.file(path.dirname(policy)), path.basename(policy)),
    ];
    for (const pattern of patterns) {
      const watcher = this._register(vscode.workspace.createFileSystemWatcher(pattern));
      for (const event of [watcher.onDidChange, watcher.onDidCreate, watcher.onDidDelete]) this._register(event(() => this.changed.fire()));
    }
  }

  /** The managed policy's permission rules as last read: its deny rules are final. */
  get managedPermissions(): ManagedPermissions {
    return this.permissions;
  }

  /** The policy, read now: its config, or only the problem that says why it was ignored. */
  managedConfigs(): LoadedConfig[] {
    const policy = readManagedPolicy();
    this.permissions = policy.permissions;
    if (policy.config) return [policy.config];
    return policy.problems.length > 0
      ? [{ ...emptyConfig(), source: { kind: 'managed', file: policy.file }, problems: policy.problems }]
      : [];
  }

  /** Claude Code's settings files, unless the user turned them off; a workspace has no say in it. */
  claudeConfigs(): LoadedConfig[] {
    const inspected = vscode.workspace.getConfiguration(SECTION).inspect('hooks.claudeSettings');
    const { mode, problem } = claudeSettingsMode(inspected?.globalValue);
    if (mode === 'off') return [];
    const [user, ...workspace] = claudeSettingsFiles(this.options.projectDir(), homedir());
    const configs = readClaudeSettingsConfigs([user]);
    for (const source of workspace) {
      const text = this.options.appliedText(source.file);
      if (text !== undefined) configs.push(loadClaudeSettingsText(source, text));
    }
    if (problem)
      configs.push({
        ...emptyConfig(),
        source: { kind: 'user' },
        problems: [{ severity: 'error', code: 'invalid-value', message: problem, path: '', sourceKind: 'user' }],
      });
    return configs;
  }
}
