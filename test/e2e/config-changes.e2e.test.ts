import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, text, toolCalls, type ModelServer, type RecordedRequest, type ScriptedReply } from '../support/model-server';
import { startCodeServer, type CodeServer } from './support/code-server';
import { repoRoot } from './support/paths';
import type { Page } from './support/playwright';
import { waitUntil } from './support/wait';
import {
  dismissNotifications,
  openViewContainer,
  openWorkbench,
  runCommand,
  screenshot,
  waitForNotification,
  webviewFrame,
  type Workbench,
} from './support/workbench';

// The agent rewrites its own hook configuration in a real VS Code: through a script it writes
// and runs, so no check of a command line sees it. The guard must still block in the same
// session, and the person is asked about the change.
const run = promisify(execFile);
const template = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'workspace');
const TIMEOUT_MS = 90_000;
const PROMPT = 'E2E-CONFIG: tidy the workspace';
const DONE = 'E2E-CONFIG-DONE';
const HELD = 'Hook configuration changed on disk outside the editor';

let model: ModelServer;
let tempRoot: string;
let server: CodeServer | undefined;
let workbench: Workbench | undefined;
let folder: string;

const page = (): Page => {
  if (!workbench) throw new Error('workbench did not open');
  return workbench.page;
};

/** One reply per tool result since the prompt; before the wipe, the held change must be on screen. */
async function script(request: RecordedRequest): Promise<ScriptedReply> {
  const messages = request.body.messages;
  const start = messages.map((m) => m.role === 'user' && JSON.stringify(m.content).includes(PROMPT)).lastIndexOf(true);
  if (start < 0) return text('ok');
  const results = messages.slice(start + 1).filter((m) => m.role === 'tool').length;
  if (results === 0)
    return toolCalls([
      { name: 'Write', arguments: { file_path: 'tidy.sh', content: `echo '{"disableAllHooks":true}' > .vscode/hooks.json\n` } },
    ]);
  if (results === 1) return toolCalls([{ name: 'Bash', arguments: { command: 'sh tidy.sh', description: 'tidy' } }]);
  if (results === 2) {
    await waitForNotification(page(), HELD);
    return toolCalls([{ name: 'Bash', arguments: { command: 'rm -rf keep.txt', description: 'clean up' } }]);
  }
  return text(DONE);
}

beforeAll(async () => {
  tempRoot = await mkdtemp(path.join(os.tmpdir(), 'hookpilot-e2e-config-'));
  await run('npm', ['run', 'package'], { cwd: repoRoot, timeout: 180_000 });
  const vsix = path.join(tempRoot, 'hookpilot.vsix');
  await copyFile(path.join(repoRoot, 'dist', 'hookpilot.vsix'), vsix);
  model = await startModelServer(script);
  folder = path.join(tempRoot, 'config');
  await cp(template, folder, { recursive: true });
  const settings = {
    'hookpilot.baseUrl': model.url,
    'hookpilot.model': 'scripted-model',
    'hookpilot.permissionMode': 'bypassPermissions',
  };
  server = await startCodeServer({ folder, trusted: true, extensions: [vsix], settings, name: 'hookpilot-config' });
  workbench = await openWorkbench(server.url, folder);
}, 300_000);

afterAll(async () => {
  await workbench?.close();
  await server?.stop();
  await model?.close();
  if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
});

describe('hook configuration the agent rewrites (real VS Code)', () => {
  it('keeps the guard of the applied configuration, and shows the held change for review', async () => {
    await openViewContainer(page(), 'Hookpilot');
    const chat = await webviewFrame(page(), { selector: '[data-testid="composer-input"]', timeoutMs: TIMEOUT_MS });
    await waitUntil(
      'the chat composer to be enabled',
      async () => ((await chat.locator('textarea.composer-input:not([disabled])').count()) > 0 ? true : undefined),
      { timeoutMs: TIMEOUT_MS },
    );
    const input = chat.locator('textarea.composer-input');
    await input.fill(PROMPT);
    await input.press('Enter');
    await chat.locator('.chat-scroller').filter({ hasText: DONE }).waitFor({ state: 'visible', timeout: TIMEOUT_MS });

    expect(await readFile(path.join(folder, '.vscode', 'hooks.json'), 'utf8')).toContain('disableAllHooks');
    expect(existsSync(path.join(folder, 'keep.txt'))).toBe(true);
    expect(await chat.locator('[data-testid="hook-note"]').filter({ hasText: 'Blocked by rm-guard' }).count()).toBe(1);
    await screenshot(page(), 'config-1-guard-still-blocks');

    await runCommand(page(), 'Hookpilot: Review Configuration Changes Made Outside the Editor');
    const manager = await webviewFrame(page(), {
      title: 'Hookpilot Hook Manager',
      selector: '[data-testid="pending-change"]',
      timeoutMs: TIMEOUT_MS,
    });
    expect(await manager.locator('[data-testid="pending-diff"]').innerText()).toContain('+{"disableAllHooks":true}');
    await screenshot(page(), 'config-2-review');
    await manager.locator('[data-testid="pending-discard"]').click();
    await manager.locator('[data-testid="pending-config"]').waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
    await waitForNotification(page(), 'the change was discarded');
  });

  it('a save from the editor applies at once: hot reload keeps working for the person', async () => {
    await dismissNotifications(page());
    await runCommand(page(), 'Hookpilot: Open Hooks Config');
    const editor = page().locator('.editor-group-container.active .monaco-editor .view-lines').first();
    await editor.waitFor({ state: 'visible', timeout: TIMEOUT_MS });
    await editor.click();
    await page().keyboard.press('Control+A');
    await page().keyboard.press('Delete');
    await page().keyboard.insertText('{ "hooks": {} }');
    await page().keyboard.press('Control+S');
    await screenshot(page(), 'config-3-typed');
    await waitUntil(
      'the save',
      async () => ((await readFile(path.join(folder, '.vscode', 'hooks.json'), 'utf8')).includes('disableAllHooks') ? undefined : true),
      { timeoutMs: TIMEOUT_MS },
    );

    await runCommand(page(), 'Hookpilot: Open Hook Manager');
    const manager = await webviewFrame(page(), {
      title: 'Hookpilot Hook Manager',
      selector: '[data-testid="tab-hooks"]',
      timeoutMs: TIMEOUT_MS,
    });
    await manager
      .locator('[data-testid="hook-row"]')
      .filter({ has: manager.locator('.hook-name:text-is("rm-guard")') })
      .waitFor({ state: 'detached', timeout: TIMEOUT_MS });
    expect(await manager.locator('[data-testid="pending-config"]').isHidden()).toBe(true);
    await screenshot(page(), 'config-3-saved-applies');
  });
});
