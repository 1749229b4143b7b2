import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/**
 * Compiles the mocha suite into `<root>/out/vscode-desktop` (inside the extension's folder,
 * so the extension host gives the suite the extension's own `vscode` API object) and
 * returns its entry, `index.js`. `vscode` and `mocha` stay external so the host's are used.
 */
export async function buildSuite(root: string): Promise<string> {
  const source = path.join(root, 'test', 'vscode-desktop', 'suite');
  const out = path.join(root, 'out', 'vscode-desktop');
  rmSync(out, { recursive: true, force: true });
  const entryPoints = readdirSync(source)
    .filter((name) => name === 'index.ts' || name.endsWith('.suite.ts'))
    .map((name) => path.join(source, name));
  await build({
    entryPoints,
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
  return path.join(out, 'index.js');
}
