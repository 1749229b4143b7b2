import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebviewPage, launchChromium } from './harness/browser';
import { buildWebviews } from './harness/build-webviews';
import { startWebviewServer, type WebviewServer } from './harness/webview-server';

let browser: Browser;
let server: WebviewServer;
let bundleDir: string;
let view: WebviewPage;

beforeAll(async () => {
  bundleDir = mkdtempSync(path.join(tmpdir(), 'hookpilot-webview-'));
  await buildWebviews(bundleDir, { production: true });
  server = await startWebviewServer(bundleDir);
  browser = await launchChromium();
  view = await WebviewPage.open(browser, server.pageUrl('manager'), { width: 1280, height: 800 });
});

afterAll(async () => {
  await view?.close();
  await browser?.close();
  await server?.close();
  rmSync(bundleDir, { recursive: true, force: true });
});

const diff = '--- .vscode/hooks.json (applied)\n+++ .vscode/hooks.json (on disk)\n@@ -1 +1 @@\n-{"hooks":{}}\n+{"disableAllHooks":true}\n';

describe('Hook Manager webview: a change a ConfigChange hook blocked', () => {
  it('names the hook and its reason (as text, whatever the hook printed), and still offers Apply and Discard', async () => {
    const blockedBy = { hookName: 'keep-guard', reason: 'the rm guard must stay <img src=x onerror=alert(1)>' };
    await view.host({ type: 'pendingConfig', changes: [{ id: 'config-change-2', label: '.vscode/hooks.json', diff, truncated: false, blockedBy }] });
    const change = view.page.getByTestId('pending-change');
    await change.waitFor();
    expect(await change.getByTestId('pending-what').textContent()).toBe(
      'ConfigChange hook "keep-guard" blocked the change to .vscode/hooks.json: the rm guard must stay <img src=x onerror=alert(1)>. ',
    );
    expect(await change.locator('img').count()).toBe(0);
    await change.getByTestId('pending-apply').click();
    expect(await view.waitForPosted('applyConfigChange')).toEqual([{ type: 'applyConfigChange', id: 'config-change-2' }]);

    // The same change without a block reads as any change held back.
    await view.host({ type: 'pendingConfig', changes: [{ id: 'config-change-3', label: '.vscode/hooks.json', diff, truncated: false }] });
    await view.page.locator('[data-change-id="config-change-3"]').waitFor();
    expect(await view.page.getByTestId('pending-what').textContent()).toBe('.vscode/hooks.json changed on disk outside the editor. ');
    expect(view.problems).toEqual([]);
  });
});
