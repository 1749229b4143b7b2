import * as esbuild from 'esbuild';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

export const WEBVIEW_ENTRIES = { chat: 'webview-ui/chat/main.ts', manager: 'webview-ui/manager/main.ts' } as const;

/** The harness's own page script (fixtures made in the page), built next to the views. */
export const FIXTURES_BUNDLE = 'harness-fixtures.js';

/**
 * Builds both webview bundles (<view>.js and <view>.css) into `outdir` with the options
 * esbuild.mjs uses, so tests and benchmarks run exactly what ships, without touching dist/
 * (test files build in parallel) and without building the rest of the project.
 */
export async function buildWebviews(outdir: string, options: { production?: boolean } = {}): Promise<void> {
  const views = Object.entries(WEBVIEW_ENTRIES).map(([view, entry]) =>
    esbuild.build({
      entryPoints: [path.join(ROOT, entry)],
      outfile: path.join(outdir, `${view}.js`),
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      sourcemap: options.production ? false : 'linked',
      minify: options.production ?? false,
      logLevel: 'warning',
    }),
  );
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
  await Promise.all([...views, fixtures]);
}
