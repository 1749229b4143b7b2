import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { activatedExtension, waitFor } from './extension-under-test';

// The fixture's .vscode/hooks.json misspells one event key on purpose ("PreToolUs").
suite('hooks.json diagnostics', () => {
  test('an unknown event in hooks.json is reported at its key, with a suggestion', async () => {
    await activatedExtension();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the suite runs with the fixture workspace open');
    const hooksJson = vscode.Uri.joinPath(folder.uri, '.vscode', 'hooks.json');
    const unknownEvent = () => vscode.languages.getDiagnostics(hooksJson).find((d) => d.message.includes('Unknown event "PreToolUs"'));
    await waitFor(() => unknownEvent() !== undefined, 'the unknown-event diagnostic on hooks.json');
    const diagnostic = unknownEvent();
    assert.ok(diagnostic);
    assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(diagnostic.message, /Did you mean "PreToolUse"\?/);
    const document = await vscode.workspace.openTextDocument(hooksJson);
    assert.equal(document.getText(diagnostic.range), '"PreToolUs"');
  });
});
