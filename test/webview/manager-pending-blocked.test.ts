import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPendingConfigView } from '../../src/shared/manager-view-builders';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';

let view: WebviewPage;

let closeView: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1280, height: 800 }));
});

afterAll(() => closeView?.());

const diff = '--- .vscode/hooks.json (applied)\n+++ .vscode/hooks.json (on disk)\n@@ -1 +1 @@\n-{"hooks":{}}\n+{"disableAllHooks":true}\n';

describe('Hook Manager webview: a change a ConfigChange hook blocked', () => {
  it('names the hook and its reason (as text, whatever the hook printed), and still offers Apply and Discard', async () => {
    const blockedBy = { hookName: 'keep-guard', reason: 'the rm guard must stay <img src=x onerror=alert(1)>' };
    await view.host({
      type: 'pendingConfig',
      changes: [toPendingConfigView({ id: 'config-change-2', label: '.vscode/hooks.json', governs: 'hooks', diff, blockedBy })],
    });
    const change = view.page.getByTestId('pending-change');
    await change.waitFor();
    expect(await change.getByTestId('pending-what').textContent()).toBe(
      'ConfigChange hook "keep-guard" blocked the change to .vscode/hooks.json: the rm guard must stay <img src=x onerror=alert(1)>. ',
    );
    expect(await change.locator('img').count()).toBe(0);
    await change.getByTestId('pending-apply').click();
    expect(await view.waitForPosted('applyConfigChange')).toEqual([{ type: 'applyConfigChange', id: 'config-change-2' }]);

    // The same change without a block reads as any change held back.
    await view.host({
      type: 'pendingConfig',
      changes: [toPendingConfigView({ id: 'config-change-3', label: '.vscode/hooks.json', governs: 'hooks', diff })],
    });
    await view.page.locator('[data-change-id="config-change-3"]').waitFor();
    expect(await view.page.getByTestId('pending-what').textContent()).toBe('.vscode/hooks.json changed on disk outside the editor. ');
    const banner = view.page.locator('[data-change-id="config-change-3"] .banner-text');
    expect(await banner.textContent()).toContain('keeps the hooks and permissions applied before');
    expect(view.problems).toEqual([]);
  });

  it('a held MCP file says that the MCP servers applied before stay, not the hooks', async () => {
    await view.host({
      type: 'pendingConfig',
      changes: [toPendingConfigView({ id: 'config-change-4', label: '.mcp.json', governs: 'mcpServers', diff })],
    });
    const banner = await view.page.locator('[data-change-id="config-change-4"] .banner-text').textContent();
    expect(banner).toBe(
      '.mcp.json changed on disk outside the editor. Hookpilot keeps the MCP servers applied before until you apply this change.',
    );
    expect(view.problems).toEqual([]);
  });
});
