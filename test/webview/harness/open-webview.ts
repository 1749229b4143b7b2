import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { WebviewPage, launchChromium } from './browser';
import { buildWebviews } from './build-webviews';
import { startWebviewServer, type WebviewServer } from './webview-server';

/**
 * One webview as it ships (the production bundles), served to headless Chromium: the page,
 * and how to close the page, browser, server and bundle folder again. A step that fails
 * closes what the steps before it opened, so a failed open leaves no browser or folder behind.
 */
export async function openWebview(
  name: 'chat' | 'manager',
  viewport?: { width: number; height: number },
): Promise<{ view: WebviewPage; close(): Promise<void> }> {
  const bundleDir = mkdtempSync(path.join(tmpdir(), 'hookpilot-webview-'));
  let server: WebviewServer | undefined;
  let browser: Browser | undefined;
  let view: WebviewPage | undefined;
  const close = async () => {
    await view?.close();
    await browser?.close();
    await server?.close();
    rmSync(bundleDir, { recursive: true, force: true });
  };
  try {
    await buildWebviews(bundleDir, { production: true });
    server = await startWebviewServer(bundleDir);
    browser = await launchChromium();
    view = await WebviewPage.open(browser, server.pageUrl(name), viewport);
    return { view, close };
  } catch (error) {
    // The failed step is what the test must report, not a tear-down error it caused.
    await close().catch(() => undefined);
    throw error;
  }
}
