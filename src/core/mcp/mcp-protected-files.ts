import path from 'node:path';
import { interpreterPlaces, protectedAround, scriptFolders, serverDependencyFiles } from '../engine/protected-files';
import type { McpServerConfig } from './mcp-config';
import { expandKnownVariables, readEnvFile } from './mcp-variables';

/** The workspace's MCP files: the first of them to define a server name is the one used (serversByPrecedence). */
export const WORKSPACE_MCP_FILES = ['.mcp.json', path.join('.vscode', 'mcp.json')];

/** Whether `file` (an absolute path) is one of a folder's MCP files rather than hook configuration. */
export function isWorkspaceMcpFile(file: string): boolean {
  return WORKSPACE_MCP_FILES.some((rel) => file.endsWith(path.sep + rel));
}

/**
 * What the model may not change without a person, for a workspace's MCP servers: each server
 * starts with the user's whole environment, so what decides what it runs is as much a part of
 * the agent's governance as a hook script. That is the MCP files (also while missing: a new
 * `.mcp.json` would start a server next time) and every file read for servers; for each stdio
 * server, the workspace files its command runs or names, the folders its interpreter loads more
 * files from (`node_modules/`, `package.json`, the script's folder), as for an rpc hook server,
 * and its `envFile` (also while missing: `NODE_OPTIONS=--require ./x.js` there runs code).
 * Paths are read with their variables filled as the server's start fills them, from `env`
 * (the environment servers start with); a path through `${input:id}` is not known before a
 * person answers, and is not protected.
 */
export function mcpProtectedFiles(projectDir: string, servers: readonly McpServerConfig[], env: NodeJS.ProcessEnv): string[] {
  const files = new Set(WORKSPACE_MCP_FILES.map((f) => path.join(projectDir, f)));
  const dependencies: string[] = [];
  const expand = (text: string) => expandKnownVariables(text, { workspaceFolder: projectDir, env });
  for (const server of servers) {
    if (server.source.file) files.add(server.source.file);
    if (server.transport !== 'stdio') continue;
    const command = [server.command, ...server.args].map(expand);
    const envFile = server.envFile === undefined ? undefined : path.resolve(projectDir, expand(server.envFile));
    // As the start merges them: what the envFile holds (a NODE_OPTIONS preload) under the server's own env.
    const env = { ...(envFile ? envFileOrNothing(envFile) : {}), ...mapValues(server.env, expand) };
    const launch = { command, cwd: server.cwd && expand(server.cwd), env };
    dependencies.push(...serverDependencyFiles(projectDir, launch));
    for (const place of interpreterPlaces(projectDir, { exec: command, cwd: launch.cwd, env })) files.add(place);
    if (envFile !== undefined) files.add(envFile);
  }
  for (const file of [...dependencies, ...protectedAround(projectDir, scriptFolders(projectDir, dependencies))]) files.add(file);
  return [...files];
}

function mapValues(values: Record<string, string>, map: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, map(value)]));
}

/** A missing or unreadable envFile adds nothing here; the server's start reports it. */
function envFileOrNothing(file: string): Record<string, string> {
  try {
    return readEnvFile(file);
  } catch {
    return {};
  }
}
