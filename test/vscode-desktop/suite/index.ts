import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

import { RESULTS_FILE_VARIABLE, type SuiteResults } from '../suite-results';

/**
 * The extension host calls `run()` (from `--extensionTestsPath`). The suites are compiled
 * next to this file as `*.suite.js`; mocha loads them in the host, where `vscode` resolves.
 */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', color: true, timeout: 30_000 });
  const files = readdirSync(__dirname)
    .filter((name) => name.endsWith('.suite.js'))
    .sort();
  if (files.length === 0) return Promise.reject(new Error(`no *.suite.js files in ${__dirname}`));
  for (const file of files) mocha.addFile(path.join(__dirname, file));
  const results: SuiteResults = { passed: [], failed: [], pending: [] };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      // A runner that cannot see the host's exit code (VS Code in a browser) reads this file.
      const resultsFile = process.env[RESULTS_FILE_VARIABLE];
      if (resultsFile) writeFileSync(resultsFile, JSON.stringify(results, null, 2));
      if (failures > 0) reject(new Error(`${failures} desktop test(s) failed`));
      else resolve();
    });
    runner.on('pass', (t) => results.passed.push(t.fullTitle()));
    runner.on('pending', (t) => results.pending.push(t.fullTitle()));
    runner.on('fail', (t, error: unknown) =>
      results.failed.push({ title: t.fullTitle(), error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
}
