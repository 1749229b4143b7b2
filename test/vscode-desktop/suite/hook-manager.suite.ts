import * as assert from 'node:assert/strict';
import { suite, teardown, test } from 'mocha';
import * as vscode from 'vscode';
import { activatedExtension, waitFor, webviewTabs } from './extension-under-test';

// As src/extension/hook-manager-panel.ts names the panel; VS Code prefixes the view type.
const VIEW_TYPE = 'hookpilot.hookManager';
const TITLE = 'Hookpilot Hook Manager';

const isHookManager = (tab: vscode.Tab): boolean =>
  tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith(VIEW_TYPE) && tab.label === TITLE;

suite('Hook Manager', () => {
  teardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('hookpilot.openHookManager opens the Hook Manager panel, once however often it runs', async () => {
    await activatedExtension();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.deepEqual(
      webviewTabs().map((tab) => tab.label),
      [],
      'a webview was open before the command ran',
    );
    await vscode.commands.executeCommand('hookpilot.openHookManager');
    // The tab appears after the command resolves: the panel is created asynchronously.
    await waitFor(() => webviewTabs().some(isHookManager), `a webview tab "${TITLE}" (${VIEW_TYPE})`);
    await vscode.commands.executeCommand('hookpilot.openHookManager');
    await waitFor(
      () =>
        vscode.window.tabGroups.activeTabGroup.activeTab !== undefined && isHookManager(vscode.window.tabGroups.activeTabGroup.activeTab),
      'the panel to be revealed',
    );
    assert.equal(webviewTabs().filter(isHookManager).length, 1, 'a second run opened a second panel');
  });
});
