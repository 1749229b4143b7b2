import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCodeServer, type CodeServer } from './support/code-server';
import { repoRoot } from './support/paths';
import { packageExtension } from './support/vsix';
import { waitForFile } from './support/wait';
import {
  answerModal,
  openViewContainer,
  openWorkbench,
  pickQuickItem,
  runCommand,
  screenshot,
  waitForNotification,
  webviewFrame,
  type Workbench,
} from './support/workbench';

// Proves the harness on a tiny fixture extension: every interaction goes through the
// browser, and every assertion reads what the extension host wrote into the workspace.
const fixture = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'smoke-extension');

let tempRoot: string;
let workspace: string;
let vsix: string;
const smokeFile = (name: string) => path.join(workspace, '.smoke', name);
// Activation waits for the extension host to boot: slow on a loaded machine.
const ACTIVATION_TIMEOUT_MS = 90_000;

beforeAll(async () => {
  tempRoot = await mkdtemp(path.join(os.tmpdir(), 'hookpilot-e2e-harness-'));
  workspace = path.join(tempRoot, 'workspace');
  await mkdir(workspace);
  await writeFile(path.join(workspace, 'README.md'), '# smoke workspace\n');
  vsix = await packageExtension(fixture, tempRoot);
});

afterAll(async () => {
  if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
});

/** On failure keep a screenshot and print code-server's log next to the error. */
function keepFailureArtifacts(current: () => { server?: CodeServer; workbench?: Workbench }) {
  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(async () => {
      const { server, workbench } = current();
      if (workbench) await screenshot(workbench.page, `failed-${task.name.replace(/\W+/g, '-')}`).catch(() => undefined);
      if (server) console.error(`--- code-server log (${task.name}) ---\n${server.logs()}`);
      if (workbench) console.error(`--- console errors ---\n${workbench.consoleErrors().join('\n')}`);
    });
  });
}

describe('trusted workspace', () => {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  keepFailureArtifacts(() => ({ server, workbench }));

  beforeAll(async () => {
    server = await startCodeServer({ folder: workspace, trusted: true, extensions: [vsix], name: 'harness-trusted' });
    workbench = await openWorkbench(server.url, workspace);
  });

  afterAll(async () => {
    await workbench?.close();
    await server?.stop();
  });

  const page = () => {
    if (!workbench) throw new Error('workbench did not open');
    return workbench.page;
  };

  // After every test, whatever order they ran in: the extension logged no console error.
  afterEach(() => {
    const ours = (workbench?.consoleErrors() ?? []).filter((e) => /smoke/i.test(e));
    expect(ours).toEqual([]);
  });

  it('activates the installed extension in a trusted folder', async () => {
    expect(JSON.parse(await waitForFile(smokeFile('activation.json'), { timeoutMs: ACTIVATION_TIMEOUT_MS }))).toEqual({ isTrusted: true });
    await screenshot(page(), 'trusted-workbench');
  });

  it('types into a webview view and the extension host receives it', async () => {
    await openViewContainer(page(), 'Smoke');
    const chat = await webviewFrame(page(), { selector: '#message' });
    await chat.locator('#message').fill('hello from the browser');
    await chat.locator('#send').click();

    expect(await waitForFile(smokeFile('webview.txt'))).toBe('hello from the browser');
    expect(await waitForNotification(page(), 'Smoke heard')).toBe('Smoke heard: hello from the browser');
    await chat.locator('#reply:text-is("Host heard: hello from the browser")').waitFor({ state: 'visible' });
    await screenshot(page(), 'webview-view');
  });

  it('runs a command whose modal dialog is answered by a click', async () => {
    await runCommand(page(), 'Smoke: Ask');
    expect(await answerModal(page(), 'Allow once')).toBe('Proceed?');
    expect(await waitForFile(smokeFile('answer.txt'))).toBe('Allow once');
  });

  it('picks an item in a quick pick', async () => {
    await runCommand(page(), 'Smoke: Pick a Letter');
    await pickQuickItem(page(), 'Beta');
    expect(await waitForFile(smokeFile('pick.txt'))).toBe('Beta');
  });

  it('finds a webview panel by its title while the view is open too', async () => {
    await openViewContainer(page(), 'Smoke');
    await webviewFrame(page(), { selector: '#message' });
    await runCommand(page(), 'Smoke: Open Panel');
    const panel = await webviewFrame(page(), { title: 'Smoke Panel', extensionId: 'hookpilot-e2e.smoke-extension' });
    expect(await panel.locator('#panel-heading').innerText()).toBe('Smoke panel content');
    await screenshot(page(), 'webview-panel');
  });
});

describe('untrusted workspace (Restricted Mode)', () => {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  keepFailureArtifacts(() => ({ server, workbench }));

  beforeAll(async () => {
    await rm(path.join(workspace, '.smoke'), { recursive: true, force: true });
    server = await startCodeServer({ folder: workspace, trusted: false, extensions: [vsix], name: 'harness-untrusted' });
    workbench = await openWorkbench(server.url, workspace);
  });

  afterAll(async () => {
    await workbench?.close();
    await server?.stop();
  });

  it('runs the extension with vscode.workspace.isTrusted false', async () => {
    expect(JSON.parse(await waitForFile(smokeFile('activation.json'), { timeoutMs: ACTIVATION_TIMEOUT_MS }))).toEqual({ isTrusted: false });
    if (!workbench) throw new Error('workbench did not open');
    await workbench.page.locator('.part.statusbar .statusbar-item:has-text("Restricted Mode")').waitFor({ state: 'visible' });
    await screenshot(workbench.page, 'restricted-mode');
  });
});
