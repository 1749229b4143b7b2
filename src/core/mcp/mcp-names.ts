import { createHash } from 'node:crypto';

/**
 * Claude Code's MCP tool names: `mcp__<server>__<tool>`. Both parts keep only
 * [A-Za-z0-9_-] (what function names allow), and neither holds `__`: the rule
 * `mcp__<server>` cannot also cover another server whose name starts the same way, and a tool
 * named `mcp__github__get_issue` on server `evil` becomes `mcp__evil__mcp_github_get_issue`,
 * which no matcher written for server `github` (`mcp__github__get_.*`) matches.
 */
export const MCP_PREFIX = 'mcp__';

/** A server's name as it appears in tool names and rules. */
export function sanitizeServerName(name: string): string {
  return name
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_|_$/g, '');
}

/**
 * The server part Claude Code gives `name` in tool names (other characters become `_`, a `__` is
 * kept), when it is not ours: rules and hook matchers spelled Claude Code's way name none of the
 * server's tools here.
 */
export function claudeCodeServerName(name: string): string | undefined {
  const spelled = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return spelled === sanitizeServerName(name) ? undefined : spelled;
}

/** A tool's name as it appears in tool names and rules: no `__`, so it cannot spell another `mcp__<server>__`. */
export function sanitizeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').replace(/_{2,}/g, '_');
}

/** OpenAI's function names are at most 64 characters. */
const MAX_NAME_LENGTH = 64;
/** Server names are kept whole in tool names (rules name them), so they are bounded. */
export const MAX_SERVER_NAME_LENGTH = 40;

/** A name over 64 characters keeps its start and gets a hash of the whole: two long tools stay two. */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_PREFIX}${sanitizeServerName(server)}__${sanitizeToolName(tool)}`;
  if (full.length <= MAX_NAME_LENGTH) return full;
  return hashed(full, full);
}

/**
 * One server's tool names, each distinct: a tool whose name sanitises to one an earlier tool of
 * the server already has (`get.issue` after `get_issue`, `a__b` after `a_b`) gets its start
 * and a hash of its own name, and is reported through `clash`.
 */
export function mcpToolNames(server: string, tools: readonly string[], clash?: (tool: string, name: string) => void): string[] {
  const taken = new Set<string>();
  return tools.map((tool) => {
    let name = mcpToolName(server, tool);
    if (taken.has(name)) {
      const other = hashed(name, `${server}\0${tool}`);
      clash?.(tool, other);
      name = other;
    }
    taken.add(name);
    return name;
  });
}

/** `name`'s start (no `_` left at its end, so no `__` appears) and 8 hex digits of `seed`'s hash. */
function hashed(name: string, seed: string): string {
  // Copied: V8 keeps the whole of a string alive for a slice of it, and a tool's name may be megabytes.
  const start = Buffer.from(name.slice(0, MAX_NAME_LENGTH - 9).replace(/_+$/, '')).toString();
  return `${start}_${createHash('sha256').update(seed).digest('hex').slice(0, 8)}`;
}

/** The server part of an MCP tool name, or undefined for other tools. */
export function mcpServerOf(toolName: string): string | undefined {
  if (!toolName.startsWith(MCP_PREFIX)) return undefined;
  const end = toolName.indexOf('__', MCP_PREFIX.length);
  return end < 0 ? undefined : toolName.slice(MCP_PREFIX.length, end);
}
