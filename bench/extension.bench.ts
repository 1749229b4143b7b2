import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { percentiles, type BenchRow, type BenchSuite } from './types';

const repo = path.resolve(__dirname, '..');
const RUNS = 10;

/**
 * Activation of the production bundle (load + activate() on the demo workspace) against the
 * test suite's `vscode` stub, in a plain Node process, and the bundle size. A real VS Code
 * adds its own extension-host cost on top.
 */
const suite: BenchSuite = {
  title: 'extension',
  async run(): Promise<BenchRow[]> {
    const out = mkdtempSync(path.join(tmpdir(), 'hookpilot-ext-bench-'));
    try {
      const common: esbuild.BuildOptions = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', mainFields: ['module', 'main'], logLevel: 'warning' };
      const bundle = path.join(out, 'dist', 'extension.js');
      const stub = path.join(out, 'vscode-stub.js');
      await esbuild.build({ ...common, entryPoints: [path.join(repo, 'src/extension/extension.ts')], outfile: bundle, minify: true, external: ['vscode'] });
      await esbuild.build({ ...common, entryPoints: [path.join(repo, 'test/support/vscode-stub.ts')], outfile: stub });
      const sizeKb = statSync(bundle).size / 1024;
      const runner = path.join(__dirname, 'extension-activation-runner.cjs');
      const samples = JSON.parse(execFileSync(process.execPath, [runner, bundle, stub, path.join(repo, 'examples/demo-workspace'), String(RUNS)], { encoding: 'utf8' })) as number[];
      const activation = percentiles(samples);
      return [
        { name: 'activation: load bundle + activate() (demo workspace)', unit: 'ms', ...activation, target: '<= 100 ms', ok: activation.p50 <= 100 },
        { name: 'bundle extension.js (production)', unit: 'KB', value: sizeKb, target: '<= 1,536 KB', ok: sizeKb <= 1536 },
      ];
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
};

export default suite;
