import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { activatedExtension, contributedCommands } from './extension-under-test';

suite('commands', () => {
  test('package.json contributes commands, among them hookpilot.openHookManager', async () => {
    const commands = contributedCommands(await activatedExtension());
    assert.ok(commands.length > 0, 'contributes.commands is empty');
    assert.ok(
      commands.includes('hookpilot.openHookManager'),
      `hookpilot.openHookManager is not contributed; contributed: ${commands.join(', ')}`,
    );
  });

  test('every contributed command is registered after activation', async () => {
    const commands = contributedCommands(await activatedExtension());
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      commands.filter((command) => !registered.has(command)),
      [],
      'contributed in package.json but never registered with vscode.commands.registerCommand',
    );
  });
});
