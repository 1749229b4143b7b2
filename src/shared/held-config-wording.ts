import type { ConfigSubject } from './manager-views';

/** What stays in force while a change to a file that configures `governs` is held. */
export function appliedBefore(governs: ConfigSubject): string {
  return governs === 'mcpServers' ? 'the MCP servers applied before' : 'the hooks and permissions applied before';
}

/** How a held change's file is named where it is announced. */
export function heldConfigKind(governs: ConfigSubject): string {
  return governs === 'mcpServers' ? 'MCP server configuration' : 'Hook configuration';
}
