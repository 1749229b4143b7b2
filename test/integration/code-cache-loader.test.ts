import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildShipped } from '../support/build-shipped';
import { writeCacheFile } from '../../src/extension/code-cache/code-cache-file';
import { loadWithCodeCache, type CacheState, type CacheWrite } from '../../src/extension/code-cache/load-with-code-cache';

const repoRoot = path.resolve(__dirname, '../..');

// What V8 does with a cache is only observable in a process that has not compiled the same
// source before: V8's in-isolate compilation cache would make any cache look accepted.
let toolDir: string;
let loaderBundle: string;
let driver: string;

beforeAll(async () => {
  toolDir = mkdtempSync(path.join(tmpdir(), 'hookpilot-code-cache-tool-'));
  loaderBundle = path.join(toolDir, 'loader.cjs');
  await build({
    entryPoints: [path.join(repoRoot, 'src/extension/code-cache/load-with-code-cache.ts')],
    outfile: loaderBundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
  driver = path.join(toolDir, 'driver.cjs');
  writeFileSync(
    driver,
    `const { loadWithCodeCache } = require(process.argv[2]);
const loaded = loadWithCodeCache(process.argv[3], process.argv[4]);
loaded.writeCache().then((write) => process.stdout.write(JSON.stringify({ cache: loaded.cache, write, answer: loaded.exports.answer })));
`,
  );
});

afterAll(() => rmSync(toolDir, { recursive: true, force: true }));

interface FreshLoad {
  cache: CacheState;
  write: CacheWrite;
  answer: unknown;
}

function loadInNewProcess(bundle: string, cacheDir: string): FreshLoad {
  return JSON.parse(execFileSync(process.execPath, [driver, loaderBundle, bundle, cacheDir], { encoding: 'utf8' })) as FreshLoad;
}

let dir: string;
let bundle: string;
let cacheDir: string;

function writeBundle(answer: number): void {
  // Enough functions that V8's cache is not trivially small.
  const helpers = Array.from({ length: 50 }, (_, i) => `function f${i}(x) { return x + ${i}; }`).join('\n');
  writeFileSync(bundle, `'use strict';\n${helpers}\nexports.answer = f0(${answer});\n`);
}

const cacheFiles = () => readdirSync(cacheDir).filter((name) => name.endsWith('.cache'));

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-code-cache-'));
  mkdirSync(path.join(dir, 'ext', 'dist'), { recursive: true });
  bundle = path.join(dir, 'ext', 'dist', 'bundle.js');
  cacheDir = path.join(dir, 'storage', 'code-cache');
  writeBundle(42);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('loadWithCodeCache: the cache file', () => {
  it('is written after the first load and used by the next one', () => {
    const first = loadInNewProcess(bundle, cacheDir);
    expect(first).toMatchObject({ cache: 'missing', answer: 42, write: { kind: 'written' } });
    expect(cacheFiles()).toHaveLength(1);

    const second = loadInNewProcess(bundle, cacheDir);
    expect(second).toEqual({ cache: 'accepted', answer: 42, write: { kind: 'kept' } });
  });

  it('when corrupt, is ignored, the bundle still loads, and a good one replaces it', () => {
    loadInNewProcess(bundle, cacheDir);
    const file = path.join(cacheDir, cacheFiles()[0]);
    const damaged = readFileSync(file);
    for (let i = 64; i < damaged.length; i += 101) damaged[i] ^= 0xff;
    writeFileSync(file, damaged);

    const afterDamage = loadInNewProcess(bundle, cacheDir);
    expect(afterDamage).toMatchObject({ cache: 'corrupt', answer: 42, write: { kind: 'written', file } });
    expect(readFileSync(file).equals(damaged)).toBe(false);
    expect(loadInNewProcess(bundle, cacheDir).cache).toBe('accepted');
  });

  it('when V8 rejects it, is rewritten', async () => {
    loadInNewProcess(bundle, cacheDir);
    const file = path.join(cacheDir, cacheFiles()[0]);
    // Intact as a file (the digest matches), but not V8's data.
    await writeCacheFile(file, Buffer.from('not a V8 code cache, just long enough to look like one'.repeat(20)));

    expect(loadInNewProcess(bundle, cacheDir)).toMatchObject({ cache: 'rejected', answer: 42, write: { kind: 'written' } });
    expect(loadInNewProcess(bundle, cacheDir).cache).toBe('accepted');
  });

  it('is not reused by a changed bundle of the same size, and the stale one is removed', () => {
    loadInNewProcess(bundle, cacheDir);
    const before = cacheFiles();
    writeBundle(43);

    expect(loadInNewProcess(bundle, cacheDir)).toMatchObject({ cache: 'missing', answer: 43, write: { kind: 'written' } });
    const after = cacheFiles();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);
  });

  it('keeps the caches of another bundle in the same directory', () => {
    const other = path.join(path.dirname(bundle), 'bundle-main.js');
    writeFileSync(other, 'exports.answer = 7;\n');
    loadInNewProcess(other, cacheDir);
    loadInNewProcess(bundle, cacheDir);
    writeBundle(43);
    loadInNewProcess(bundle, cacheDir);

    expect(cacheFiles().filter((name) => name.startsWith('bundle-main-'))).toHaveLength(1);
    expect(loadInNewProcess(other, cacheDir).cache).toBe('accepted');
  });

  it('in an unwritable place does not stop the bundle from loading', async () => {
    // A file where the directory should be: neither reading nor creating the cache can work (even as root).
    const blocked = path.join(dir, 'storage-is-a-file');
    writeFileSync(blocked, '');
    const loaded = loadWithCodeCache(bundle, blocked);

    expect(loaded.cache).toBe('unreadable');
    expect(loaded.exports).toEqual({ answer: 42 });
    expect(await loaded.writeCache()).toMatchObject({ kind: 'failed' });
  });
});

describe('loadWithCodeCache: what the bundle sees', () => {
  it('has the module variables Node gives a file at its own path', () => {
    writeFileSync(path.join(path.dirname(bundle), 'helper.js'), 'module.exports = "helper next to the bundle";\n');
    writeFileSync(
      bundle,
      `const seen = {
  filename: __filename,
  dirname: __dirname,
  moduleFilename: module.filename,
  helper: require('./helper'),
  resolved: require.resolve('./helper'),
  builtin: typeof require('node:path').join,
  exportsIsModuleExports: exports === module.exports,
  thisIsExports: this === exports,
};
module.exports = seen;
`,
    );
    const loaded = loadWithCodeCache(bundle, cacheDir);

    expect(loaded.exports).toEqual({
      filename: bundle,
      dirname: path.dirname(bundle),
      moduleFilename: bundle,
      helper: 'helper next to the bundle',
      resolved: path.join(path.dirname(bundle), 'helper.js'),
      builtin: 'function',
      exportsIsModuleExports: true,
      thisIsExports: true,
    });
  });

  it('requires with the bundle as the parent module, which is how VS Code routes require("vscode")', () => {
    const load = (Module as unknown as { _load: (request: string, parent: { filename?: string } | undefined, isMain: boolean) => unknown })
      ._load;
    const parents: Array<string | undefined> = [];
    (Module as unknown as { _load: typeof load })._load = (request, parent, isMain) => {
      if (request !== 'host-api') return load(request, parent, isMain);
      parents.push(parent?.filename);
      return { host: true };
    };
    try {
      writeFileSync(bundle, `module.exports = require('host-api');\n`);
      expect(loadWithCodeCache(bundle, cacheDir).exports).toEqual({ host: true });
    } finally {
      (Module as unknown as { _load: typeof load })._load = load;
    }
    expect(parents).toEqual([bundle]);
  });

  it("reports errors at the bundle file's own lines and columns", () => {
    writeFileSync(bundle, `throw new Error('first line');\n`);
    expect(() => loadWithCodeCache(bundle, cacheDir)).toThrow(expect.objectContaining({ stack: expect.stringContaining(`${bundle}:1:7`) }));
    writeFileSync(bundle, `'use strict';\n\n  throw new Error('third line');\n`);
    expect(() => loadWithCodeCache(bundle, cacheDir)).toThrow(expect.objectContaining({ stack: expect.stringContaining(`${bundle}:3:9`) }));
  });
});

describe('the shipped dist/extension.js', () => {
  let shipped: string;

  beforeAll(async () => {
    // package.json's "main", built by esbuild.mjs as it ships, not the loader module alone.
    shipped = mkdtempSync(path.join(tmpdir(), 'hookpilot-code-cache-shipped-'));
    await buildShipped(shipped, ['extension.js']);
  });

  afterAll(() => rmSync(shipped, { recursive: true, force: true }));

  /** Activates a copy of the shipped entry beside `extension-main.js` in a new process; waits for the delayed cache write. */
  function activateInNewProcess(extensionDir: string, storage: string): { activated: unknown; cacheFiles: string[] } {
    const script = `const fs = require('node:fs');
const path = require('node:path');
const [entry, storage] = process.argv.slice(1);
const context = { globalStorageUri: { fsPath: storage } };
const cacheFiles = () => { try { return fs.readdirSync(path.join(storage, 'code-cache')).filter((n) => n.endsWith('.cache')); } catch { return []; } };
require(entry).activate(context).then(() => {
  const deadline = Date.now() + 20000;
  const poll = setInterval(() => {
    if (cacheFiles().length === 0 && Date.now() < deadline) return;
    clearInterval(poll);
    process.stdout.write(JSON.stringify({ activated: context.activatedWith, cacheFiles: cacheFiles() }));
  }, 50);
});
`;
    const output = execFileSync(process.execPath, ['-e', script, path.join(extensionDir, 'extension.js'), storage], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    return JSON.parse(output) as { activated: unknown; cacheFiles: string[] };
  }

  it('activates extension-main.js beside it and keeps its code cache in the global storage', () => {
    const extensionDir = path.join(dir, 'ext', 'dist');
    writeFileSync(path.join(extensionDir, 'extension.js'), readFileSync(path.join(shipped, 'extension.js')));
    const helpers = Array.from({ length: 50 }, (_, i) => `function f${i}(x) { return x + ${i}; }`).join('\n');
    writeFileSync(
      path.join(extensionDir, 'extension-main.js'),
      `'use strict';\n${helpers}\nexports.activate = (context) => { context.activatedWith = f0(42); };\n`,
    );
    const storage = path.join(dir, 'storage');

    const first = activateInNewProcess(extensionDir, storage);
    expect(first.activated).toBe(42);
    expect(first.cacheFiles).toEqual([expect.stringMatching(/^extension-main-.*\.cache$/)]);
    expect(activateInNewProcess(extensionDir, storage)).toEqual(first);
  });
});
