// Runs in a plain Node process (no TypeScript loader in the way): loads the production
// extension bundle against the vscode stub bundle and times load + activate().
const Module = require('node:module');
const { cpSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const [bundle, stubBundle, demo, runs] = process.argv.slice(2);
const vscode = require(stubBundle);
const originalLoad = Module._load;
Module._load = (request, ...rest) => (request === 'vscode' ? vscode : originalLoad(request, ...rest));

(async () => {
  const samples = [];
  for (let i = 0; i < Number(runs) + 2; i++) {
    const workspace = mkdtempSync(path.join(tmpdir(), 'hookpilot-ext-ws-'));
    cpSync(demo, workspace, { recursive: true });
    vscode.stub.reset();
    vscode.stub.setWorkspaceFolders([workspace]);
    const context = vscode.stub.context(path.join(workspace, '.storage'), path.dirname(path.dirname(bundle)));
    delete require.cache[bundle];
    const started = performance.now();
    const ext = require(bundle);
    await ext.activate(context);
    if (i >= 2) samples.push(performance.now() - started);
    await ext.deactivate();
    for (const d of context.subscriptions) await d.dispose();
    rmSync(workspace, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(samples));
})();
