import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { cacheFileName, readCacheFile, removeStaleCacheFiles, writeCacheFile } from './code-cache-file';
import { errorMessage } from '../../core/error-message';

/**
 * Loads a CommonJS bundle the way Node's `require` would, but compiles it through
 * `vm.Script` with V8's code cache from an earlier run. Compiling a 1 MB bundle is tens of
 * milliseconds on every activation; deserializing its cache is a few.
 */

/** What happened to the cache on load: only `accepted` means V8 used it. */
export type CacheState = 'missing' | 'accepted' | 'rejected' | 'corrupt' | 'unreadable';

export type CacheWrite = { kind: 'kept' } | { kind: 'written'; file: string } | { kind: 'failed'; error: string };

export interface LoadedBundle {
  exports: unknown;
  cache: CacheState;
  cacheFile: string;
  /**
   * Saves the code cache unless V8 used the existing one. Call it after the bundle has done
   * its startup work: the cache then holds every function compiled so far, not just the top
   * level. Never rejects.
   */
  writeCache(): Promise<CacheWrite>;
}

// On the first line, so line numbers in stack traces stay those of the file (and `columnOffset`
// takes the head back out of the first line's columns).
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAPPER_TAIL = '\n})';

type ModuleFunction = (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;

export function loadWithCodeCache(bundlePath: string, cacheDir: string): LoadedBundle {
  const filename = path.resolve(bundlePath);
  const bytes = readFileSync(filename);
  const cacheFile = path.join(cacheDir, cacheFileName(filename, bytes));
  const read = readCacheFile(cacheFile);
  const script = new vm.Script(WRAPPER_HEAD + bytes.toString('utf8') + WRAPPER_TAIL, {
    filename,
    columnOffset: -WRAPPER_HEAD.length,
    cachedData: read.kind === 'found' ? read.data : undefined,
    // Without it a dynamic import() in the bundle throws instead of loading like in a module.
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const cache: CacheState = read.kind === 'found' ? (script.cachedDataRejected ? 'rejected' : 'accepted') : read.kind;
  const exports = run(script, filename);
  return {
    exports,
    cache,
    cacheFile,
    async writeCache() {
      if (cache === 'accepted') return { kind: 'kept' };
      try {
        await writeCacheFile(cacheFile, script.createCachedData());
        await removeStaleCacheFiles(cacheFile, filename);
        return { kind: 'written', file: cacheFile };
      } catch (error) {
        return { kind: 'failed', error: errorMessage(error) };
      }
    },
  };
}

/**
 * Runs the module function with what Node's loader would pass. `require` comes from
 * `createRequire(filename)`, so its parent module's filename is the bundle's: VS Code's
 * extension host decides which extension a `require('vscode')` belongs to by that path.
 */
function run(script: vm.Script, filename: string): unknown {
  const dirname = path.dirname(filename);
  const module = new Module(filename);
  module.filename = filename;
  module.paths = nodeModulePaths(dirname);
  const moduleFunction = script.runInThisContext() as ModuleFunction;
  moduleFunction.call(module.exports, module.exports, createRequire(filename), module, filename, dirname);
  module.loaded = true;
  return module.exports;
}

/** The node_modules lookup list Node gives a module in `dirname` (`module.paths`). */
function nodeModulePaths(dirname: string): string[] {
  const internal = (Module as unknown as { _nodeModulePaths?: (from: string) => string[] })._nodeModulePaths;
  return typeof internal === 'function' ? internal(dirname) : [];
}
