import path from 'node:path';
import { loadWithCodeCache } from './load-with-code-cache';

/** The part of VS Code's ExtensionContext the loader needs (it stays free of `vscode`). */
export interface CodeCacheContext {
  globalStorageUri: { fsPath: string };
}

interface ExtensionModule<C> {
  activate(context: C): unknown;
  deactivate?(): unknown;
}

export interface CodeCachedExtension<C> {
  activate(context: C): Promise<void>;
  deactivate(): Promise<void>;
}

/** Long enough that the write does not compete with the other extensions activating with us. */
export const CACHE_WRITE_DELAY_MS = 2_000;

/**
 * An extension entry whose real code is the bundle at `mainPath`, loaded through the V8 code
 * cache kept in the extension's global storage. The cache is written once activation is
 * over, off the critical path, and only when the existing one was not usable.
 */
export function codeCachedExtension<C extends CodeCacheContext>(
  mainPath: string,
  writeDelayMs = CACHE_WRITE_DELAY_MS,
): CodeCachedExtension<C> {
  let main: ExtensionModule<C> | undefined;
  let pendingWrite: NodeJS.Timeout | undefined;
  return {
    async activate(context) {
      const loaded = loadWithCodeCache(mainPath, path.join(context.globalStorageUri.fsPath, 'code-cache'));
      main = extensionModule<C>(loaded.exports, mainPath);
      await main.activate(context);
      pendingWrite = setTimeout(() => {
        pendingWrite = undefined;
        void loaded.writeCache();
      }, writeDelayMs);
      // A cache that is not written now is written after the next activation; never hold the host open for it.
      pendingWrite.unref();
    },
    async deactivate() {
      clearTimeout(pendingWrite);
      pendingWrite = undefined;
      const current = main;
      main = undefined;
      await current?.deactivate?.();
    },
  };
}

function extensionModule<C>(exports: unknown, mainPath: string): ExtensionModule<C> {
  const candidate = exports as Partial<ExtensionModule<C>> | null;
  if (typeof candidate?.activate !== 'function') throw new Error(`${mainPath} does not export activate()`);
  return candidate as ExtensionModule<C>;
}
