import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { suite, suiteSetup, suiteTeardown, teardown, test } from 'mocha';
import * as vscode from 'vscode';
import { startModelServer, text, toolCalls, type ModelServer, type RecordedRequest } from '../../support/model-server';
import { activatedExtension } from './extension-under-test';

interface AskedModal {
  message: string;
  detail: string | undefined;
  items: string[];
}

/** The model asks to run `echo hi > FILE` (FILE named in the prompt), then says done. */
function bashThenDone(request: RecordedRequest) {
  const last = request.body.messages.at(-1);
  if (last?.role === 'tool') return text('done');
  const file = String(last?.content).match(/\S+\.txt/)?.[0] ?? 'unnamed.txt';
  return toolCalls([{ id: `call_${request.index}`, name: 'Bash', arguments: { command: `echo hi > ${file}` } }]);
}

/**
 * The approval modal is native UI a test cannot click; the suite answers it by replacing
 * `window.showWarningMessage` in the extension host (the extension and this suite share one
 * `vscode` API object) and records what was asked.
 */
function answerModalsWith(title: string): { asked: AskedModal[]; restore(): void } {
  const original = vscode.window.showWarningMessage;
  const asked: AskedModal[] = [];
  const replacement = (message: string, ...rest: unknown[]) => {
    const options = rest[0] as vscode.MessageOptions | undefined;
    const items = rest.slice(1) as vscode.MessageItem[];
    if (!options?.modal) return original(message, ...(rest as vscode.MessageItem[]));
    asked.push({ message, detail: options.detail, items: items.map((i) => i.title) });
    return Promise.resolve(items.find((i) => i.title === title));
  };
  Object.assign(vscode.window, { showWarningMessage: replacement });
  return { asked, restore: () => Object.assign(vscode.window, { showWarningMessage: original }) };
}

suite('approval flow', () => {
  let model: ModelServer;
  let modals: { asked: AskedModal[]; restore(): void } | undefined;
  const settings = () => vscode.workspace.getConfiguration('hookpilot');
  const workspaceFile = (name: string) => path.join(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '', name);

  suiteSetup(async () => {
    model = await startModelServer(bashThenDone);
    // User settings: workspace values of these are ignored in Restricted Mode.
    await settings().update('baseUrl', model.url, vscode.ConfigurationTarget.Global);
    await settings().update('model', 'scripted-model', vscode.ConfigurationTarget.Global);
    await settings().update('permissionMode', 'default', vscode.ConfigurationTarget.Global);
    await activatedExtension();
  });

  teardown(async () => {
    modals?.restore();
    modals = undefined;
    await vscode.commands.executeCommand('hookpilot.newChat');
  });

  suiteTeardown(async () => {
    for (const key of ['baseUrl', 'model', 'permissionMode']) await settings().update(key, undefined, vscode.ConfigurationTarget.Global);
    await model.close();
  });

  test('Bash asks in a modal; "Allow once" runs the command', async () => {
    modals = answerModalsWith('Allow once');
    await vscode.commands.executeCommand('hookpilot.openChat', 'write allowed.txt');
    assert.equal(
      modals.asked.length,
      1,
      `exactly one approval modal; the model saw ${model.requests.length} request(s): ${JSON.stringify(model.requests.map((r) => r.body.messages.at(-1)))}`,
    );
    assert.equal(modals.asked[0].message, 'Hookpilot wants to use Bash');
    assert.match(modals.asked[0].detail ?? '', /echo hi > allowed\.txt/);
    assert.ok(modals.asked[0].items.includes('Deny'), `the modal offers Deny: ${modals.asked[0].items.join(', ')}`);
    assert.equal(readFileSync(workspaceFile('allowed.txt'), 'utf8'), 'hi\n');
  });

  test('"Deny" does not run the command and the model is told', async () => {
    modals = answerModalsWith('Deny');
    const before = model.requests.length;
    await vscode.commands.executeCommand('hookpilot.openChat', 'write denied.txt');
    assert.equal(modals.asked.length, 1, 'exactly one approval modal');
    assert.equal(existsSync(workspaceFile('denied.txt')), false, 'a denied command must not run');
    const toolResult = model.requests
      .slice(before)
      .flatMap((r) => r.body.messages)
      .find((m) => m.role === 'tool');
    assert.match(String(toolResult?.content), /Permission denied/);
  });
});
