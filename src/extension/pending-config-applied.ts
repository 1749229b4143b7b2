import * as vscode from 'vscode';
import { ConfigChangeGuard, type SourceText } from './pending-config-guard';
import {
  governedSources,
  readSettingsSource,
  SECTION,
  settingsText,
  settingsValues,
  type GovernedSource,
  type GoverningKey,
} from './pending-config-sources';

export type SettingsScope = 'default' | 'user' | 'workspace';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** VS Code's layering of one setting: objects merge key by key, anything else the upper layer replaces. */
function overlay(lower: unknown, upper: unknown): unknown {
  if (upper === undefined) return lower;
  if (!isPlainObject(lower) || !isPlainObject(upper)) return upper;
  const merged: Record<string, unknown> = { ...lower };
  for (const [key, value] of Object.entries(upper)) merged[key] = overlay(lower[key], value);
  return merged;
}

/**
 * The configuration that governs the agent as applied, which is not always what is on disk:
 * the engine loads hooks.json and the settings hooks from here, and the permission gate, the
 * model endpoint and the hook defaults read the governing settings from here. Defaults and
 * user settings stay live (they are the user's own, outside the workspace); workspace and
 * folder values come from the snapshot the guard keeps.
 */
export class AppliedConfig {
  readonly guard = new ConfigChangeGuard();

  /** The applied text of a source; the first read of a settings source takes it as VS Code holds it now. */
  settingsSourceText(source: GovernedSource): SourceText {
    if (!this.guard.isKnown(source.file)) this.guard.adopt(source.file, readSettingsSource(source), source.label);
    return this.guard.appliedText(source.file);
  }

  /** The applied governing values of the workspace, or of one folder of a multi-root workspace. */
  settingsValues(kind: 'workspaceSettings' | 'folderSettings', folder?: vscode.WorkspaceFolder): Partial<Record<GoverningKey, unknown>> {
    const source = governedSources().find((s) => s.kind === kind && (!folder || s.folder?.uri.fsPath === folder.uri.fsPath));
    return source ? settingsValues(this.settingsSourceText(source)) : {};
  }

  /**
   * The values of governing keys by scope, lowest first: the defaults, the user's (live), then
   * the workspace's (applied), which an untrusted workspace does not contribute: inspect() does
   * not apply VS Code's restrictedConfigurations.
   */
  scopes<K extends GoverningKey>(keys: readonly K[]): { scope: SettingsScope; values: Partial<Record<K, unknown>> }[] {
    const configuration = vscode.workspace.getConfiguration(SECTION);
    const layer = (name: 'defaultValue' | 'globalValue') =>
      Object.fromEntries(keys.map((key) => [key, configuration.inspect(key)?.[name]])) as Partial<Record<K, unknown>>;
    const own = [
      { scope: 'default' as const, values: layer('defaultValue') },
      { scope: 'user' as const, values: layer('globalValue') },
    ];
    if (!vscode.workspace.isTrusted) return own;
    return [...own, { scope: 'workspace', values: this.settingsValues('workspaceSettings') }];
  }

  /** The effective value of a governing key, as VS Code layers its scopes. */
  value(key: GoverningKey): unknown {
    return this.scopes([key]).reduce<unknown>((lower, { values }) => overlay(lower, values[key]), undefined);
  }

  /** A governing key's value of one side: the defaults under the user's, or the workspace's own (as applied; none while untrusted). */
  valueOf(key: GoverningKey, side: 'user' | 'workspace'): unknown {
    const scopes = this.scopes([key]).filter(({ scope }) => (side === 'workspace') === (scope === 'workspace'));
    return scopes.reduce<unknown>((lower, { values }) => overlay(lower, values[key]), undefined);
  }

  /**
   * Hookpilot is about to write `value` to the workspace value of `key` on a person's word:
   * that write applies by itself, unless the workspace settings already hold a change no
   * person made, which then stays held with this write in it.
   */
  expectWorkspaceWrite(key: GoverningKey, value: unknown): void {
    const source = governedSources().find((s) => s.kind === 'workspaceSettings');
    if (!source) return;
    this.settingsSourceText(source);
    const before = readSettingsSource(source);
    this.guard.expect(source.file, before, settingsText({ ...settingsValues(before), [key]: value }));
  }
}
