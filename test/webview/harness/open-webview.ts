import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebviewPage, launchChromium } from './browser';
import { buildWebviews } from './build-webviews';
import { startWebviewServer } from './webview-server';

/**
 * One webview as it ships (the production bundles), served to headless Chromium: the page,
 * and how to close the page, browser, server and bundle folder again.
 */
export async function openWebview(name: 'chat' | 'manager', viewport?: { width: number; height: number }): Promise<{ view: WebviewPage; close(): Promise<void> }> {
  const bundleDir = mkdtempSync(path.join(tmpdir(), 'hookpilot-webview-'));
  await buildWebviews(bundleDir, { production: true });
  const server = await startWebviewServer(bundleDir);
  const browser = await launchChromium();
  const view = await WebviewPage.open(browser, server.pageUrl(name), viewport);
  return {
    view,
    async close() {
      await view.close();
      await browser.close();
      await server.close();
      rmSync(bundleDir, { recursive: true, force: true });
    },
  };
}
