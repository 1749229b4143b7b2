import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as vscode from 'vscode';
import { CompositionRoot } from '../../../src/extension/composition-root';
import type { ChatItem } from '../../../src/shared/chat-items';
import type { HostToChat } from '../../../src/shared/chat-protocol';
import { applyChatMessage, initialChatState } from '../../../src/shared/chat-reducer';
import { startModelServer, type ModelScript, type ModelServer } from '../../support/model-server';
import { stub, type FakeWebview, type ShownMessage } from '../../support/vscode-stub';
import { makeWorkspace } from '../../support/workspace';

export const repoRoot = path.resolve(__dirname, '../../..');

export type StubContext = ReturnType<typeof stub.context>;

export interface HostHarness {
  workspace: ReturnType<typeof makeWorkspace>;
  context: StubContext;
  storageDir: string;
  root: CompositionRoot;
  /** Activates again on the same workspace and workspace state (a window reload); `beforeStart` runs while none is active. */
  restart(options?: { beforeStart?: () => void }): Promise<CompositionRoot>;
  close(): Promise<void>;
}

/** The environment the host sees: no API key from the machine running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const key of ['OPENAI_API_KEY', 'HOOKPILOT_API_KEY', 'HOOKPILOT_BASE_URL', 'HOOKPILOT_MODEL']) if (!(key in extra)) delete env[key];
  return env;
}

/**
 * A fresh stub VS Code with `files` as the one workspace folder, and the extension's
 * composition root activated in it. `setup` runs before activation (settings, trust).
 */
export async function startHost(
  files: Record<string, string>,
  options: { trusted?: boolean; setup?: (context: StubContext) => void | Promise<void>; env?: NodeJS.ProcessEnv } = {},
): Promise<HostHarness> {
  stub.reset();
  const workspace = makeWorkspace(files);
  const storageDir = mkdtempSync(path.join(tmpdir(), 'hookpilot-storage-'));
  stub.setWorkspaceFolders([workspace.dir]);
  stub.state.trusted = options.trusted ?? true;
  const context = stub.context(storageDir, repoRoot);
  await options.setup?.(context);
  const env = options.env ?? cleanEnv();
  let root = await CompositionRoot.create(context as unknown as vscode.ExtensionContext, env);
  return {
    workspace,
    context,
    storageDir,
    get root() {
      return root;
    },
    async restart(restartOptions = {}) {
      await root.shutdown();
      restartOptions.beforeStart?.();
      root = await CompositionRoot.create(context as unknown as vscode.ExtensionContext, env);
      return root;
    },
    async close() {
      await root.shutdown();
      workspace.cleanup();
      rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a value other than undefined/false. */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The modal approval prompts shown so far. */
export function modals(): ShownMessage[] {
  return stub.state.messages.filter((m) => m.modal);
}

/** Every string the host posted to `webview`, as one JSON text (for secret checks). */
export function postedText(webview: FakeWebview): string {
  return JSON.stringify(webview.posted);
}

export interface ChatHarness extends HostHarness {
  server: ModelServer;
  webview: FakeWebview;
  /** Sends a prompt from the chat webview and waits until the turn has ended. */
  prompt(text: string): Promise<void>;
  /** Items of the chat as the webview's reducer would hold them. */
  items(): ChatItem[];
}

/** A host with a scripted model on 127.0.0.1 configured in the user settings, and the chat view resolved. */
export async function startChat(
  files: Record<string, string>,
  script: ModelScript,
  options: { trusted?: boolean; setup?: (context: StubContext) => void | Promise<void>; env?: NodeJS.ProcessEnv } = {},
): Promise<ChatHarness> {
  const server = await startModelServer(script);
  const host = await startHost(files, {
    ...options,
    setup: async (context) => {
      stub.setConfig('hookpilot.baseUrl', server.url);
      stub.setConfig('hookpilot.model', 'scripted-model');
      await options.setup?.(context);
    },
  });
  const view = await stub.resolveView('hookpilot.chat');
  const webview = view.webview;
  webview.send({ type: 'ready', lastSeq: 0 });
  await until(() => webview.ofType('reset').length > 0, 'the first reset');
  const items = () => {
    let state = initialChatState();
    for (const message of webview.posted) state = applyChatMessage(state, message as HostToChat);
    return [...state.items];
  };
  const closeHost = host.close.bind(host);
  return Object.assign(host, {
    server,
    webview,
    items,
    async prompt(text: string) {
      const ended = items().filter((i) => i.kind === 'turn-end').length;
      webview.send({ type: 'send', text });
      await until(() => items().filter((i) => i.kind === 'turn-end').length > ended, `the end of the turn for "${text}"`);
      await until(() => webview.ofType<Extract<HostToChat, { type: 'status' }>>('status').at(-1)?.busy === false, 'the chat to be idle');
    },
    async close() {
      await closeHost();
      await server.close().catch(() => undefined);
    },
  });
}
