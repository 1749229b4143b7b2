import { readdirSync } from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

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
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} desktop test(s) failed`)) : resolve()));
  });
}
