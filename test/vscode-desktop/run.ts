import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { buildSuite } from './build-suite';
import { errorMessage } from '../../src/core/error-message';

/**
 * `npm run test:desktop`: the mocha suite in a real desktop VS Code, through
 * @vscode/test-electron. It never downloads VS Code: the build to use comes from
 * HOOKPILOT_VSCODE_EXECUTABLE, and without it the suite is skipped.
 */

const SKIP_MESSAGE = 'desktop VS Code suite skipped: set HOOKPILOT_VSCODE_EXECUTABLE to a VS Code build';
const root = path.resolve(__dirname, '..', '..');
const fixtureWorkspace = path.join(__dirname, 'fixtures', 'workspace');

/** The extension itself, as `main` in package.json expects it (dist/extension.js). */
function buildExtension(): void {
  const result = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0)
    throw new Error(`building the extension failed (node esbuild.mjs exited with ${result.status ?? result.signal})`);
}

async function main(): Promise<number> {
  const executable = process.env.HOOKPILOT_VSCODE_EXECUTABLE?.trim();
  if (!executable) {
    console.log(SKIP_MESSAGE);
    return 0;
  }
  if (!existsSync(executable)) {
    console.error(`HOOKPILOT_VSCODE_EXECUTABLE points to ${executable}, which does not exist`);
    return 1;
  }
  buildExtension();
  const extensionTestsPath = await buildSuite(root);
  // A throwaway profile and a copy of the fixture: the run leaves nothing behind.
  const scratch = mkdtempSync(path.join(tmpdir(), 'hookpilot-desktop-'));
  const workspace = path.join(scratch, 'workspace');
  cpSync(fixtureWorkspace, workspace, { recursive: true });
  try {
    await runTests({
      vscodeExecutablePath: executable,
      extensionDevelopmentPath: root,
      extensionTestsPath,
      launchArgs: [
        workspace,
        '--disable-extensions',
        `--user-data-dir=${path.join(scratch, 'user-data')}`,
        `--extensions-dir=${path.join(scratch, 'extensions')}`,
      ],
    });
    return 0;
  } catch (error) {
    console.error(`desktop VS Code suite failed: ${errorMessage(error)}`);
    return 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(errorMessage(error));
    process.exit(1);
  },
);
