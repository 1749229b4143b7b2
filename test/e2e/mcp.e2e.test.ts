import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, text, toolCalls, type ModelServer, type RecordedRequest, type ScriptedReply } from '../support/model-server';
import { startCodeServer, type CodeServer } from './support/code-server';
import { repoRoot } from './support/paths';
import type { FrameLocator, Page } from './support/playwright';
import { waitUntil } from './support/wait';
import {
  dismissNotifications,
  openViewContainer,
  openWorkbench,
  runCommand,
  screenshot,
  webviewFrame,
  type Workbench,
} from './support/workbench';

// A real MCP server (server-memory from node_modules) named in the workspace's .vscode/mcp.json,
// in a real VS Code: the model calls it twice, a PreToolUse hook matching mcp__memory__.* blocks
// one call and lets the other through, and the Hook Manager's MCP tab shows the server live.
const run = promisify(execFile);
const template = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'workspace');
const MEMORY = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
const TIMEOUT_MS = 90_000;
const PROMPT = 'E2E-MCP: remember Mallory and Ada';
const DONE = 'E2E-MCP-DONE: one remembered, one refused.';
const GUARD_REASON = 'mcp-guard: Mallory may not be remembered';

const remember = (name: string) =>
  toolCalls([
    { name: 'mcp__memory__create_entities', arguments: { entities: [{ name, entityType: 'person', observations: [`${name} was here`] }] } },
  ]);

/** One reply per tool result since the prompt. */
function script(request: RecordedRequest): ScriptedReply {
  const messages = request.body.messages;
  const start = messages.map((m) => m.role === 'user' && JSON.stringify(m.content).includes(PROMPT)).lastIndexOf(true);
  if (start < 0) return text('ok');
  const steps = [remember('Mallory'), remember('Ada'), text(DONE)];
  return steps[messages.slice(start).filter((m) => m.role === 'tool').length] ?? text('ok');
}

const MCP_GUARD = `// PreToolUse on mcp__memory__.*: Mallory is never remembered.
let raw = '';
process.stdin.on('data', (c) => (raw += c));
process.stdin.on('end', () => {
  const input = JSON.parse(raw);
  if (JSON.stringify(input.tool_input).includes('Mallory')) {
    process.stderr.write(${JSON.stringify(GUARD_REASON)});
    process.exit(2);
  }
  process.exit(0);
});
`;

let model: ModelServer;
let tempRoot: string;
let folder: string;
let server: CodeServer | undefined;
let workbench: Workbench | undefined;

const page = (): Page => {
  if (!workbench) throw new Error('workbench did not open');
  return workbench.page;
};

beforeAll(async () => {
  tempRoot = await mkdtemp(path.join(os.tmpdir(), 'hookpilot-e2e-mcp-'));
  await run('npm', ['run', 'package'], { cwd: repoRoot, timeout: 180_000 });
  const vsix = path.join(tempRoot, 'hookpilot.vsix');
  await copyFile(path.join(repoRoot, 'dist', 'hookpilot.vsix'), vsix);
  model = await startModelServer(script);
  folder = path.join(tempRoot, 'mcp-workspace');
  await cp(template, folder, { recursive: true });
  await mkdir(path.join(folder, '.vscode'), { recursive: true });
  const memory = { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: '${workspaceFolder}/memory.jsonl' } };
  await writeFile(path.join(folder, '.vscode', 'mcp.json'), JSON.stringify({ servers: { memory } }, null, 2));
  await writeFile(path.join(folder, 'hooks', 'mcp-guard.js'), MCP_GUARD);
  const hooks = JSON.parse(await readFile(path.join(folder, '.vscode', 'hooks.json'), 'utf8')) as { hooks: Record<string, unknown[]> };
  hooks.hooks.PreToolUse.push({
    matcher: 'mcp__memory__.*',
    hooks: [{ type: 'command', name: 'mcp-guard', command: 'node hooks/mcp-guard.js' }],
  });
  await writeFile(path.join(folder, '.vscode', 'hooks.json'), JSON.stringify(hooks, null, 2));
  const settings = {
    'hookpilot.baseUrl': model.url,
    'hookpilot.model': 'scripted-model',
    'hookpilot.permissionMode': 'default',
    // The rule lets the server's calls through the gate; the hook still sees each first.
    'hookpilot.permissions': { allow: ['mcp__memory'] },
  };
  server = await startCodeServer({ folder, trusted: true, extensions: [vsix], settings, name: 'hookpilot-mcp' });
  workbench = await openWorkbench(server.url, folder);
});

afterAll(async () => {
  await workbench?.close();
  await server?.stop();
  await model?.close();
  if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
});

async function openChat(): Promise<FrameLocator> {
  await openViewContainer(page(), 'Hookpilot');
  const chat = await webviewFrame(page(), { selector: '[data-testid="composer-input"]', timeoutMs: TIMEOUT_MS });
  const enabled = async () => ((await chat.locator('textarea.composer-input:not([disabled])').count()) > 0 ? true : undefined);
  await waitUntil('the chat composer to be enabled', enabled, { timeoutMs: TIMEOUT_MS });
  return chat;
}

describe('MCP servers in a real VS Code', () => {
  it('a hook on mcp__memory__.* blocks one call and lets the other reach server-memory; the MCP tab shows the server connected', async () => {
    try {
      const chat = await openChat();
      const input = chat.locator('textarea.composer-input');
      await input.fill(PROMPT);
      await input.press('Enter');
      await chat.locator('.chat-scroller').filter({ hasText: DONE }).waitFor({ state: 'visible', timeout: TIMEOUT_MS });

      const blockNote = chat.locator('[data-testid="hook-note"]').filter({ hasText: 'Blocked by mcp-guard' });
      expect(await blockNote.innerText()).toContain(GUARD_REASON);
      const cards = chat.locator('.tool-card');
      expect(await cards.count()).toBe(2);
      expect(await cards.nth(0).innerText()).toContain('MCP memory: create_entities');
      expect(await chat.locator('.tool-card.status-blocked').filter({ has: blockNote }).count()).toBe(1);
      expect(await chat.locator('.tool-card.status-blocked').count()).toBe(1);
      const offered =
        (model.requests[0].body as { tools?: Array<{ function: { name: string } }> }).tools?.map((t) => t.function.name) ?? [];
      expect(offered).toContain('mcp__memory__create_entities');
      const remembered = existsSync(path.join(folder, 'memory.jsonl')) ? await readFile(path.join(folder, 'memory.jsonl'), 'utf8') : '';
      expect(remembered).toContain('Ada');
      expect(remembered).not.toContain('Mallory');
      await screenshot(page(), 'mcp-1-chat');

      await dismissNotifications(page());
      await runCommand(page(), 'Hookpilot: Open Hook Manager');
      const manager = await webviewFrame(page(), { title: 'Hookpilot Hook Manager', selector: '[data-testid="tab-mcp"]' });
      await manager.locator('[data-testid="tab-mcp"]').click();
      const card = manager.locator('[data-testid="mcp-server"][data-server="memory"]');
      await card.locator('[data-testid="mcp-state"]').filter({ hasText: 'connected' }).waitFor({ state: 'visible', timeout: 30_000 });
      expect(await card.locator('[data-testid="mcp-tool"]').allInnerTexts()).toEqual(
        expect.arrayContaining([expect.stringContaining('mcp__memory__create_entities')]),
      );
      await screenshot(page(), 'mcp-2-manager-tab');
    } catch (error) {
      await screenshot(page(), 'mcp-failed').catch(() => undefined);
      console.error(`--- code-server log ---\n${server?.logs() ?? ''}`);
      throw error;
    }
  });
});
