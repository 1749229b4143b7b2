import path from 'node:path';
import type { ConfigProblem } from '../core/hooks/config/config-problems';
import { parseJsonc } from '../core/hooks/config/jsonc-document';
import { settingValue } from '../core/hooks/config/setting-value';
import { loadMcpSetting, readMcpDocument, type LoadedMcpConfig, type McpSource } from '../core/mcp/mcp-config';
import { readConfigText } from '../core/read-regular-file';
import { McpManager, type McpManagerOptions } from '../core/mcp/mcp-manager';
import { WORKSPACE_MCP_FILES } from '../core/mcp/mcp-protected-files';
import { currentMcpTools } from '../core/mcp/mcp-tool';
import type { Tool } from '../core/agent/tools/tool';
import { matchPermissionRule, parsePermissionRule } from '../core/permissions/permission-rule';
import { usageError } from './cli-error';
import { displayPath } from './config-positions';

/** The user setting of the person's own MCP servers. */
export const MCP_SETTING = 'hookpilot.mcpServers';

/**
 * The CLI's MCP sources: the user setting `hookpilot.mcpServers`, the workspace's `.mcp.json`
 * and `.vscode/mcp.json` (the CLI trusts its workspace, like `claude -p`), and each
 * `--mcp-config` file. Which definition of a name is used is serversByPrecedence's to decide.
 */
export function loadCliMcpConfigs(projectDir: string, userSettingsFile: string, mcpConfigFiles: readonly string[]): LoadedMcpConfig[] {
  const configs: LoadedMcpConfig[] = [];
  const user = userSetting(userSettingsFile);
  if (user) configs.push(user);
  for (const file of WORKSPACE_MCP_FILES.map((f) => path.join(projectDir, f))) {
    const loaded = readMcpDocument(file, { kind: 'workspace', file });
    if (loaded) configs.push(loaded);
  }
  for (const given of mcpConfigFiles) {
    const file = path.resolve(given);
    const loaded = readMcpDocument(file, { kind: 'cli', file });
    if (!loaded) throw usageError(`--mcp-config: no such file ${file}`);
    configs.push(loaded);
  }
  return configs;
}

/** Each problem as `file:line:column: severity: message`. */
export function formatMcpProblem(problem: ConfigProblem, cwd: string): string {
  const where = problem.file ? displayPath(problem.file, cwd) : problem.sourceKind;
  const at = problem.line !== undefined ? `${where}:${problem.line}:${problem.column ?? 1}` : where;
  return `${at}: ${problem.severity}: ${problem.message}`;
}

export function createCliMcpManager(
  projectDir: string,
  env: NodeJS.ProcessEnv,
  log: McpManagerOptions['log'],
  secrets: McpManagerOptions['secrets'],
  writableRoots: readonly string[] = [],
  elicit?: McpManagerOptions['elicit'],
): McpManager {
  const callTimeoutMs = timeoutFromEnv(env);
  return new McpManager({ workspaceFolder: projectDir, env, writableRoots: () => writableRoots, log, secrets, callTimeoutMs, elicit });
}

/**
 * The connected servers' tools for the agent as they are listed now, less those `--disallowed-tools`
 * names (`mcp__server` names them all).
 */
export function mcpTools(manager: McpManager, withheld: readonly string[]): () => Tool[] {
  const rules = withheld.flatMap((text) => parsePermissionRule(text) ?? []);
  // A name alone: no path in the input for a rule's places to apply to.
  const places = { cwd: '/', projectRoot: '/', home: '/' };
  const isWithheld = (name: string) => rules.some((rule) => matchPermissionRule(rule, name, {}, places) === 'match');
  return () => currentMcpTools(manager).filter((tool) => !isWithheld(tool.name));
}

/** Claude Code's MCP_TOOL_TIMEOUT (ms) sets the call timeout. */
function timeoutFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const value = Number(env.MCP_TOOL_TIMEOUT);
  return Number.isInteger(value) && value > 0 ? Math.min(value, 86_400_000) : undefined;
}

function userSetting(file: string): LoadedMcpConfig | undefined {
  let text: string;
  try {
    text = readConfigText(file);
  } catch {
    // Missing or unreadable: the hook configuration's reading of the same file reports it.
    return undefined;
  }
  const { value, locator } = parseJsonc(text);
  const settings = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const servers = settingValue(settings, MCP_SETTING);
  if (servers === undefined) return undefined;
  const source: McpSource = { kind: 'user', file };
  // The locator places problems under the flat key; the nested form's problems go without a position.
  return loadMcpSetting(servers, source, servers === settings[MCP_SETTING] ? locator : undefined);
}
