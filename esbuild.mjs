import * as esbuild from 'esbuild';
import { existsSync, mkdirSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

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
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', ...node, external: ['vscode'] },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', ...node },
  { entryPoints: ['webview-ui/chat/main.ts'], outfile: 'dist/webview/chat.js', platform: 'browser', format: 'iife', target: 'es2022' },
  { entryPoints: ['webview-ui/manager/main.ts'], outfile: 'dist/webview/manager.js', platform: 'browser', format: 'iife', target: 'es2022' },
].filter((b) => existsSync(b.entryPoints[0]));

mkdirSync('dist', { recursive: true });
if (watch) {
  for (const b of builds) await (await esbuild.context({ ...common, ...b })).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build({ ...common, ...b })));
}
