import path from 'node:path';
import * as vscode from 'vscode';
import { ChatController } from './chat-controller';
import { ChatViewProvider } from './chat-view-provider';
import { COMMAND_IDS, openHooksConfig, promptForApiKey, registerCommands } from './commands';
import { DiffPreviews } from './diff-previews';
import { EngineHost } from './engine-host';
import { HookActivity } from './hook-activity';
import { HookHealthMonitor } from './hook-health-monitor';
import { HookManagerPanel } from './hook-manager-panel';
import { HookpilotConfig } from './hookpilot-config';
import { HooksDiagnostics } from './hooks-diagnostics';
import { Disposable } from './lifecycle';
import { showWarning } from './notifications';
import { HookpilotLog } from './log';
import { McpHost } from './mcp-host';
import { ModalApprover } from './modal-approver';
import { PendingApprovals } from './pending-approvals';
import { AppliedConfig } from './pending-config-applied';
import { PendingConfigNotifier } from './pending-config-notifier';
import { HookpilotStatusBar } from './status-bar';
import { TelemetryHost } from './telemetry-host';
import { RedactingChatModel } from '../core/agent/llm/redacting-chat-model';
import { ModelHookJudge } from '../core/agent/model-hook-judge';
import { ConfiguredChatModel } from './configured-chat-model';
import { privateStoragePaths } from './private-storage';
import type { ElicitationAnswer } from '../core/mcp/elicitation-content';

/** Where a window keeps audit logs and transcripts: per workspace, or one shared folder without one. */
function storageDirOf(context: vscode.ExtensionContext): string {
  return context.storageUri?.fsPath ?? path.join(context.globalStorageUri.fsPath, 'no-workspace');
}

/** `<userDataDir>/User/globalStorage/<publisher.name>` → `<userDataDir>/User/settings.json`. */
function userSettingsFileOf(context: vscode.ExtensionContext): string {
  return path.join(context.globalStorageUri.fsPath, '..', '..', 'settings.json');
}

/**
 * The extension's one composition root: builds every service once, wires them by
 * constructor, registers their disposables, and tears them down in order (the chat's
 * SessionEnd hooks run before the engine stops its hook servers and closes the audit log).
 */
export class CompositionRoot extends Disposable {
  private engineStopped: Promise<void> | undefined;

  private constructor(
    readonly engineHost: EngineHost,
    readonly chat: ChatController,
    readonly pending: PendingApprovals,
    readonly manager: HookManagerPanel,
    readonly statusBar: HookpilotStatusBar,
    readonly diagnostics: HooksDiagnostics,
    private readonly telemetry: TelemetryHost,
  ) {
    super();
  }

