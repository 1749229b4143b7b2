/**
 * Claude Code's MCP tool names: `mcp__<server>__<tool>`. Both parts keep only
 * [A-Za-z0-9_-] (what function names allow); a server name never holds `__`, so the rule
 * `mcp__<server>` cannot also cover another server whose name starts the same way.
 */
export const MCP_PREFIX = 'mcp__';

/** A server's name as it appears in tool names and rules. */
export function sanitizeServerName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').replace(/_{2,}/g, '_').replace(/^_|_$/g, '');
}

export function sanitizeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** OpenAI's function names are at most 64 characters. */
const MAX_NAME_LENGTH = 64;

export function mcpToolName(server: string, tool: string): string {
  return `${MCP_PREFIX}${sanitizeServerName(server)}__${sanitizeToolName(tool)}`.slice(0, MAX_NAME_LENGTH);
}

/** The server part of an MCP tool name, or undefined for other tools. */
export function mcpServerOf(toolName: string): string | undefined {
  if (!toolName.startsWith(MCP_PREFIX)) return undefined;
  const end = toolName.indexOf('__', MCP_PREFIX.length);
  return end < 0 ? undefined : toolName.slice(MCP_PREFIX.length, end);
}
