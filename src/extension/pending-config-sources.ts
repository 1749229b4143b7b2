import path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import * as vscode from 'vscode';
import { withoutBom } from '../core/hooks/config/jsonc-document';
import { settingValue } from '../core/hooks/config/setting-value';
import type { SourceText } from './pending-config-guard';
import { readConfigText } from '../core/read-regular-file';
import { WORKSPACE_MCP_FILES } from '../core/mcp/mcp-protected-files';

export const SECTION = 'hookpilot';

/**
 * The settings that govern the agent: its hooks, its permissions, and where its API key is
 * sent. Their workspace and folder values are applied from the snapshot, never live.
 */
export const GOVERNING_KEYS = ['hooks', 'builtins', 'hookTimeouts', 'permissions', 'permissionMode', 'baseUrl'] as const;
export type GoverningKey = (typeof GOVERNING_KEYS)[number];

/** A file whose governing content is applied only on a person's word. */
export interface GovernedSource {
  kind: 'hooksJson' | 'workspaceSettings' | 'folderSettings' | 'claudeSettings' | 'mcpJson';
  file: string;
  /** The file as a person reads it. */
  label: string;
  folder?: vscode.WorkspaceFolder;
}

/** Sources held as the file's text; the others as their governing settings. */
function isTextSource(source: GovernedSource): boolean {
  return source.kind === 'hooksJson' || source.kind === 'claudeSettings' || source.kind === 'mcpJson';
}

function isMultiRoot(): boolean {
  return vscode.workspace.workspaceFile !== undefined;
}

/** Where the workspace-level settings live: the .code-workspace file, else the folder's settings.json. */
function workspaceSettingsFile(): string | undefined {
  const first = vscode.workspace.workspaceFolders?.[0];
  return vscode.workspace.workspaceFile?.fsPath ?? (first ? path.join(first.uri.fsPath, '.vscode', 'settings.json') : undefined);
}

export function hooksJsonFile(folder: vscode.WorkspaceFolder): string {
  return path.join(folder.uri.fsPath, '.vscode', 'hooks.json');
}

function folderLabel(folder: vscode.WorkspaceFolder, rel: string): string {
  return isMultiRoot() ? `${folder.name}/${rel}` : rel;
}

/**
 * Every governed source of the open workspace: each folder's hooks.json, the workspace's and
 * folders' settings, and the agent root's Claude settings and MCP files.
 */
export function governedSources(): GovernedSource[] {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const root = folders[0];
  const atRoot = (kind: 'claudeSettings' | 'mcpJson', rels: readonly string[]): GovernedSource[] =>
    root ? rels.map((rel) => ({ kind, file: path.join(root.uri.fsPath, rel), label: folderLabel(root, rel), folder: root })) : [];
  const sources: GovernedSource[] = [
    // Claude Code's project files, read in place from the agent's root (hookpilot.hooks.claudeSettings).
    ...atRoot('claudeSettings', ['.claude/settings.json', '.claude/settings.local.json']),
    // The workspace's MCP servers start with the user's whole environment, outside every hook.
    ...atRoot(
      'mcpJson',
      WORKSPACE_MCP_FILES.map((rel) => rel.split(path.sep).join('/')),
    ),
    ...folders.map((folder): GovernedSource => ({
      kind: 'hooksJson',
      file: hooksJsonFile(folder),
      label: folderLabel(folder, '.vscode/hooks.json'),
      folder,
    })),
  ];
  const workspaceFile = workspaceSettingsFile();
  if (workspaceFile) {
    const label = isMultiRoot() ? path.basename(workspaceFile) : '.vscode/settings.json';
    sources.push({ kind: 'workspaceSettings', file: workspaceFile, label });
  }
  // In a single-folder window the folder's settings are the workspace settings; only multi-root has both.
  if (isMultiRoot()) {
    for (const folder of folders) {
      const file = path.join(folder.uri.fsPath, '.vscode', 'settings.json');
      sources.push({ kind: 'folderSettings', file, label: folderLabel(folder, '.vscode/settings.json'), folder });
    }
  }
  return sources;
}

/**
 * Deeper than any real setting. VS Code parses a cloned repository's settings.json thousands
 * of levels deep; walking such a value would overflow the stack and load no source at all.
 */
const MAX_SETTING_DEPTH = 64;
const TOO_DEEP = `[nested deeper than ${MAX_SETTING_DEPTH} levels: ignored]`;

/**
 * Objects with their keys sorted, so that equal settings give equal text whatever their order
 * in the file. What lies deeper than MAX_SETTING_DEPTH is replaced by a marker, which the
 * loaders then report as an invalid value of that source.
 */
function sorted(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_SETTING_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item) => sorted(item, depth + 1));
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key], depth + 1)]),
  );
}

/** The governing settings of one scope as text: what is applied, compared and shown in a diff. */
export function settingsText(values: Partial<Record<GoverningKey, unknown>>): string {
  const present = GOVERNING_KEYS.filter((key) => values[key] !== undefined).map((key) => [`${SECTION}.${key}`, values[key]]);
  return `${JSON.stringify(sorted(Object.fromEntries(present)), null, 2)}\n`;
}

/** The values a settings text holds, by key without the section. */
export function settingsValues(text: SourceText): Partial<Record<GoverningKey, unknown>> {
  const parsed = JSON.parse(text ?? '{}') as Record<string, unknown>;
  return Object.fromEntries(GOVERNING_KEYS.filter((key) => `${SECTION}.${key}` in parsed).map((key) => [key, parsed[`${SECTION}.${key}`]]));
}

/** The governing settings of a settings source as VS Code holds them now. */
export function readSettingsSource(source: GovernedSource): string {
  const configuration = vscode.workspace.getConfiguration(SECTION, source.folder?.uri);
  const values: Partial<Record<GoverningKey, unknown>> = {};
  for (const key of GOVERNING_KEYS) {
    const inspected = configuration.inspect(key);
    values[key] = source.kind === 'folderSettings' ? inspected?.workspaceFolderValue : inspected?.workspaceValue;
  }
  return settingsText(values);
}

/** What a source holds now: a text source's file on disk (undefined when absent), or the settings of that scope. */
export async function readSource(source: GovernedSource): Promise<SourceText> {
  if (!isTextSource(source)) return readSettingsSource(source);
  try {
    return withoutBom(readConfigText(source.file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The content a save of `documentText` gives a source, comparable with `readSource`. */
export function savedText(source: GovernedSource, documentText: string): SourceText {
  const text = withoutBom(documentText);
  if (isTextSource(source)) return text;
  const parsed: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const root = source.file.endsWith('.code-workspace') ? (parsed as { settings?: unknown } | undefined)?.settings : parsed;
  if (root === null || typeof root !== 'object' || Array.isArray(root)) return settingsText({});
  const settings = root as Record<string, unknown>;
  // As VS Code reads the file: `"hookpilot.permissions"` and `"hookpilot": { "permissions" }` alike, the later winning.
  return settingsText(Object.fromEntries(GOVERNING_KEYS.map((key) => [key, settingValue(settings, `${SECTION}.${key}`)])));
}
