import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCodeServer, type CodeServer } from './support/code-server';
import { repoRoot } from './support/paths';
import type { Page } from './support/playwright';
import {
  answerModal,
  dismissNotifications,
  openViewContainer,
  openWorkbench,
  runCommand,
  screenshot,
  webviewFrame,
  type Workbench,
} from './support/workbench';

// The demo workspace as `npm start` opens it, with no model configured: the chat offers the
// recorded demo session, its real hooks decide again (the modal asks for the Write), and the
// Hook Manager's timeline shows the replay.
const run = promisify(execFile);
const TIMEOUT_MS = 90_000;

let tempRoot: string;
let folder: string;
let server: CodeServer | undefined;
let workbench: Workbench | undefined;
let receiver: ChildProcess | undefined;

const page = (): Page => {
  if (!workbench) throw new Error('workbench did not open');
  return workbench.page;
};

beforeAll(async () => {
  tempRoot = await mkdtemp(path.join(os.tmpdir(), 'hookpilot-e2e-demo-'));
  await run('npm', ['run', 'package'], { cwd: repoRoot, timeout: 180_000 });
  const vsix = path.join(tempRoot, 'hookpilot.vsix');
  await copyFile(path.join(repoRoot, 'dist', 'hookpilot.vsix'), vsix);
  // The demo beside its rpc server, as in the repository (the server requires vscode-jsonrpc).
  folder = path.join(tempRoot, 'demo-workspace');
  await cp(path.join(repoRoot, 'examples', 'demo-workspace'), folder, {
    recursive: true,
    filter: (src) => !src.includes('.hookpilot-demo'),
  });
  await cp(path.join(repoRoot, 'examples', 'rpc-policy-server'), path.join(tempRoot, 'rpc-policy-server'), { recursive: true });
  await symlink(path.join(repoRoot, 'node_modules'), path.join(tempRoot, 'node_modules'));
  // The webhook's receiver, as npm start runs it, on a free port.
  receiver = spawn(process.execPath, [path.join(folder, 'tools', 'audit-receiver.js')], {
    env: { ...process.env, HOOKPILOT_DEMO_RECEIVER_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    receiver?.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
    receiver?.stdout?.once('data', (chunk: Buffer) => resolve(/127\.0\.0\.1:(\d+)\//.exec(chunk.toString())?.[1] ?? '7777'));
  });
  const hooksFile = path.join(folder, '.vscode', 'hooks.json');
  await writeFile(hooksFile, (await readFile(hooksFile, 'utf8')).replaceAll('127.0.0.1:7777', `127.0.0.1:${port}`));
  server = await startCodeServer({ folder, trusted: true, extensions: [vsix], settings: {}, name: 'hookpilot-demo-replay' });
  workbench = await openWorkbench(server.url, folder);
});

afterAll(async () => {
  await workbench?.close();
  await server?.stop();
  receiver?.kill();
  if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
});

describe('the demo replay in a real VS Code', () => {
  it('with no model, the chat replays the demo session through its hooks and the timeline fills with the replay', async () => {
    try {
      const appBefore = await readFile(path.join(folder, 'src', 'app.js'), 'utf8');
      await openViewContainer(page(), 'Hookpilot');
      const chat = await webviewFrame(page(), { selector: '[data-testid="replay-demo"]', timeoutMs: TIMEOUT_MS });
      await screenshot(page(), 'demo-replay-1-offered');
      await chat.locator('[data-testid="replay-demo"]').click();
      expect(await answerModal(page(), 'Allow once')).toContain('Hookpilot wants to use Write');
      await chat.locator('.chat-scroller').filter({ hasText: 'Replay finished' }).waitFor({ state: 'visible', timeout: TIMEOUT_MS });
      // The webhook answered (its receiver runs): every hook decided as recorded.
      expect(await chat.locator('.chat-scroller').innerText()).toContain('every hook decided as in the recording');
      const blockNote = chat.locator('[data-testid="hook-note"]').filter({ hasText: 'Blocked by guard' });
      expect(await blockNote.count()).toBeGreaterThan(0);
      expect(await readFile(path.join(folder, 'src', 'app.js'), 'utf8')).toBe(appBefore);
      await screenshot(page(), 'demo-replay-2-chat');

      await dismissNotifications(page());
      await runCommand(page(), 'Hookpilot: Open Hook Manager');
      const manager = await webviewFrame(page(), { title: 'Hookpilot Hook Manager', selector: '[data-testid="tab-timeline"]' });
      await manager.locator('[data-testid="tab-timeline"]').click();
      await manager
        .locator('[data-testid="timeline-session"]')
        .filter({ hasText: 'replay-' })
        .waitFor({ state: 'attached', timeout: 30_000 });
      await manager.locator('[data-testid="timeline-view-table"]').click();
      await manager
        .locator('[data-testid="timeline-scroller"]')
        .filter({ hasText: 'guard' })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await screenshot(page(), 'demo-replay-3-timeline');
    } catch (error) {
      await screenshot(page(), 'demo-replay-failed').catch(() => undefined);
      console.error(`--- code-server log ---\n${server?.logs() ?? ''}`);
      throw error;
    }
  });
});
