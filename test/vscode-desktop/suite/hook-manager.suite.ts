import * as assert from 'node:assert/strict';
import { suite, teardown, test } from 'mocha';
import * as vscode from 'vscode';
import { activatedExtension, waitFor, webviewTabs } from './extension-under-test';

suite('Hook Manager', () => {
  teardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('hookpilot.openHookManager opens a webview panel', async () => {
    await activatedExtension();
    assert.equal(webviewTabs().length, 0, 'a webview was open before the command ran');
    await vscode.commands.executeCommand('hookpilot.openHookManager');
    // The tab appears after the command resolves: the panel is created asynchronously.
    await waitFor(() => webviewTabs().length === 1, 'the Hook Manager webview tab');
  });
});
