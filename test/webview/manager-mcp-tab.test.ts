import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { McpServerView } from '../../src/shared/manager-views';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';

let view: WebviewPage;
let closeView: (() => Promise<void>) | undefined;

const tool = (server: string, name: string, description = `The ${name} tool`) => ({
  name,
  qualifiedName: `mcp__${server}__${name}`,
  description,
});
const memory: McpServerView = {
  name: 'memory',
  sourceKind: 'workspace',
  file: '.vscode/mcp.json',
  transport: 'stdio',
  state: 'connected',
  enabled: true,
  tools: [tool('memory', 'create_entities'), tool('memory', 'read_graph')],
};
const broken: McpServerView = {
  name: 'broken',
  sourceKind: 'user',
  transport: 'http',
  state: 'failed',
  enabled: true,
  error: 'could not start: connect ECONNREFUSED 127.0.0.1:9',
  tools: [],
};

const card = (name: string) => view.page.locator(`[data-testid="mcp-server"][data-server="${name}"]`);
const toolNames = (name: string) => card(name).getByTestId('mcp-tool').locator('.mono').allTextContents();

beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1100, height: 700 }));
});

afterAll(() => closeView?.());

beforeEach(async () => {
  await view.clearPosted();
  await view.page.getByTestId('tab-mcp').click();
});

afterEach(() => {
  expect(view.problems).toEqual([]);
});

describe('Hook Manager MCP tab', () => {
  it('lists each server with its state, transport, source, last error and tools', async () => {
    await view.host({ type: 'mcpServers', servers: [] });
    await view.page.getByTestId('mcp-empty').waitFor();
    await view.host({ type: 'mcpServers', servers: [memory, broken] });
    await card('memory').waitFor();
    expect(await view.page.getByTestId('mcp-empty').isVisible()).toBe(false);
    expect(await card('memory').getByTestId('mcp-state').textContent()).toBe('connected');
    expect(await card('memory').locator('.mcp-meta').textContent()).toBe('stdio · workspace (.vscode/mcp.json)');
    expect(await toolNames('memory')).toEqual(['mcp__memory__create_entities', 'mcp__memory__read_graph']);
    expect(await card('memory').getByTestId('mcp-error').isVisible()).toBe(false);
    expect(await card('broken').getByTestId('mcp-state').textContent()).toBe('failed');
    expect(await card('broken').getByTestId('mcp-error').textContent()).toContain('ECONNREFUSED');
    await view.screenshot('manager-mcp.png');
  });

  it('Restart and the toggle post restartMcpServer and toggleMcpServer', async () => {
    await view.host({ type: 'mcpServers', servers: [memory] });
    await card('memory').getByTestId('mcp-restart').click();
    expect(await view.waitForPosted('restartMcpServer')).toEqual([{ type: 'restartMcpServer', name: 'memory' }]);
    await card('memory').getByTestId('mcp-toggle').click();
    expect(await view.waitForPosted('toggleMcpServer')).toEqual([{ type: 'toggleMcpServer', name: 'memory', enabled: false }]);
  });

  it('updates a card in place as the server changes state, and explains untrusted and disabled servers', async () => {
    await view.host({ type: 'mcpServers', servers: [{ ...memory, state: 'starting', tools: [] }] });
    await card('memory').locator('.codicon-modifier-spin').waitFor();
    expect(await card('memory').getByTestId('mcp-restart').getAttribute('disabled')).toBe('');
    const before = await card('memory').elementHandle();
    await view.host({ type: 'mcpServers', servers: [memory] });
    await card('memory').locator('[data-testid="mcp-state"]', { hasText: 'connected' }).waitFor();
    expect(await card('memory').evaluate((el, old) => el === old, before)).toBe(true);
    expect(await card('memory').getByTestId('mcp-restart').getAttribute('disabled')).toBeNull();

    await view.host({ type: 'mcpServers', servers: [{ ...memory, state: 'untrusted', tools: [] }] });
    await card('memory').locator('[data-state="untrusted"], [data-testid="mcp-note"]').first().waitFor();
    expect(await card('memory').getByTestId('mcp-note').textContent()).toContain('Restricted Mode');
    expect(await card('memory').getByTestId('mcp-restart').getAttribute('disabled')).toBe('');
    expect(
      await card('memory')
        .getByTestId('mcp-toggle')
        .evaluate((el) => (el as HTMLElement & { checked: boolean }).checked),
    ).toBe(true);

    await view.host({ type: 'mcpServers', servers: [{ ...memory, state: 'disabled', enabled: false, tools: [] }] });
    await view.page.locator('[data-server="memory"][data-state="disabled"]').waitFor();
    expect(await card('memory').getByTestId('mcp-note').textContent()).toContain('Turned off');
    expect(
      await card('memory')
        .getByTestId('mcp-toggle')
        .evaluate((el) => (el as HTMLElement & { checked: boolean }).checked),
    ).toBe(false);
  });

  it('a tool description is text, never markup', async () => {
    const evil = { ...memory, name: 'evil', tools: [tool('evil', 'x', '<img src=x onerror="window.__pwned=1">')] };
    await view.host({ type: 'mcpServers', servers: [evil] });
    await card('evil').waitFor();
    expect(await card('evil').locator('img').count()).toBe(0);
    expect(await card('evil').locator('.mcp-tool-description').textContent()).toContain('<img');
  });
});
