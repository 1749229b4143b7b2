import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { loadHooksDocument, loadHooksValue } from './config-loader';
import { emptyConfig, type LoadedConfig } from './loaded-config';

export const HOOKS_JSON = path.join('.vscode', 'hooks.json');
export const WORKSPACE_SETTINGS = path.join('.vscode', 'settings.json');

/** Reads a JSONC settings file; a missing file is an empty object, a broken one a problem. */
export function readSettingsFile(file: string): { settings: Record<string, unknown>; error?: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { settings: {} };
  }
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { settings: {}, error: `${file}: not a JSON object` };
  return { settings: value as Record<string, unknown>, error: errors.length > 0 ? `${file}: ${errors.length} JSON syntax error(s)` : undefined };
}

/**
 * The hook configuration a headless host sees, in merge order: user settings
 * (`hookpilot.hooks`), workspace settings, then `.vscode/hooks.json`.
 */
export function loadWorkspaceConfigs(projectDir: string, options: { userSettingsFile?: string; extraFiles?: readonly string[] } = {}): LoadedConfig[] {
  const configs: LoadedConfig[] = [];
  if (options.userSettingsFile) configs.push(settingsConfig(options.userSettingsFile, 'user'));
  configs.push(settingsConfig(path.join(projectDir, WORKSPACE_SETTINGS), 'workspace'));
  for (const file of [path.join(projectDir, HOOKS_JSON), ...(options.extraFiles ?? [])]) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    configs.push(loadHooksDocument(text, { kind: file.endsWith(HOOKS_JSON) ? 'hooksJson' : 'cli', file }));
  }
  return configs;
}

function settingsConfig(file: string, kind: 'user' | 'workspace'): LoadedConfig {
  const { settings, error } = readSettingsFile(file);
  const value = settings['hookpilot.hooks'];
  const config = value === undefined ? emptyConfig() : loadHooksValue(value, { kind, file });
  if (error) config.problems.push({ severity: 'error', code: 'syntax', message: error, path: '', sourceKind: kind, file });
  return config;
}
