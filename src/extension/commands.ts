import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { HookState } from '../core/hooks/registry';
import type { HookPayload } from '../core/hooks/types';
import { toTestResultView } from '../shared/manager-view-builders';
import { MODEL_PRESETS, type ModelPresetId } from '../shared/model-presets';
import { samplePayload, toolNameFromMatcher } from '../shared/sample-payload';
import type { ChatController } from './chat-controller';
import type { ChatViewProvider } from './chat-view-provider';
import type { EngineHost } from './engine-host';
import { OPEN_HOOK_MANAGER_ACTION } from './hook-activity';
import type { HookManagerPanel } from './hook-manager-panel';
import { importHooksCommand } from './import-hooks-command';
import { pickHook } from './hook-picks';
import type { HookpilotConfig } from './hookpilot-config';
import { HOOKS_JSON_TEMPLATE } from './hooks-json-template';
import type { HookpilotLog } from './log';
import { listEndpointModels } from './model-catalog';
import { errorMessage } from '../core/error-message';
import { BUILTINS_OFF_BY_DEFAULT } from '../core/hooks/builtins/builtin-names';
import { showError, showInformation, showWarning } from './notifications';
import { showInputBox, showQuickPick } from './quick-inputs';

/**
 * What Enable Hook… / Disable Hook… offer: not a managed hook (locked), nor a built-in that acts
 * on the user's files (AutoCommit): it is one hook per event, turned on whole by hookpilot.builtins.
 */
function togglable(state: HookState): boolean {
  return !state.locked && !(state.hook.source.kind === 'builtin' && BUILTINS_OFF_BY_DEFAULT.has(state.hook.name));
}

/** Every command the extension contributes; package.json lists the same ids. */
export const COMMAND_IDS = {
  openChat: 'hookpilot.openChat',
  newChat: 'hookpilot.newChat',
  compactChat: 'hookpilot.compactChat',
  cancel: 'hookpilot.cancel',
  openHookManager: 'hookpilot.openHookManager',
  enableHook: 'hookpilot.enableHook',
  disableHook: 'hookpilot.disableHook',
  toggleAllHooks: 'hookpilot.toggleAllHooks',
  reloadHooks: 'hookpilot.reloadHooks',
  openHooksConfig: 'hookpilot.openHooksConfig',
  testHook: 'hookpilot.testHook',
  showTimeline: 'hookpilot.showTimeline',
  showApprovals: 'hookpilot.showApprovals',
  setApiKey: 'hookpilot.setApiKey',
  selectModel: 'hookpilot.selectModel',
  importHooks: 'hookpilot.importHooks',
  reviewConfigChanges: 'hookpilot.reviewConfigChanges',
} as const;

export interface CommandDeps {
  engineHost: EngineHost;
  config: HookpilotConfig;
  chat: ChatController;
  chatView: ChatViewProvider;
  manager: HookManagerPanel;
  log: HookpilotLog;
}

/** Creates .vscode/hooks.json with a commented example when it does not exist, then opens it. */
export async function openHooksConfig(engineHost: EngineHost): Promise<void> {
  const root = engineHost.projectDir;
  if (!root) {
    void showError('Hookpilot: open a folder first; .vscode/hooks.json lives in a workspace folder.');
    return;
  }
  const file = path.join(root, '.vscode', 'hooks.json');
  await mkdir(path.dirname(file), { recursive: true });
  // The template is the user's own doing; an existing file is left as it is (and nothing is expected of it).
  if (!existsSync(file)) engineHost.expectHooksJsonWrite(file, HOOKS_JSON_TEMPLATE);
  await writeFile(file, HOOKS_JSON_TEMPLATE, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(file)), { preview: false });
}

export async function promptForApiKey(config: HookpilotConfig): Promise<void> {
  const value = await showInputBox({
    title: 'Hookpilot: Set API Key',
    prompt: "The key for hookpilot.baseUrl. It is kept in VS Code's secret storage; leave empty to remove it.",
    password: true,
    ignoreFocusOut: true,
    placeHolder: 'sk-…',
  });
  if (value === undefined) return;
  await config.setApiKey(value);
  void showInformation(value.trim() === '' ? 'Hookpilot: API key removed.' : 'Hookpilot: API key saved in secret storage.');
}

