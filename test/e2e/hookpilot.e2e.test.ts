import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startModelServer, text, toolCalls, type ModelServer, type ScriptedReply } from '../support/model-server';
import type { RecordedRequest } from '../support/model-server';
import { startCodeServer, type CodeServer } from './support/code-server';
import { repoRoot } from './support/paths';
import type { FrameLocator, Page } from './support/playwright';
import { waitForFile, waitUntil } from './support/wait';
import {
  answerModal,
  dismissNotifications,
  openViewContainer,
  openWorkbench,
  pickQuickItem,
  runCommand,
  screenshot,
  webviewFrame,
  type Workbench,
} from './support/workbench';

// The real extension, packaged as users get it, in a real VS Code. The model is a script
// in this process; every assertion reads the workspace, the model's requests or the UI.
const run = promisify(execFile);
const template = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'workspace');
const ACTIVATION_TIMEOUT_MS = 90_000;
const TURN_TIMEOUT_MS = 60_000;

const PROMPTS = {
  trustedFirst: 'E2E-TRUSTED-1: tidy the workspace',
  trustedSecond: 'E2E-TRUSTED-2: remove keep.txt',
  steering: 'E2E-STEERING: run the slow check',
  managerRuns: 'E2E-MANAGER: try both commands',
  restricted: 'E2E-RESTRICTED: remove keep.txt',
} as const;
const FINAL_TEXTS = {
  trustedFirst: 'E2E-DONE-1: three commands tried.',
  trustedSecond: 'E2E-DONE-2: keep.txt is gone.',
  steering: 'E2E-DONE-STEERING: the check passed, and I read your note.',
  managerRuns: 'E2E-DONE-MANAGER: one blocked, one ran.',
  restricted: 'E2E-DONE-3: left keep.txt alone.',
} as const;
const CONTEXT_MARKER = 'CONTEXT-NOTE-MARKER';
const STEERING_NOTE = 'E2E-NOTE: also mention the note';
const GUARD_REASON = 'rm -rf is not allowed in this workspace';

const bash = (command: string) => toolCalls([{ name: 'Bash', arguments: { command, description: 'run a command' } }]);

function contentText(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}

// The steering step's command waits for this file: the note is typed while it runs, whatever the machine's speed.
const STEERING_RELEASE = 'steering-release';
const STEERING_COMMAND = `while [ ! -f ${STEERING_RELEASE} ]; do sleep 0.1; done`;

/** The prompt this request answers, and how many tool results came back since it. */
function turnOf(request: RecordedRequest): { prompt: keyof typeof PROMPTS | undefined; toolResults: number } {
  const { messages } = request.body;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    const content = contentText(messages[i].content);
    const prompt = (Object.keys(PROMPTS) as Array<keyof typeof PROMPTS>).find((key) => content.includes(PROMPTS[key]));
    if (prompt === undefined) continue;
    return { prompt, toolResults: messages.slice(i + 1).filter((m) => m.role === 'tool').length };
  }
  return { prompt: undefined, toolResults: 0 };
}

/** What the scripted model does for each prompt, one reply per tool result seen. */
function script(request: RecordedRequest): ScriptedReply {
  const { prompt, toolResults } = turnOf(request);
  const steps: Record<keyof typeof PROMPTS, ScriptedReply[]> = {
    trustedFirst: [
      bash('rm -rf keep.txt'),
      bash('echo allowed > allowed.txt'),
      bash('echo denied > denied.txt'),
      text(FINAL_TEXTS.trustedFirst),
    ],
    trustedSecond: [bash('rm -rf keep.txt'), text(FINAL_TEXTS.trustedSecond)],
    // The final answer says whether the note typed during the command reached the model.
    steering: [
      bash(STEERING_COMMAND),
      text(request.body.messages.some((m) => contentText(m.content).includes(STEERING_NOTE)) ? FINAL_TEXTS.steering : 'E2E-NO-NOTE'),
    ],
    restricted: [bash('rm -rf keep.txt'), text(FINAL_TEXTS.restricted)],
    managerRuns: [bash('rm -rf keep.txt'), bash('echo manager > manager.txt'), text(FINAL_TEXTS.managerRuns)],
  };
  // Anything else the extension asks (a title, a summary) gets a plain answer.
  if (prompt === undefined) return text('ok');
  return steps[prompt][toolResults] ?? text('ok');
}

