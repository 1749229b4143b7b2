import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { HostToChat } from '../../../src/shared/chat-protocol';
import type { HostToManager } from '../../../src/shared/manager-protocol';

export const CHROMIUM_PATH = process.env.HOOKPILOT_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(__dirname, '../../../test-results');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

interface Posted {
  type: string;
  [key: string]: unknown;
}

/** A page of one webview with helpers to play the host. */
export class WebviewPage {
  /** Console errors, failed requests and CSP violations: a healthy page has none. */
  readonly problems: string[] = [];

  private constructor(readonly page: Page) {
    page.on('pageerror', (err) => this.problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') this.problems.push(`console.${msg.type()}: ${msg.text()}`);
    });
    page.on('requestfailed', (req) => this.problems.push(`requestfailed: ${req.url()}`));
  }

  static async open(browser: Browser, url: string, viewport = { width: 420, height: 720 }): Promise<WebviewPage> {
    const page = await browser.newPage({ viewport });
    const view = new WebviewPage(page);
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { __posted: Posted[] }).__posted.some((m) => m.type === 'ready'));
    return view;
  }

  /** Plays the host: the message arrives through window.postMessage as VS Code delivers it. */
  async host(message: HostToChat | HostToManager | Record<string, unknown>): Promise<void> {
    await this.page.evaluate((m) => (window as unknown as { __host(m: unknown): void }).__host(m), message);
  }

  async posted(): Promise<Posted[]> {
    return this.page.evaluate(() => (window as unknown as { __posted: Posted[] }).__posted);
  }

  async waitForPosted(type: string, count = 1): Promise<Posted[]> {
    await this.page.waitForFunction(
      ([t, n]) => (window as unknown as { __posted: Posted[] }).__posted.filter((m) => m.type === t).length >= n,
      [type, count] as const,
    );
    return (await this.posted()).filter((m) => m.type === type);
  }

  async clearPosted(): Promise<void> {
    await this.page.evaluate(() => ((window as unknown as { __posted: Posted[] }).__posted.length = 0));
  }

  async screenshot(name: string): Promise<void> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await this.page.screenshot({ path: path.join(SCREENSHOT_DIR, name) });
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}
