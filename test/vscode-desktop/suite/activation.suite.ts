import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { suite, test } from 'mocha';
import { EXTENSION_ID, hookpilotExtension, mainEntry, waitFor } from './extension-under-test';

// The first suite mocha loads (files run sorted): no suite has called activate() yet.
suite('activation', () => {
  test(`${EXTENSION_ID} is this checkout, built: not an installed copy`, () => {
    const extension = hookpilotExtension();
    // An installed .vsix has no sources; a checkout that was not built has no main bundle.
    assert.ok(
      existsSync(path.join(extension.extensionPath, 'src', 'extension', 'extension.ts')),
      `${extension.extensionPath} is not a checkout`,
    );
    const main = mainEntry(extension);
    assert.ok(existsSync(path.join(extension.extensionPath, main)), `${main} is missing: was the extension built?`);
  });

  test('activates by itself in a folder with .vscode/hooks.json (workspaceContains)', async () => {
    const extension = hookpilotExtension();
    await waitFor(() => extension.isActive, `${EXTENSION_ID} to activate on workspaceContains:.vscode/hooks.json`);
  });
});
