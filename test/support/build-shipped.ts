import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = path.resolve(__dirname, '../..');

/**
 * Builds bundles with esbuild.mjs itself, so tests run exactly what ships, into `outdir`
 * instead of dist/ (test files build in parallel and must not rewrite each other's bundles).
 * `bundles` are paths as under dist/: `cli.js`, `webview/chat.js`.
 */
export async function buildShipped(outdir: string, bundles: readonly string[], options: { production?: boolean } = {}): Promise<void> {
  const args = ['esbuild.mjs', '--outdir', outdir, '--only', bundles.join(','), ...(options.production ? ['--production'] : [])];
  try {
    await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`node ${args.join(' ')} failed: ${stderr || String(error)}`);
  }
}
