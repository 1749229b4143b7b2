// `npm test`: every suite, in the order a failure is cheapest to find. Ends with one line
// `N passed, M failed` counted over all vitest suites.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const skipE2e = process.argv.includes('--no-e2e') || process.env.HOOKPILOT_SKIP_E2E === '1';
ensureDeps(root);

const run = (label, command, args) => {
  console.log(`\n[hookpilot test] ${label}: ${command} ${args.join(' ')}`);
  return spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status ?? 1;
};
const npx = (args) => ['npx', ['--no-install', ...args]];

for (const [label, [cmd, args]] of [
  ['typecheck', npx(['tsc', '-p', '.', '--noEmit'])],
  // Per layer: the core without DOM types, the webviews without Node types.
  ['typecheck core', npx(['tsc', '-p', 'tsconfig.core.json', '--noEmit'])],
  ['typecheck webviews', npx(['tsc', '-p', 'tsconfig.webview.json', '--noEmit'])],
  ['lint', npx(['eslint', '.'])],
  ['format check', npx(['prettier', '--check', '.'])],
  ['build', ['node', ['esbuild.mjs']]],
]) {
  if (run(label, cmd, args) !== 0) {
    console.log(`\n0 passed, 1 failed`);
    process.exit(1);
  }
}

const reports = join(root, 'test-results', 'vitest');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });
const suites = [['unit and integration', 'vitest.config.mts', 'main.json']];
// The machine-wide suite writes /etc/hookpilot/managed-settings.json: it needs root.
if (process.getuid?.() === 0) suites.push(['machine-wide (managed policy)', 'vitest.machine.config.mts', 'machine.json']);
else console.log('\n[hookpilot test] machine-wide suite skipped: it writes /etc/hookpilot and needs root');
if (!skipE2e && existsSync(join(root, 'vitest.e2e.config.mts')))
  suites.push(['end-to-end (code-server)', 'vitest.e2e.config.mts', 'e2e.json']);

let failedSuites = 0;
// Chromium is for the webview tests of the first suite as much as for the end-to-end one: on a
// fresh machine it is installed (with code-server) before any suite runs.
const setupFailed = run('browser and code-server setup', 'bash', ['scripts/install-code-server.sh']) !== 0;
if (setupFailed) failedSuites++;
for (const [label, config, report] of suites) {
  if (config === 'vitest.e2e.config.mts' && setupFailed) continue;
  const [cmd, args] = npx([
    'vitest',
    'run',
    '--config',
    config,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${join(reports, report)}`,
  ]);
  if (run(label, cmd, args) !== 0) failedSuites++;
}

let passed = 0;
let failed = 0;
for (const [, , report] of suites) {
  const file = join(reports, report);
  if (!existsSync(file)) continue;
  const json = JSON.parse(readFileSync(file, 'utf8'));
  passed += json.numPassedTests ?? 0;
  // A file that failed to load has no failed test of its own: count it once. (numFailedTestSuites
  // counts describe blocks too, so it would count one failed test twice.)
  const unloaded = (json.testResults ?? []).filter((r) => r.status === 'failed' && (r.assertionResults ?? []).length === 0).length;
  failed += (json.numFailedTests ?? 0) + unloaded;
}
if (failedSuites > 0 && failed === 0) failed = failedSuites;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failedSuites > 0 || failed > 0 ? 1 : 0);