  static async create(context: vscode.ExtensionContext, env: NodeJS.ProcessEnv = process.env): Promise<CompositionRoot> {
    const channel = vscode.window.createOutputChannel('Hookpilot', { log: true });
    const applied = new AppliedConfig();
    const config = new HookpilotConfig(context.secrets, env, applied);
    await config.loadSecret();
    const log = new HookpilotLog(channel, () => config.secretValues());
    // A workspace's permission mode, or a value dropped, changes what the agent may do: said where a person sees it.
    config.usePermissionsLog((message) => {
      log.warn(message);
      void showWarning(`Hookpilot: ${message}`);
    });
    const privatePaths = privateStoragePaths(storageDirOf(context), context.globalStorageUri.fsPath, env);
    const engineHost = new EngineHost({
      config,
      log,
      workspaceState: context.workspaceState,
      storageDir: storageDirOf(context),
      env,
      spawnerModulePath: path.join(context.extensionPath, 'dist', 'process-spawner.js'),
      applied,
      userSettingsFile: userSettingsFileOf(context),
      // Beside the MCP servers' (below): not the workspace folder while it is untrusted.
      untrustedCwd: path.join(context.globalStorageUri.fsPath, 'hooks-untrusted-cwd'),
    });
    // prompt and agent hooks (and their test-fire) ask the configured model, behind the secret boundary.
    engineHost.engine.useJudge(
      new ModelHookJudge({
        model: new RedactingChatModel(
          new ConfiguredChatModel(
            () => config.resolveEndpoint(),
            '',
            (message) => log.warn(message),
          ),
          engineHost.engine.audit.redactor,
        ),
        modelName: () => config.modelName(),
        workspaceRoot: () => engineHost.projectDir,
        permissions: () => config.permissions(engineHost.projectDir),
        protectedPaths: () => engineHost.engine.protectedPaths(),
        privatePaths: () => privatePaths,
        redactForModel: (text) => engineHost.engine.audit.redactor.redactForModel(text),
        env,
      }),
    );
    const diagnostics = new HooksDiagnostics();
    const pending = new PendingApprovals();
    const diffs = new DiffPreviews((text) => engineHost.engine.audit.redactor.redactForModel(text));
    const approver = new ModalApprover(
      pending,
      diffs,
      () => engineHost.projectDir ?? '',
      () => config.approvalTimeoutMs(),
    );
    // The manager is created below; this callback only runs after activation.
    const showManager = () => manager.show();
    const activity = new HookActivity(engineHost.engine, log, showManager);
    const health = new HookHealthMonitor(engineHost.engine.audit, log, (runs) => manager.showHookRuns(runs));
    const mcp = new McpHost({
      projectDir: () => engineHost.projectDir,
      writableRoots: () => config.permissions(engineHost.projectDir).additionalDirectories,
      secrets: context.secrets,
      redactor: engineHost.engine.audit.redactor,
      workspaceState: context.workspaceState,
      log,
      // The chat is created below; a server asks only during a tool call of its session.
      elicit: (request, signal): Promise<ElicitationAnswer> => chat.answerElicitation(request, signal),
      untrustedCwd: path.join(context.globalStorageUri.fsPath, 'mcp-untrusted-cwd'),
      appliedText: (file) => applied.guard.appliedText(file),
      onDidChangeApplied: engineHost.onDidReload,
    });
    engineHost.engine.useMcp(mcp.manager);
    const chat = new ChatController({
      engineHost,
      config,
      approver,
      pending,
      diffs,
      log,
      openHookManager: showManager,
      promptForApiKey: () => promptForApiKey(config),
      mcp,
      privatePaths,
    });
    engineHost.useSession(() => chat.currentSessionId);
    const chatView = new ChatViewProvider(context.extensionUri, chat, log);
    const manager = new HookManagerPanel({
      extensionUri: context.extensionUri,
      engineHost,
      activity,
      health,
      pending,
      chat,
      config,
      log,
      openHooksConfig: () => openHooksConfig(engineHost),
      mcp,
    });
    const statusBar = new HookpilotStatusBar(engineHost, activity, pending, COMMAND_IDS.openHookManager);
    const configNotifier = new PendingConfigNotifier(engineHost, () => manager.show('hooks'), log);

    // OpenTelemetry export, off unless the user configured it; it stops after the engine (stopEngine).
    const telemetry = new TelemetryHost(engineHost.engine, log, env);
    const root = new CompositionRoot(engineHost, chat, pending, manager, statusBar, diagnostics, telemetry);
    for (const service of [
      channel,
      config,
      engineHost,
      diagnostics,
      pending,
      diffs,
      activity,
      health,
      mcp,
      chat,
      chatView,
      manager,
      statusBar,
      configNotifier,
    ])
      root._register(service);
    for (const command of registerCommands({ engineHost, config, chat, chatView, manager, log })) root._register(command);
    root._register(engineHost.onDidReload(() => void root.updateDiagnostics()));
    await engineHost.reload();
    log.info(
      `Hookpilot is ready${engineHost.projectDir ? ` in ${engineHost.projectDir}` : ' (no folder open)'}${engineHost.trusted ? '' : ', Restricted Mode'}.`,
    );
    return root;
  }

  private async updateDiagnostics(): Promise<void> {
    const texts = new Map(this.engineHost.hooksJson.map((f) => [f.file, f.text]));
    await this.diagnostics.update(this.engineHost.engine.problems, texts);
  }

  /** deactivate(): end the chat session, then stop the engine (hook servers, audit log). */
  async shutdown(): Promise<void> {
    await this.chat.shutdown();
    this.dispose();
    await this.stopEngine();
  }

  private stopEngine(): Promise<void> {
    // Telemetry stops last: once the engine stopped, the audit log holds every record to export.
    this.engineStopped ??= this.engineHost.engine.dispose().finally(() => this.telemetry.close());
    return this.engineStopped;
  }

  override dispose(): void {
    if (this.isDisposed) return;
    super.dispose();
    void this.stopEngine();
  }
}
