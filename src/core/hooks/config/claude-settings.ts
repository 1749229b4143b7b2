import path from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../../error-message';
import { loadSettingsDocument } from './config-loader';
import { emptyConfig, type LoadedConfig } from './loaded-config';
import { readConfigText } from '../../read-regular-file';
import { unreadableFileProblem } from './config-problems';

/**
 * Claude Code's settings files, read in place as hook sources (docs/hooks.md#claude-code-settings-files):
 * no import step, the same trust, pinning and protection as `.vscode/hooks.json`.
 */

export const CLAUDE_SETTINGS_SETTING = 'hookpilot.hooks.claudeSettings';
export const claudeSettingsModeSchema = z.enum(['off', 'read']);
export type ClaudeSettingsMode = z.infer<typeof claudeSettingsModeSchema>;
export const DEFAULT_CLAUDE_SETTINGS_MODE: ClaudeSettingsMode = 'read';

/** The keys of a Claude Code settings file that are about hooks; the rest (model, env, permissions, ...) are Claude Code's. */
export const CLAUDE_HOOK_KEYS = ['hooks', 'disableAllHooks', 'allowedHttpHookUrls', 'httpHookAllowedEnvVars'] as const;

export type ClaudeSourceKind = 'claudeUser' | 'claudeProject' | 'claudeLocal';

export interface ClaudeSettingsFile {
  kind: ClaudeSourceKind;
  file: string;
}

export const CLAUDE_PROJECT_SETTINGS = path.join('.claude', 'settings.json');
export const CLAUDE_LOCAL_SETTINGS = path.join('.claude', 'settings.local.json');

/** In Claude Code's order of precedence, lowest first: user, project, local. */
export function claudeSettingsFiles(projectDir: string | undefined, home: string): ClaudeSettingsFile[] {
  const files: ClaudeSettingsFile[] = [{ kind: 'claudeUser', file: path.join(home, '.claude', 'settings.json') }];
  if (projectDir !== undefined) {
    files.push({ kind: 'claudeProject', file: path.join(projectDir, CLAUDE_PROJECT_SETTINGS) });
    files.push({ kind: 'claudeLocal', file: path.join(projectDir, CLAUDE_LOCAL_SETTINGS) });
  }
  return files;
}

/** The setting's value: a bad one reads the files (their hooks are guards too) and says why. */
export function claudeSettingsMode(value: unknown): { mode: ClaudeSettingsMode; problem?: string } {
  if (value === undefined) return { mode: DEFAULT_CLAUDE_SETTINGS_MODE };
  const parsed = claudeSettingsModeSchema.safeParse(value);
  if (parsed.success) return { mode: parsed.data };
  return {
    mode: DEFAULT_CLAUDE_SETTINGS_MODE,
    problem: `${CLAUDE_SETTINGS_SETTING} must be "off" or "read", not ${JSON.stringify(value)}; Claude Code's settings files are read`,
  };
}

/** One Claude Code settings file's hooks; its other settings are not looked at. */
export function loadClaudeSettingsText(source: ClaudeSettingsFile, text: string): LoadedConfig {
  return loadSettingsDocument(text, source, CLAUDE_HOOK_KEYS).config;
}

/** Reads the files that exist; one that exists but cannot be read is a problem, never silently nothing. */
export function readClaudeSettingsConfigs(files: readonly ClaudeSettingsFile[]): LoadedConfig[] {
  const configs: LoadedConfig[] = [];
  for (const source of files) {
    let text: string;
    try {
      text = readConfigText(source.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      configs.push({ ...emptyConfig(), source, problems: [unreadableFileProblem(source.file, source.kind, errorMessage(error))] });
      continue;
    }
    configs.push(loadClaudeSettingsText(source, text));
  }
  return configs;
}
