import { describe, expect, it } from 'vitest';
import { receiveHostToManager, receiveManagerToHost } from '../../src/shared/manager-protocol';

// The MCP tab's messages: what the host sends is checked before the tab draws it, and what the
// tab sends before the host acts on it.

const server = {
  name: 'memory',
  sourceKind: 'workspace',
  file: '.vscode/mcp.json',
  transport: 'stdio',
  state: 'connected',
  enabled: true,
  tools: [{ name: 'read_graph', qualifiedName: 'mcp__memory__read_graph', description: 'Reads the graph' }],
};

describe('MCP tab messages', () => {
  it('accepts a server list and the mcp tab; refuses an unknown state, transport or source', () => {
    expect(receiveHostToManager({ type: 'mcpServers', servers: [server] }).ok).toBe(true);
    expect(receiveHostToManager({ type: 'showTab', tab: 'mcp' }).ok).toBe(true);
    expect(receiveHostToManager({ type: 'mcpServers', servers: [{ ...server, state: 'exploded' }] }).ok).toBe(false);
    expect(receiveHostToManager({ type: 'mcpServers', servers: [{ ...server, transport: 'ws' }] }).ok).toBe(false);
    expect(receiveHostToManager({ type: 'mcpServers', servers: [{ ...server, sourceKind: 'hooksJson' }] }).ok).toBe(false);
    expect(receiveHostToManager({ type: 'mcpServers', servers: [{ ...server, tools: [{ name: 'x' }] }] }).ok).toBe(false);
  });

  it('restart and toggle need a server name; the toggle a boolean', () => {
    expect(receiveManagerToHost({ type: 'restartMcpServer', name: 'memory' }).ok).toBe(true);
    expect(receiveManagerToHost({ type: 'toggleMcpServer', name: 'memory', enabled: false }).ok).toBe(true);
    expect(receiveManagerToHost({ type: 'restartMcpServer', name: '' }).ok).toBe(false);
    expect(receiveManagerToHost({ type: 'toggleMcpServer', name: 'memory', enabled: 'no' }).ok).toBe(false);
    expect(receiveManagerToHost({ type: 'toggleMcpServer', name: 'memory' }).ok).toBe(false);
  });
});
