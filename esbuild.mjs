import * as esbuild from 'esbuild';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// Tests and benchmarks build what ships into a directory of their own:
// `--outdir <dir>` instead of dist/, `--only cli.js,webview/chat.js` (paths under it).
const option = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const outdir = option('--outdir') ?? 'dist';
const only = option('--only')?.split(',');

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  metafile: true,
};

// jsonc-parser's "main" is a UMD build whose internal requires esbuild cannot follow; its ESM build bundles.
const node = { platform: 'node', format: 'cjs', target: 'node20', mainFields: ['module', 'main'] };

const builds = [
  // package.json's "main" is a small loader that compiles the extension from V8's code cache.
  { entryPoints: ['src/extension/extension-entry.ts'], outfile: 'dist/extension.js', ...node, external: ['vscode'] },
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension-main.js', ...node, external: ['vscode'] },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', ...node },
  // Command hooks are spawned from this small helper process, not from the large host process.
  { entryPoints: ['src/core/process/spawner/spawner-main.ts'], outfile: 'dist/process-spawner.js', ...node },
  { entryPoints: ['webview-ui/chat/main.ts'], outfile: 'dist/webview/chat.js', platform: 'browser', format: 'iife', target: 'es2022' },
  {
    entryPoints: ['webview-ui/manager/main.ts'],
    outfile: 'dist/webview/manager.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
]
  .filter((b) => existsSync(b.entryPoints[0]))
  .filter((b) => !only || only.includes(path.relative('dist', b.outfile)))
  .map((b) => ({ ...b, outfile: path.join(outdir, path.relative('dist', b.outfile)) }));
if (only && builds.length !== only.length) {
  console.error(`esbuild.mjs: --only ${only.join(',')}: each name must be a bundle's path under dist/`);
  process.exit(1);
}

// In watch mode the task runner (F5) waits for "build finished" and reads errors as file:line:column.
const watchReporter = {
  name: 'watch-reporter',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column + 1}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

mkdirSync(outdir, { recursive: true });
if (watch) {
  for (const b of builds) await (await esbuild.context({ ...common, ...b, plugins: [watchReporter] })).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build({ ...common, ...b })));
}