interface ModelPickItem extends vscode.QuickPickItem {
  model?: string;
  preset?: ModelPresetId;
  custom?: boolean;
}

async function selectModel(config: HookpilotConfig): Promise<void> {
  const baseURL = config.baseUrl();
  const current = config.modelName();
  const offered = baseURL ? await listEndpointModels({ baseURL, apiKey: config.apiKey() }) : [];
  const items: ModelPickItem[] = [];
  if (offered.length > 0) {
    items.push({ label: `Models at ${baseURL}`, kind: vscode.QuickPickItemKind.Separator });
    items.push(...offered.map((model) => ({ label: model, model, description: model === current ? 'current' : undefined })));
  }
  items.push({ label: 'Providers', kind: vscode.QuickPickItemKind.Separator });
  items.push(
    ...MODEL_PRESETS.map((p) => ({
      label: `Use ${p.label}`,
      preset: p.id,
      description: `${p.baseUrl} · ${p.defaultModel}`,
      detail: p.needsApiKey ? 'Needs an API key.' : 'Runs on this machine; no API key.',
    })),
  );
  items.push({ label: 'Enter a model name…', custom: true, description: current ? `current: ${current}` : undefined });
  const picked = await showQuickPick(items, {
    placeHolder: current ? `Current model: ${current}` : 'Pick a model or a provider',
  });
  if (!picked) return;
  if (picked.model) await config.setModelName(picked.model);
  else if (picked.preset) {
    await config.applyPreset(picked.preset);
    if (MODEL_PRESETS.find((p) => p.id === picked.preset)?.needsApiKey && !config.apiKey()) await promptForApiKey(config);
  } else if (picked.custom) {
    const name = await showInputBox({
      title: 'Hookpilot: Model Name',
      value: current ?? '',
      prompt: 'The model id as the endpoint knows it (e.g. gpt-4.1, qwen2.5-coder:7b).',
    });
    if (name?.trim()) await config.setModelName(name.trim());
  }
}

async function testHook(deps: CommandDeps): Promise<void> {
  const { engine, projectDir } = deps.engineHost;
  const states = engine.registry.current().states.filter((s) => s.trusted);
  const state = await pickHook(states, 'Pick a hook to run once with a sample payload', 'there are no hooks that can run here.');
  if (!state) return;
  const { hook } = state;
  const payload = samplePayload(hook.event, toolNameFromMatcher(hook.matcher) ?? 'Bash', {
    cwd: projectDir,
    sessionId: 'test-fire',
  }) as HookPayload;
  const { outcome } = await engine.testFire(hook.id, payload);
  const result = toTestResultView(outcome);
  const why = result.reason ?? result.error;
  deps.log.info(
    `test-fire "${hook.name}" (${hook.event}): ${result.status}, decision ${result.decision}${why ? `: ${why}` : ''}${result.stdout ? `\nstdout: ${result.stdout}` : ''}${result.stderr ? `\nstderr: ${result.stderr}` : ''}`,
  );
  const message = `Hookpilot: "${hook.name}" on ${hook.event} → ${result.status}, decision ${result.decision} (${Math.round(result.durationMs)} ms)${why ? `: ${why}` : ''}`;
  const show = result.status === 'success' || result.status === 'blocking-error' ? showInformation : showWarning;
  if ((await show(message, OPEN_HOOK_MANAGER_ACTION)) === OPEN_HOOK_MANAGER_ACTION) deps.manager.show('hooks');
}

/** `hookpilot.openChat` may carry a prompt (from a keybinding, a task or another extension). */
const openChatArgument = z.union([z.string().min(1), z.object({ prompt: z.string().min(1) }).transform((a) => a.prompt)]).optional();

