import { homedir } from 'node:os';
import path from 'node:path';
import { CLAUDE_SETTINGS_SETTING, claudeSettingsFiles, claudeSettingsMode, readClaudeSettingsConfigs } from './claude-settings';
import { loadHooksDocument, loadHooksValue } from './config-loader';
import { readManagedPolicy, type ManagedPolicy } from './managed-policy';
import { unreadableFileProblem, type ConfigProblem } from './config-problems';
import { parseJsonc, type JsoncSyntaxError } from './jsonc-document';
import { emptyConfig, type LoadedConfig } from './loaded-config';
import { settingValue } from './setting-value';
import { errnoCode } from '../../agent/tools/file-content';
import { errorMessage } from '../../error-message';
import { readConfigText } from '../../read-regular-file';

export const HOOKS_JSON = path.join('.vscode', 'hooks.json');
export const WORKSPACE_SETTINGS = path.join('.vscode', 'settings.json');

export interface SettingsFile {
  settings: Record<string, unknown>;
  /** Where the text is broken, each with its position; what parsed around them is kept. */
  syntaxErrors: JsoncSyntaxError[];
  /** The file holds something other than an object; its settings are ignored. */
  notAnObject?: true;
  /** Why a file that is there could not be read (a FIFO, a device, too large); its settings are ignored. */
  unreadable?: string;
}

/** Reads a JSONC settings file; a missing file is an empty object, a broken one has problems. */
export function readSettingsFile(file: string): SettingsFile {
  let text: string;
  try {
    text = readConfigText(file);
  } catch (error) {
    const unreadable = errnoCode(error) === 'ENOENT' ? undefined : errorMessage(error);
    return { settings: {}, syntaxErrors: [], ...(unreadable && { unreadable }) };
  }
  const { value, syntaxErrors, tooDeep } = parseJsonc(text);
  if (tooDeep) return { settings: {}, syntaxErrors: [], unreadable: syntaxErrors[0].message };
  if (value === undefined) return { settings: {}, syntaxErrors };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { settings: {}, syntaxErrors, notAnObject: true };
  return { settings: value as Record<string, unknown>, syntaxErrors };
}

export interface WorkspaceConfigOptions {
  /** VS Code's user settings.json: `hookpilot.hooks` and `hookpilot.hooks.claudeSettings`. */
  userSettingsFile?: string;
  /** `--hooks` files. */
  extraFiles?: readonly string[];
  /** Where `~/.claude/settings.json` is (default: the home folder). */
  home?: string;
  /** The managed policy as read (default: read from its fixed place now). */
  managedPolicy?: ManagedPolicy;
}

/**
 * The hook configuration a headless host sees, in merge order: the managed policy, user
 * settings (`hookpilot.hooks`), workspace settings, `.vscode/hooks.json`, `--hooks` files, then
 * Claude Code's settings files unless the user's `hookpilot.hooks.claudeSettings` is "off".
 */
export function loadWorkspaceConfigs(projectDir: string, options: WorkspaceConfigOptions = {}): LoadedConfig[] {
  const configs: LoadedConfig[] = [];
  const managed = options.managedPolicy ?? readManagedPolicy();
  if (managed.config) configs.push(managed.config);
  else if (managed.problems.length > 0)
    configs.push({ ...emptyConfig(), source: { kind: 'managed', file: managed.file }, problems: managed.problems });
  if (options.userSettingsFile) configs.push(settingsConfig(options.userSettingsFile, 'user'));
  configs.push(settingsConfig(path.join(projectDir, WORKSPACE_SETTINGS), 'workspace'));
  const ownHooksJson = path.resolve(projectDir, HOOKS_JSON);
  for (const file of [path.join(projectDir, HOOKS_JSON), ...(options.extraFiles ?? [])]) {
    // A --hooks file is the person's whatever its name: only the project's own hooks.json is the workspace's.
    const source = { kind: path.resolve(file) === ownHooksJson ? 'hooksJson' : 'cli', file } as const;
    let text: string;
    try {
      text = readConfigText(file);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') continue;
      configs.push({ ...emptyConfig(), source, problems: [unreadableFileProblem(file, source.kind, errorMessage(error))] });
      continue;
    }
    configs.push(loadHooksDocument(text, source));
  }
  configs.push(...claudeConfigs(projectDir, options));
  return configs;
}

/** Claude Code's settings files, as the user's setting says (a workspace has no say in it). */
function claudeConfigs(projectDir: string, options: WorkspaceConfigOptions): LoadedConfig[] {
  const user = options.userSettingsFile ? readSettingsFile(options.userSettingsFile).settings : {};
  const { mode, problem } = claudeSettingsMode(settingValue(user, CLAUDE_SETTINGS_SETTING));
  if (mode === 'off') return [];
  const configs = readClaudeSettingsConfigs(claudeSettingsFiles(projectDir, options.home ?? homedir()));
  if (problem && options.userSettingsFile) {
    const config = { ...emptyConfig(), source: { kind: 'user' as const, file: options.userSettingsFile } };
    config.problems.push({
      severity: 'error',
      code: 'invalid-value',
      message: problem,
      path: '',
      sourceKind: 'user',
      file: options.userSettingsFile,
    });
    configs.push(config);
  }
  return configs;
}

/** The file's own problems: each names its position; the file itself is the problem's `file`. */
function settingsFileProblems(read: SettingsFile, file: string, kind: 'user' | 'workspace'): ConfigProblem[] {
  const at = { severity: 'error', path: '', sourceKind: kind, file } as const;
  const problems: ConfigProblem[] = read.syntaxErrors.map(({ message, range }) => ({ ...at, code: 'syntax', message, ...range }));
  if (read.notAnObject) problems.push({ ...at, code: 'invalid-value', message: 'A settings file must hold a JSON object.' });
  if (read.unreadable) problems.push(unreadableFileProblem(file, kind, read.unreadable));
  return problems;
}

function settingsConfig(file: string, kind: 'user' | 'workspace'): LoadedConfig {
  const read = readSettingsFile(file);
  const value = settingValue(read.settings, 'hookpilot.hooks');
  const config = value === undefined ? emptyConfig() : loadHooksValue(value, { kind, file });
  config.problems.push(...settingsFileProblems(read, file, kind));
  return config;
}
