import * as esbuild from 'esbuild';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildShipped } from '../../support/build-shipped';

const VIEWS = ['chat', 'manager'] as const;

/** The harness's own page script (fixtures made in the page), built next to the views. */
export const FIXTURES_BUNDLE = 'harness-fixtures.js';

/**
 * Builds both webview bundles (<view>.js and <view>.css) into `outdir` with esbuild.mjs itself,
 * so tests and benchmarks run exactly what ships, without touching dist/ (test files build in
 * parallel) and without building the rest of the project.
 */
export async function buildWebviews(outdir: string, options: { production?: boolean } = {}): Promise<void> {
  const staging = await mkdtemp(path.join(tmpdir(), 'hookpilot-webviews-'));
  const views = (async () => {
    await buildShipped(
      staging,
      VIEWS.map((view) => `webview/${view}.js`),
      options,
    );
    await cp(path.join(staging, 'webview'), outdir, { recursive: true });
  })();
  const fixtures = esbuild.build({
    entryPoints: [path.join(__dirname, 'page-fixtures.ts')],
    outfile: path.join(outdir, FIXTURES_BUNDLE),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: true,
    logLevel: 'warning',
  });
  try {
    await Promise.all([views, fixtures]);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