let model: ModelServer;
let tempRoot: string;
let vsix: string;

beforeAll(async () => {
  tempRoot = await mkdtemp(path.join(os.tmpdir(), 'hookpilot-e2e-real-'));
  // The project's own packaging, dependencies included, as a user installs it.
  await run('npm', ['run', 'package'], { cwd: repoRoot, timeout: 180_000 });
  vsix = path.join(tempRoot, 'hookpilot.vsix');
  await copyFile(path.join(repoRoot, 'dist', 'hookpilot.vsix'), vsix);
  model = await startModelServer(script);
});

afterAll(async () => {
  await model?.close();
  if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
});

async function freshWorkspace(name: string): Promise<string> {
  const folder = path.join(tempRoot, name);
  await cp(template, folder, { recursive: true });
  return folder;
}

function userSettings(): Record<string, unknown> {
  return { 'hookpilot.baseUrl': model.url, 'hookpilot.model': 'scripted-model', 'hookpilot.permissionMode': 'default' };
}

/** On failure keep a screenshot and print code-server's log next to the error. */
function keepFailureArtifacts(current: () => { server?: CodeServer; workbench?: Workbench }) {
  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(async () => {
      const { server, workbench } = current();
      if (workbench) await screenshot(workbench.page, `hookpilot-failed-${task.name.replace(/\W+/g, '-')}`).catch(() => undefined);
      if (server) console.error(`--- code-server log (${task.name}) ---\n${server.logs()}`);
      if (workbench) console.error(`--- console errors ---\n${workbench.consoleErrors().join('\n')}`);
      console.error(`--- model requests: ${model.requests.length} ---`);
    });
  });
}

async function openChat(page: Page): Promise<FrameLocator> {
  await openViewContainer(page, 'Hookpilot');
  const chat = await webviewFrame(page, { selector: '[data-testid="composer-input"]', timeoutMs: ACTIVATION_TIMEOUT_MS });
  // The composer is enabled once the host reports a configured model.
  await waitUntil(
    'the chat composer to be enabled',
    async () => ((await chat.locator('textarea.composer-input:not([disabled])').count()) > 0 ? true : undefined),
    {
      timeoutMs: ACTIVATION_TIMEOUT_MS,
    },
  );
  return chat;
}

async function sendPrompt(chat: FrameLocator, prompt: string): Promise<void> {
  const input = chat.locator('textarea.composer-input');
  await input.fill(prompt);
  await input.press('Enter');
  await chat.locator('.chat-scroller').filter({ hasText: prompt }).waitFor({ state: 'visible', timeout: 30_000 });
}

async function waitForText(chat: FrameLocator, expected: string): Promise<void> {
  await chat.locator('.chat-scroller').filter({ hasText: expected }).waitFor({ state: 'visible', timeout: TURN_TIMEOUT_MS });
}

async function guardRuns(folder: string): Promise<string[]> {
  const log = path.join(folder, '.hook-runs', 'guard.log');
  if (!existsSync(log)) return [];
  return (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '');
}

async function openHookManager(page: Page): Promise<FrameLocator> {
  await runCommand(page, 'Hookpilot: Open Hook Manager');
  return webviewFrame(page, { title: 'Hookpilot Hook Manager', selector: '[data-testid="tab-hooks"]' });
}

function hookRow(manager: FrameLocator, name: string) {
  return manager.locator('[data-testid="hook-row"]').filter({ has: manager.locator(`.hook-name:text-is("${name}")`) });
}