/** Registers every command; the returned disposables unregister them. */
export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { engineHost, chat, chatView, manager, config } = deps;
  const registry = () => engineHost.engine.registry.current();
  const handlers: Record<(typeof COMMAND_IDS)[keyof typeof COMMAND_IDS], (argument?: unknown) => unknown> = {
    [COMMAND_IDS.openChat]: async (argument) => {
      const parsed = openChatArgument.safeParse(argument);
      if (!parsed.success) throw new Error('hookpilot.openChat takes a prompt: a string or { "prompt": string }');
      await chatView.reveal();
      if (parsed.data === undefined) return;
      if (chat.busy) throw new Error('a chat turn is running: wait for it or cancel it before sending another prompt');
      await chat.send(parsed.data);
    },
    [COMMAND_IDS.newChat]: async () => {
      await chatView.reveal();
      await chat.newChat();
    },
    [COMMAND_IDS.compactChat]: async () => {
      if (chat.busy) throw new Error('a chat turn is running: wait for it or cancel it before compacting');
      const instructions = await showInputBox({
        title: 'Compact Conversation',
        prompt: 'What the summary should keep in focus (optional)',
        placeHolder: 'e.g. the open bugs and the files changed',
      });
      // Escape cancels; an empty answer compacts without instructions.
      if (instructions === undefined) return;
      await chatView.reveal();
      await chat.compact(instructions.trim() || null);
    },
    [COMMAND_IDS.cancel]: () => chat.cancel(),
    [COMMAND_IDS.openHookManager]: () => manager.show(),
    [COMMAND_IDS.enableHook]: async () => {
      const state = await pickHook(
        registry().states.filter((s) => !s.enabled && togglable(s)),
        'Pick a hook to enable',
        'every hook is already enabled.',
      );
      if (state) await engineHost.setEnabled(state.hook.id, true);
    },
    [COMMAND_IDS.disableHook]: async () => {
      const state = await pickHook(
        registry().states.filter((s) => s.enabled && togglable(s)),
        'Pick a hook to disable',
        'no hook is enabled.',
      );
      if (state) await engineHost.setEnabled(state.hook.id, false);
    },
    [COMMAND_IDS.toggleAllHooks]: async () => {
      const anyOn = engineHost.configuredStates().some((s) => s.enabled);
      await engineHost.setAllEnabled(!anyOn);
      void showInformation(anyOn ? 'Hookpilot: all configured hooks are off.' : 'Hookpilot: all configured hooks are on.');
    },
    [COMMAND_IDS.reloadHooks]: async () => {
      await engineHost.reload();
      const states = engineHost.configuredStates();
      const errors = engineHost.engine.problems.filter((p) => p.severity === 'error').length;
      void showInformation(
        `Hookpilot: hooks reloaded, ${states.filter((s) => s.active).length} of ${states.length} active${errors > 0 ? `, ${errors} configuration ${errors === 1 ? 'error' : 'errors'} (see Problems)` : ''}.`,
      );
    },
    [COMMAND_IDS.openHooksConfig]: () => openHooksConfig(engineHost),
    [COMMAND_IDS.testHook]: () => testHook(deps),
    [COMMAND_IDS.showTimeline]: () => manager.show('timeline'),
    [COMMAND_IDS.showApprovals]: () => manager.show('approvals'),
    [COMMAND_IDS.setApiKey]: () => promptForApiKey(config),
    [COMMAND_IDS.selectModel]: () => selectModel(config),
    [COMMAND_IDS.importHooks]: () => importHooksCommand(engineHost),
    [COMMAND_IDS.reviewConfigChanges]: () => {
      if (engineHost.pendingChanges.length > 0) manager.show('hooks');
      else void showInformation('Hookpilot: no configuration change is waiting; the hooks and permissions on disk are the applied ones.');
    },
  };
  return Object.entries(handlers).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (argument?: unknown) => {
      try {
        await handler(argument);
      } catch (error) {
        const message = errorMessage(error);
        deps.log.error(`${id}: ${message}`);
        void showError(`Hookpilot: ${message}`);
      }
    }),
  );
}
