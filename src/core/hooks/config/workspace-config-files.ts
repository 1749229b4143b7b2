import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadHooksDocument, loadHooksValue } from './config-loader';
import type { ConfigProblem } from './config-problems';
import { parseJsonc, type JsoncSyntaxError } from './jsonc-document';
import { emptyConfig, type LoadedConfig } from './loaded-config';

export const HOOKS_JSON = path.join('.vscode', 'hooks.json');
export const WORKSPACE_SETTINGS = path.join('.vscode', 'settings.json');

export interface SettingsFile {
  settings: Record<string, unknown>;
  /** Where the text is broken, each with its position; what parsed around them is kept. */
  syntaxErrors: JsoncSyntaxError[];
  /** The file holds something other than an object; its settings are ignored. */
  notAnObject?: true;
}

/** Reads a JSONC settings file; a missing file is an empty object, a broken one has problems. */
export function readSettingsFile(file: string): SettingsFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { settings: {}, syntaxErrors: [] };
  }
  const { value, syntaxErrors } = parseJsonc(text);
  if (value === undefined) return { settings: {}, syntaxErrors };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { settings: {}, syntaxErrors, notAnObject: true };
  return { settings: value as Record<string, unknown>, syntaxErrors };
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

/** The file's own problems: each names its position; the file itself is the problem's `file`. */
function settingsFileProblems(read: SettingsFile, file: string, kind: 'user' | 'workspace'): ConfigProblem[] {
  const at = { severity: 'error', path: '', sourceKind: kind, file } as const;
  const problems: ConfigProblem[] = read.syntaxErrors.map(({ message, range }) => ({ ...at, code: 'syntax', message, ...range }));
  if (read.notAnObject) problems.push({ ...at, code: 'invalid-value', message: 'A settings file must hold a JSON object.' });
  return problems;
}

function settingsConfig(file: string, kind: 'user' | 'workspace'): LoadedConfig {
  const read = readSettingsFile(file);
  const value = read.settings['hookpilot.hooks'];
  const config = value === undefined ? emptyConfig() : loadHooksValue(value, { kind, file });
  config.problems.push(...settingsFileProblems(read, file, kind));
  return config;
}
