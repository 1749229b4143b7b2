import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

export const WEBVIEW_ENTRIES = { chat: 'webview-ui/chat/main.ts', manager: 'webview-ui/manager/main.ts' } as const;

/**
 * Builds both webview bundles (<view>.js and <view>.css) into `outdir` with the options
 * esbuild.mjs uses, so tests and benchmarks run exactly what ships, without touching dist/
 * (test files build in parallel) and without building the rest of the project.
 */
export async function buildWebviews(outdir: string, options: { production?: boolean } = {}): Promise<void> {
  await Promise.all(
    Object.entries(WEBVIEW_ENTRIES)
      .filter(([, entry]) => existsSync(path.join(ROOT, entry)))
      .map(([view, entry]) =>
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
    ),
  );
}
