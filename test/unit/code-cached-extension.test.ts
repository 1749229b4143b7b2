import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { codeCachedExtension } from '../../src/extension/code-cache/code-cached-extension';

let dir: string;
let mainPath: string;

interface FakeContext {
  globalStorageUri: { fsPath: string };
  events: string[];
}

const context = (): FakeContext => ({ globalStorageUri: { fsPath: path.join(dir, 'global-storage') }, events: [] });
const cacheDir = () => path.join(dir, 'global-storage', 'code-cache');

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-code-cached-ext-'));
  mainPath = path.join(dir, 'extension-main.js');
  // The context it was activated with is where deactivate() reports too.
  writeFileSync(
    mainPath,
    `let events;
exports.activate = async (context) => { events = context.events; events.push('activate ' + context.globalStorageUri.fsPath); };
exports.deactivate = async () => { events.push('deactivate'); };
`,
  );
});

afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

describe('codeCachedExtension', () => {
  it('activates the main bundle with the same context, then writes its code cache in global storage', async () => {
    const extension = codeCachedExtension<FakeContext>(mainPath, 0);
    const ctx = context();
    await extension.activate(ctx);
    expect(ctx.events).toEqual([`activate ${ctx.globalStorageUri.fsPath}`]);

    await vi.waitFor(() => expect(existsSync(cacheDir()) && readdirSync(cacheDir()).filter((n) => n.endsWith('.cache'))).toHaveLength(1));
    await extension.deactivate();
    expect(ctx.events.at(-1)).toBe('deactivate');
  });

  it('writes nothing during activation, and a deactivation before the write cancels it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const extension = codeCachedExtension<FakeContext>(mainPath, 5_000);
    const ctx = context();
    await extension.activate(ctx);
    expect(existsSync(cacheDir())).toBe(false);
    expect(vi.getTimerCount()).toBe(1);

    await extension.deactivate();
    expect(vi.getTimerCount()).toBe(0);
    expect(ctx.events).toEqual([`activate ${ctx.globalStorageUri.fsPath}`, 'deactivate']);
  });

  it('says which bundle is not an extension', async () => {
    writeFileSync(mainPath, 'exports.somethingElse = 1;\n');
    await expect(codeCachedExtension<FakeContext>(mainPath, 0).activate(context())).rejects.toThrow(
      `${mainPath} does not export activate()`,
    );
  });

  it('is a no-op to deactivate when never activated', async () => {
    await expect(codeCachedExtension<FakeContext>(mainPath, 0).deactivate()).resolves.toBeUndefined();
  });
});
