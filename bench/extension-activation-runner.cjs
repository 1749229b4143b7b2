// One activation per process, as in a new extension host: in-process repeats would hit V8's
// in-isolate compilation cache and measure neither a cold nor a warm start honestly.
// Loads the production entry (dist/extension.js, which loads dist/extension-main.js through
// the code cache) against the vscode stub bundle and prints {"ms", "cache"} as JSON.
//   node extension-activation-runner.cjs ENTRY STUB DEMO STORAGE_DIR [--wait-for-cache]
// --wait-for-cache: stay until the entry has written its code cache (to prepare warm runs).
const Module = require('node:module');
const vm = require('node:vm');
const { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const [entry, stubBundle, demo, storageDir, ...flags] = process.argv.slice(2);
const vscode = require(stubBundle);
const originalLoad = Module._load;
Module._load = (request, ...rest) => (request === 'vscode' ? vscode : originalLoad(request, ...rest));

// Records what V8 did with the cache, so a warm row that silently compiled from source fails.
const compiled = [];
const NativeScript = vm.Script;
vm.Script = class extends NativeScript {
  constructor(code, options) {
    super(code, options);
    compiled.push(options?.cachedData === undefined ? 'missing' : this.cachedDataRejected ? 'rejected' : 'accepted');
  }
};

async function waitForCacheFile(dir) {
  const deadline = Date.now() + 15_000;
  while (!(existsSync(dir) && readdirSync(dir).some((name) => name.endsWith('.cache')))) {
    if (Date.now() > deadline) throw new Error(`no code cache appeared in ${dir}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

(async () => {
  const workspace = mkdtempSync(path.join(tmpdir(), 'hookpilot-ext-ws-'));
  cpSync(demo, workspace, { recursive: true });
  vscode.stub.reset();
  vscode.stub.setWorkspaceFolders([workspace]);
  const context = vscode.stub.context(storageDir, path.dirname(path.dirname(entry)));
  const started = performance.now();
  const ext = require(entry);
  await ext.activate(context);
  const ms = performance.now() - started;
  if (flags.includes('--wait-for-cache')) await waitForCacheFile(path.join(context.globalStorageUri.fsPath, 'code-cache'));
  await ext.deactivate();
  for (const d of context.subscriptions) await d.dispose();
  rmSync(workspace, { recursive: true, force: true });
  if (compiled.length !== 1) throw new Error(`expected one bundle compiled through vm.Script, saw ${compiled.length}`);
  process.stdout.write(JSON.stringify({ ms, cache: compiled[0] }), () => process.exit(0));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
