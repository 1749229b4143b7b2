// Installs the npm dependencies when they are missing or older than package-lock.json, so
// that `npm start` and `npm test` work on a fresh clone. Plain Node: no dependency of its own.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function ensureDeps(root) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.log('[hookpilot] installing npm dependencies (npm ci)...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('[hookpilot] npm ci failed');
    process.exit(result.status ?? 1);
  }
}
