import { createHash } from 'node:crypto';

/**
 * Claude Code's MCP tool names: `mcp__<server>__<tool>`. Both parts keep only
 * [A-Za-z0-9_-] (what function names allow); a server name never holds `__`, so the rule
 * `mcp__<server>` cannot also cover another server whose name starts the same way.
 */
export const MCP_PREFIX = 'mcp__';

/** A server's name as it appears in tool names and rules. */
export function sanitizeServerName(name: string): string {
  return name
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_|_$/g, '');
}

export function sanitizeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** OpenAI's function names are at most 64 characters. */
const MAX_NAME_LENGTH = 64;
/** Server names are kept whole in tool names (rules name them), so they are bounded. */
export const MAX_SERVER_NAME_LENGTH = 40;

/** A name over 64 characters keeps its start and gets a hash of the whole: two long tools stay two. */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_PREFIX}${sanitizeServerName(server)}__${sanitizeToolName(tool)}`;
  if (full.length <= MAX_NAME_LENGTH) return full;
  return `${full.slice(0, MAX_NAME_LENGTH - 9)}_${createHash('sha256').update(full).digest('hex').slice(0, 8)}`;
}

/** The server part of an MCP tool name, or undefined for other tools. */
export function mcpServerOf(toolName: string): string | undefined {
  if (!toolName.startsWith(MCP_PREFIX)) return undefined;
  const end = toolName.indexOf('__', MCP_PREFIX.length);
  return end < 0 ? undefined : toolName.slice(MCP_PREFIX.length, end);
}
