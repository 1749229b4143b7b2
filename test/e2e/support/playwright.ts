// The real Playwright API (playwright-core, a devDependency, as the webview tests use it),
// driving Debian's Chromium; the harness never downloads a browser.
export { chromium } from 'playwright-core';
export type { Browser, FrameLocator, Locator, Page } from 'playwright-core';