describe('trusted workspace', () => {
  let folder: string;
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  let chat: FrameLocator;
  keepFailureArtifacts(() => ({ server, workbench }));

  beforeAll(async () => {
    folder = await freshWorkspace('trusted');
    server = await startCodeServer({ folder, trusted: true, extensions: [vsix], settings: userSettings(), name: 'hookpilot-trusted' });
    workbench = await openWorkbench(server.url, folder);
  });

  afterAll(async () => {
    await workbench?.close();
    await server?.stop();
  });

  const page = () => {
    if (!workbench) throw new Error('workbench did not open');
    return workbench.page;
  };

  // Each test sets up what it needs (keep.txt, the guard turned on, its own runs): any order works.
  it('blocks rm -rf with the guard, asks for the rest, and feeds hook context to the model', async () => {
    await writeFile(path.join(folder, 'keep.txt'), 'keep me\n');
    const runsBefore = (await guardRuns(folder)).length;
    chat = await openChat(page());
    await screenshot(page(), 'hookpilot-1-chat-open');
    await sendPrompt(chat, PROMPTS.trustedFirst);

    // (1) The guard blocks rm -rf before any permission prompt.
    const blockNote = chat.locator('[data-testid="hook-note"]').filter({ hasText: 'Blocked by rm-guard' });
    await blockNote.waitFor({ state: 'visible', timeout: TURN_TIMEOUT_MS });
    expect(await blockNote.innerText()).toContain(GUARD_REASON);
    expect(await chat.locator('.tool-card.status-blocked').filter({ has: blockNote }).count()).toBe(1);
    expect(existsSync(path.join(folder, 'keep.txt'))).toBe(true);
    await screenshot(page(), 'hookpilot-2-guard-blocked');

    // (2) A harmless command needs approval: allowed once, it runs.
    const allowMessage = await answerModal(page(), 'Allow once');
    expect(allowMessage).toContain('Hookpilot wants to use Bash');
    expect(allowMessage).toContain('echo allowed');
    expect((await waitForFile(path.join(folder, 'allowed.txt'), { timeoutMs: TURN_TIMEOUT_MS })).trim()).toBe('allowed');

    // (3) The next one is denied: it never runs.
    const denyMessage = await answerModal(page(), 'Deny');
    expect(denyMessage).toContain('echo denied');
    await waitForText(chat, FINAL_TEXTS.trustedFirst);
    expect(existsSync(path.join(folder, 'denied.txt'))).toBe(false);
    await screenshot(page(), 'hookpilot-3-first-turn-done');

    expect((await guardRuns(folder)).slice(runsBefore)).toEqual([
      'rm -rf keep.txt',
      'echo allowed > allowed.txt',
      'echo denied > denied.txt',
    ]);
    const contextRequests = model.requests.filter((r) =>
      r.body.messages.some((m) => contentText(m.content).includes(`${CONTEXT_MARKER}: the workspace saw \`echo allowed > allowed.txt\``)),
    );
    expect(contextRequests.length).toBeGreaterThan(0);
    expect(await chat.locator('[data-testid="hook-note"]').filter({ hasText: 'Context from context-note' }).count()).toBeGreaterThan(0);
  });

  it('does not run a hook turned off with Disable Hook…, and the Hook Manager says it is off', async () => {
    await writeFile(path.join(folder, 'keep.txt'), 'keep me\n');
    await runCommand(page(), 'Hookpilot: Disable Hook…');
    await pickQuickItem(page(), 'rm-guard');
    await screenshot(page(), 'hookpilot-4-guard-disabled');
    const runsBefore = (await guardRuns(folder)).length;

    chat = await openChat(page());
    await sendPrompt(chat, PROMPTS.trustedSecond);
    expect(await answerModal(page(), 'Allow once')).toContain('rm -rf keep.txt');
    await waitForText(chat, FINAL_TEXTS.trustedSecond);
    expect(existsSync(path.join(folder, 'keep.txt'))).toBe(false);
    expect((await guardRuns(folder)).length).toBe(runsBefore);
    await screenshot(page(), 'hookpilot-5-second-turn-done');

    await dismissNotifications(page());
    const manager = await openHookManager(page());
    await manager.locator('[data-testid="tab-hooks"]').click();
    await hookRow(manager, 'rm-guard')
      .locator('[data-testid="hook-inactive"]')
      .filter({ hasText: 'Turned off' })
      .waitFor({ state: 'visible', timeout: 30_000 });

    // Back on for the other tests.
    await runCommand(page(), 'Hookpilot: Enable Hook…');
    await pickQuickItem(page(), 'rm-guard');
    await hookRow(manager, 'rm-guard').locator('[data-testid="hook-inactive"]').waitFor({ state: 'hidden', timeout: 30_000 });
  });

  it('queues a message typed while the agent works and gives it to the model after the running step', async () => {
    chat = await openChat(page());
    await sendPrompt(chat, PROMPTS.steering);
    expect(await answerModal(page(), 'Allow once')).toContain(STEERING_RELEASE);
    // The command runs until the test releases it; meanwhile the user types a note.
    await chat.locator('[data-testid="cancel"]').waitFor({ state: 'visible', timeout: 10_000 });
    const input = chat.locator('textarea.composer-input');
    await input.fill(STEERING_NOTE);
    await input.press('Enter');
    const queued = chat.locator('[data-testid="queued-note"]');
    await queued.waitFor({ state: 'visible', timeout: 10_000 });
    await screenshot(page(), 'hookpilot-5b-steering-queued');
    await writeFile(path.join(folder, STEERING_RELEASE), '');
    await waitForText(chat, FINAL_TEXTS.steering);
    expect(await queued.count()).toBe(0);
    const delivered = model.requests.find((r) => r.body.messages.some((m) => contentText(m.content).includes(STEERING_NOTE)));
    expect(delivered?.body.messages.slice(-2).map((m) => m.role)).toEqual(['tool', 'user']);
  });

  it('lists the hooks and their runs in the Hook Manager', async () => {
    await writeFile(path.join(folder, 'keep.txt'), 'keep me\n');
    chat = await openChat(page());
    await sendPrompt(chat, PROMPTS.managerRuns);
    expect(await answerModal(page(), 'Allow once')).toContain('echo manager');
    await waitForText(chat, FINAL_TEXTS.managerRuns);

    await dismissNotifications(page());
    const manager = await openHookManager(page());
    await manager.locator('[data-testid="tab-hooks"]').click();
    await hookRow(manager, 'rm-guard').waitFor({ state: 'visible', timeout: 30_000 });
    await hookRow(manager, 'context-note').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await manager.locator('[data-testid="trust-banner"]').isVisible()).toBe(false);
    expect(await hookRow(manager, 'context-note').locator('.badge-trusted').count()).toBe(1);
    await screenshot(page(), 'hookpilot-6-manager-hooks');

    await manager.locator('[data-testid="tab-timeline"]').click();
    // This session's records, in the trace (the default view): the guard's block and the note after the command that ran.
    const hookRun = (name: string) =>
      manager.locator('.tr-row[data-kind="hook"]').filter({ has: manager.locator(`.tr-label:text-is("${name}")`) });
    await hookRun('rm-guard')
      .filter({ has: manager.locator('.badge-block') })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await hookRun('context-note').first().waitFor({ state: 'visible', timeout: 30_000 });
    await screenshot(page(), 'hookpilot-7-manager-timeline');
  });
});

