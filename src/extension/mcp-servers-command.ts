import type { McpServerView } from '../shared/manager-views';
import type { HookpilotLog } from './log';
import type { McpHost } from './mcp-host';
import { showInformation } from './notifications';
import { showQuickPick } from './quick-inputs';

export const SHOW_MCP_SERVERS = 'hookpilot.showMcpServers';

const UNTRUSTED_DETAIL = "Restricted Mode: this workspace's servers don't start until you trust it";

const ICON: Record<McpServerView['state'], string> = {
  connected: '$(pass)',
  starting: '$(loading~spin)',
  failed: '$(error)',
  disabled: '$(circle-slash)',
  stopped: '$(debug-stop)',
  untrusted: '$(workspace-untrusted)',
};

/**
 * "Hookpilot: Show MCP Servers": each server's status, tools and last error, and Restart,
 * Enable or Disable, kept for the workspace as the Hook Manager's MCP tab keeps it (the
 * configuration files stay as they are).
 */
export async function showMcpServers(host: McpHost, log: HookpilotLog): Promise<void> {
  await host.ensureStarted();
  const servers = host.views();
  if (servers.length === 0) {
    void showInformation('Hookpilot: no MCP server is configured (.mcp.json, .vscode/mcp.json or the hookpilot.mcpServers setting).');
    return;
  }
  const picked = await showQuickPick(
    servers.map((s) => ({
      label: `${ICON[s.state]} ${s.name}`,
      description: `${s.state} · ${s.transport} · ${s.tools.length} tool(s)`,
      detail: s.error ?? (s.state === 'untrusted' ? UNTRUSTED_DETAIL : s.tools.map((t) => t.name).join(', ')),
      server: s,
    })),
    { title: 'MCP servers', placeHolder: 'Pick a server to restart, enable or disable it' },
  );
  if (!picked) return;
  const { name, state } = picked.server;
  const actions = [{ label: 'Restart' }, { label: state === 'disabled' ? 'Enable' : 'Disable' }, { label: 'Show Log' }];
  const action = await showQuickPick(actions, { title: `MCP server ${name}` });
  if (action?.label === 'Restart') await host.restart(name);
  else if (action?.label === 'Enable') await host.setEnabled(name, true);
  else if (action?.label === 'Disable') await host.setEnabled(name, false);
  else if (action?.label === 'Show Log') log.show();
  if (action && action.label !== 'Show Log') {
    const now = host.views().find((s) => s.name === name);
    log.info(`[mcp] ${name}: ${action.label.toLowerCase()} by a person; now ${now?.state ?? 'gone'}${now?.error ? ` (${now.error})` : ''}`);
  }
}
