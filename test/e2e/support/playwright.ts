import { createRequire } from 'node:module';
import path from 'node:path';
import { toolsDir } from './paths';

// playwright-core is installed with code-server into the tools folder by
// scripts/install-code-server.sh, not into the project's node_modules, so it is loaded
// from there at run time. These interfaces are the part of its API the harness uses,
// written to match playwright-core's own signatures.

export interface Locator {
  click(options?: { timeout?: number; force?: boolean }): Promise<void>;
  fill(value: string, options?: { timeout?: number }): Promise<void>;
  inputValue(options?: { timeout?: number }): Promise<string>;
  press(key: string, options?: { timeout?: number }): Promise<void>;
  waitFor(options?: { state?: 'attached' | 'detached' | 'visible' | 'hidden'; timeout?: number }): Promise<void>;
  count(): Promise<number>;
  nth(index: number): Locator;
  first(): Locator;
  filter(options: { hasText?: string | RegExp; has?: Locator; visible?: boolean }): Locator;
  locator(selector: string): Locator;
  getAttribute(name: string, options?: { timeout?: number }): Promise<string | null>;
  innerText(options?: { timeout?: number }): Promise<string>;
  textContent(options?: { timeout?: number }): Promise<string | null>;
  allInnerTexts(): Promise<string[]>;
  isVisible(): Promise<boolean>;
  contentFrame(): FrameLocator;
  evaluate<R>(fn: (element: Element) => R): Promise<R>;
}

export interface FrameLocator {
  locator(selector: string): Locator;
}

export interface Keyboard {
  press(key: string, options?: { delay?: number }): Promise<void>;
  type(text: string, options?: { delay?: number }): Promise<void>;
}

export interface ConsoleMessage {
  type(): string;
  text(): string;
}

export interface Page {
  goto(url: string, options?: { waitUntil?: 'load' | 'domcontentloaded' | 'networkidle' | 'commit'; timeout?: number }): Promise<unknown>;
  locator(selector: string): Locator;
  readonly keyboard: Keyboard;
  screenshot(options: { path: string; fullPage?: boolean }): Promise<Buffer>;
  on(event: 'console', listener: (message: ConsoleMessage) => void): Page;
  on(event: 'pageerror', listener: (error: Error) => void): Page;
  waitForTimeout(ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface BrowserContext {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export interface Browser {
  newContext(options: { viewport: { width: number; height: number } }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export interface BrowserType {
  launch(options: { executablePath: string; headless?: boolean; args?: string[]; timeout?: number }): Promise<Browser>;
}

function hasChromium(value: unknown): value is { chromium: BrowserType } {
  if (typeof value !== 'object' || value === null || !('chromium' in value)) return false;
  const { chromium } = value;
  return typeof chromium === 'object' && chromium !== null && 'launch' in chromium && typeof chromium.launch === 'function';
}

export function loadChromium(): BrowserType {
  const requireFromTools = createRequire(path.join(toolsDir, 'package.json'));
  let loaded: unknown;
  try {
    loaded = requireFromTools('playwright-core');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`playwright-core is not installed in ${toolsDir} (run npm run setup:e2e): ${reason}`);
  }
  if (!hasChromium(loaded)) throw new Error('playwright-core did not export chromium.launch');
  return loaded.chromium;
}