describe('untrusted workspace (Restricted Mode)', () => {
  let folder: string;
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  keepFailureArtifacts(() => ({ server, workbench }));

  beforeAll(async () => {
    folder = await freshWorkspace('restricted');
    server = await startCodeServer({ folder, trusted: false, extensions: [vsix], settings: userSettings(), name: 'hookpilot-restricted' });
    workbench = await openWorkbench(server.url, folder);
  });

  afterAll(async () => {
    await workbench?.close();
    await server?.stop();
  });

  const page = () => {
    if (!workbench) throw new Error('workbench did not open');
    return workbench.page;
  };

  it('shows the workspace hooks as untrusted and never runs them', async () => {
    const chat = await openChat(page());
    await sendPrompt(chat, PROMPTS.restricted);
    expect(await answerModal(page(), 'Deny')).toContain('rm -rf keep.txt');
    await waitForText(chat, FINAL_TEXTS.restricted);
    expect(existsSync(path.join(folder, 'keep.txt'))).toBe(true);
    expect(existsSync(path.join(folder, '.hook-runs', 'guard.log'))).toBe(false);
    await screenshot(page(), 'hookpilot-8-restricted-chat');

    const manager = await openHookManager(page());
    await manager.locator('[data-testid="trust-banner"]').waitFor({ state: 'visible', timeout: 30_000 });
    for (const name of ['rm-guard', 'context-note']) {
      const row = hookRow(manager, name);
      await row.locator('.badge-untrusted').waitFor({ state: 'visible', timeout: 30_000 });
      expect(await row.locator('[data-testid="hook-inactive"]').innerText()).toContain('Restricted Mode');
      expect(await row.locator('[data-testid="hook-last"]').innerText()).toContain('not run yet');
    }
    await screenshot(page(), 'hookpilot-9-restricted-manager');
  });
});
