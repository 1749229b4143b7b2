import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './paths';

const run = promisify(execFile);

/**
 * Packages the extension in `extensionDir` with the project's own vsce (not `npx`,
 * which from a folder with its own package.json would go to the registry) and
 * returns the .vsix path inside `outDir`.
 */
export async function packageExtension(extensionDir: string, outDir: string): Promise<string> {
  const manifest: unknown = JSON.parse(await readFile(path.join(extensionDir, 'package.json'), 'utf8'));
  if (typeof manifest !== 'object' || manifest === null || !('name' in manifest) || !('version' in manifest)) {
    throw new Error(`${extensionDir}/package.json has no name or version`);
  }
  const out = path.join(outDir, `${String(manifest.name)}-${String(manifest.version)}.vsix`);
  const vsce = path.join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
  await run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], {
    cwd: extensionDir,
    env: { ...process.env, CI: 'true' },
    timeout: 120_000,
  });
  return out;
}
