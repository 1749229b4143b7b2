import path from 'node:path';
import * as vscode from 'vscode';
import { recordedHookRun } from '../core/audit/recorded-hook-run';
import type { ConfigProblem } from '../core/hooks/config/config-problems';
import type { HookPayload, HookSource } from '../core/hooks/types';
import type { ScratchReplayResult } from '../core/replay/scratch-replay';
import { receiveManagerToHost, type HostToManager, type ManagerTab, type ManagerToHost } from '../shared/manager-protocol';
import {
  invalidPayloadResult,
  toApprovalView,
  toHookView,
  toPendingConfigView,
  toProblemView,
  toScriptChangeView,
  toTestResultView,
} from '../shared/manager-view-builders';
import type { TestResultView } from '../shared/manager-views';
import type { ChatController } from './chat-controller';
import type { EngineHost } from './engine-host';
import type { HookActivity } from './hook-activity';
import type { HookHealthMonitor, HookRunsFilter } from './hook-health-monitor';
import type { HookpilotConfig } from './hookpilot-config';
import { Disposable, disposeAll, type IDisposable } from './lifecycle';
import type { HookpilotLog } from './log';
import type { McpHost } from './mcp-host';
import type { PendingApprovals } from './pending-approvals';
import { discardedMessage } from './pending-config-notifier';
import { scrubSecrets } from './secret-scrubber';
import { TimelineFeed } from './timeline-feed';
import { webviewHtml, webviewOptions } from './webview-html';
import { errorMessage } from '../core/error-message';
import { showError, showInformation, showWarning } from './notifications';

export const HOOK_MANAGER_VIEW_TYPE = 'hookpilot.hookManager';
export const HOOK_MANAGER_TITLE = 'Hookpilot Hook Manager';

export interface HookManagerDeps {
  extensionUri: vscode.Uri;
  engineHost: EngineHost;
  activity: HookActivity;
  health: HookHealthMonitor;
  pending: PendingApprovals;
  chat: ChatController;
  config: HookpilotConfig;
  log: HookpilotLog;
  openHooksConfig: () => Promise<void>;
  mcp: McpHost;
}

/** Opens `file` with the caret at a 1-based line and column. */
async function openAt(file: string, line?: number, column?: number): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), Math.max(0, (column ?? 1) - 1));
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position), preview: false });
}

/** Settings without a file of ours to open are opened through VS Code's own commands. */
async function openSource(source: HookSource): Promise<boolean> {
  if (source.file && source.kind !== 'user') {
    await openAt(source.file, source.line, source.column);
    return true;
  }
  if (source.kind === 'user') await vscode.commands.executeCommand('workbench.action.openSettingsJson');
  else if (source.kind === 'workspace' || source.kind === 'folder')
    await vscode.commands.executeCommand('workbench.action.openWorkspaceSettingsFile');
  else return false;
  return true;
}

/**
 * The Hook Manager webview panel: Hooks (toggle, test-fire, open definition, problems),
 * Approvals (the same pending requests the modal asks) and Timeline (the audit log, live).
 * One panel at a time; its subscriptions live exactly as long as it does.
 */
export class HookManagerPanel extends Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private panelDisposables: IDisposable[] = [];
  private timeline: TimelineFeed | undefined;
  private problems: ConfigProblem[] = [];
  private requestedTab: ManagerTab | undefined;
  private requestedRuns: HookRunsFilter | undefined;

  constructor(private readonly deps: HookManagerDeps) {
    super();
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  show(tab?: ManagerTab): void {
    this.deps.activity.acknowledgeBlocks();
    if (this.panel) {
      this.panel.reveal();
      if (tab) this.post({ type: 'showTab', tab });
    } else {
      // A new page would drop a message sent before it listens: the tab goes with `ready`.
      this.requestedTab = tab;
      this.open();
    }
  }

  /** The timeline of `runs.sessionId`, filtered to hook `runs.hook` (a health notification's "Show Runs"). */
  showHookRuns(runs: HookRunsFilter): void {
    if (!this.panel) {
      this.requestedRuns = runs;
      this.show('timeline');
      return;
    }
    this.show();
    this.post({ type: 'showTab', tab: 'timeline', hook: runs.hook });
    this.timeline?.select(runs.sessionId).catch((error: unknown) => this.deps.log.error(`Hook Manager: ${errorMessage(error)}`));
  }

  private takeRequestedSession(): string | undefined {
    const sessionId = this.requestedRuns?.sessionId;
    this.requestedRuns = undefined;
    return sessionId;
  }

  private open(): void {
    const { extensionUri, engineHost, pending, activity, chat } = this.deps;
    const panel = vscode.window.createWebviewPanel(HOOK_MANAGER_VIEW_TYPE, HOOK_MANAGER_TITLE, vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: true,
    });
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'hookpilot.svg');
    panel.webview.html = webviewHtml(panel.webview, extensionUri, 'manager', HOOK_MANAGER_TITLE);
    this.panel = panel;
    const post = (message: HostToManager) => this.post(message);
    const timeline = new TimelineFeed(
      engineHost.engine.audit,
      path.join(engineHost.engine.options.storageDir, 'transcripts'),
      () => chat.currentSessionId ?? chat.replaySessionId,
      post,
    );
    this.timeline = timeline;
    this.panelDisposables = [
      timeline,
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      engineHost.onDidReload(() => this.postHooksAndProblems()),
      engineHost.engine.registry.onDidChange(() => this.postHooks()),
      activity.onDidChangeStats(() => this.postHooks()),
      pending.onDidChange(() => this.postApprovals()),
      engineHost.onDidChangePending(() => this.postPendingConfig()),
      chat.onDidChangeSession(() => void timeline.refreshSessions()),
      this.deps.mcp.onDidChange(() => this.postMcpServers()),
      panel.onDidChangeViewState(() => {
        if (panel.active) activity.acknowledgeBlocks();
      }),
      panel.onDidDispose(() => {
        if (this.panel !== panel) return;
        this.panel = undefined;
        this.timeline = undefined;
        disposeAll(this.panelDisposables);
      }),
    ];
  }

  private post(message: HostToManager): void {
    void this.panel?.webview.postMessage(scrubSecrets(message, this.deps.config.secretValues()));
  }

  private receive(raw: unknown): void {
    const received = receiveManagerToHost(raw);
    if (!received.ok) {
      this.deps.log.warn(`Hook Manager webview: ${received.error}`);
      return;
    }
    this.handle(received.message).catch((error: unknown) => {
      const message = errorMessage(error);
      this.deps.log.error(`Hook Manager: ${message}`);
      void showError(`Hookpilot: ${message}`);
    });
  }

  async handle(message: ManagerToHost): Promise<void> {
    const { engineHost, pending } = this.deps;
    switch (message.type) {
      case 'ready':
        this.postHooksAndProblems();
        this.postApprovals();
        this.postPendingConfig();
        this.postMcpServers();
        // The MCP tab shows live servers: they start now if no chat started them yet.
        void this.deps.mcp.ensureStarted();
        if (this.requestedTab)
          this.post({ type: 'showTab', tab: this.requestedTab, ...(this.requestedRuns && { hook: this.requestedRuns.hook }) });
        this.requestedTab = undefined;
        await this.timeline?.select(this.takeRequestedSession());
        return;
      case 'toggleHook':
        await engineHost.setEnabled(message.id, message.enabled);
        return;
      case 'toggleAll':
        await engineHost.setAllEnabled(message.enabled);
        return;
      case 'testFire':
        this.post({ type: 'testResult', id: message.id, result: await this.testFire(message.id, message.payload) });
        return;
      case 'openDefinition': {
        const state = engineHost.engine.registry.current().find(message.id);
        if (!state || !(await openSource(state.hook.source)))
          void showInformation(`Hookpilot: "${state?.hook.name ?? message.id}" is built into Hookpilot; it has no file to open.`);
        return;
      }
      case 'approveScripts':
        // Refused when the scripts changed after the row listed them: the row is drawn again with what is there now.
        await engineHost.engine.approveScripts(message.id, message.fingerprint).catch((error: unknown) => {
          this.postHooks();
          throw error;
        });
        return;
      case 'openProblem': {
        const problem = this.problems[Number(message.id)];
        if (problem) await openSource({ kind: problem.sourceKind, file: problem.file, line: problem.line, column: problem.column });
        return;
      }
      case 'answerApproval':
        if (!pending.answer(message.id, message.choice, 'user (Hook Manager)', message.key)) this.postApprovals();
        return;
      case 'showDiff':
        await this.deps.chat.showDiff(message.id);
        return;
      case 'selectSession':
        await this.timeline?.select(message.sessionId);
        return;
      case 'timelineDetail':
        await this.timeline?.detail(message.sessionId, message.seq);
        return;
      case 'testFireRecord':
        await this.testFireRecord(message.sessionId, message.seq);
        return;
      case 'replaySession':
        await this.replaySession(message.sessionId);
        return;
      case 'exportTimeline': {
        const target = await this.timeline?.export(message.sessionId, vscode.workspace.workspaceFolders?.[0]?.uri);
        if (target) void showInformation(`Hookpilot: timeline exported to ${target.fsPath}`);
        return;
      }
      case 'reloadHooks':
        await engineHost.reload();
        return;
      case 'openHooksConfig':
        await this.deps.openHooksConfig();
        return;
      case 'manageTrust':
        await vscode.commands.executeCommand('workbench.trust.manage');
        return;
      case 'applyConfigChange':
        await engineHost.applyPending(message.id);
        return;
      case 'discardConfigChange':
        void showInformation(discardedMessage(engineHost.discardPending(message.id)));
        return;
      case 'restartMcpServer':
        this.deps.log.info(`[mcp] ${message.name}: restarted from the Hook Manager`);
        await this.deps.mcp.restart(message.name);
        return;
      case 'toggleMcpServer':
        this.deps.log.info(`[mcp] ${message.name}: turned ${message.enabled ? 'on' : 'off'} from the Hook Manager`);
        await this.deps.mcp.setEnabled(message.name, message.enabled);
        return;
    }
  }

  /** A hook run of the timeline, fired again with the payload it got then: the Hooks tab's test panel shows both. */
  private async testFireRecord(sessionId: string, seq: number): Promise<void> {
    const found = await recordedHookRun(this.deps.engineHost.engine.audit, sessionId, seq);
    if (found === undefined) return;
    const { run } = found;
    if (!this.deps.engineHost.engine.registry.current().find(run.hook_id)) {
      void showWarning(
        `Hookpilot: "${run.hook_name}" is not configured any more (or its definition changed), so it cannot run on this event.`,
      );
      return;
    }
    const recorded = found.payload as Record<string, unknown>;
    // A test run is logged as a test session of its own, never into the recorded one.
    const { session_id: _session, transcript_path: _transcript, ...fields } = recorded;
    const payload = JSON.stringify(fields, null, 2);
    this.post({ type: 'showTab', tab: 'hooks' });
    this.post({ type: 'testResult', id: run.hook_id, result: { ...(await this.testFire(run.hook_id, payload)), payload } });
  }

  /**
   * "Replay against today's hooks", under a notification whose Cancel stops it (a pending ask
   * is withdrawn): the timeline then shows the replay, a notification what differs.
   */
  private async replaySession(sessionId: string): Promise<void> {
    const title = `Hookpilot: replaying ${sessionId} against today's hooks`;
    const controller = new AbortController();
    let result: ScratchReplayResult;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title, cancellable: true },
        (_progress, token) => {
          const cancellation = token.onCancellationRequested(() => controller.abort());
          return this.deps.chat.replaySession(sessionId, controller.signal).finally(() => cancellation.dispose());
        },
      );
    } catch (error) {
      if (!controller.signal.aborted) throw error;
      this.deps.log.info(`replay of ${sessionId} cancelled: ${errorMessage(error)}`);
      void showInformation(`Hookpilot: replay of ${sessionId} cancelled (the Hookpilot log says where it stopped).`);
      return;
    }
    await this.timeline?.select(result.replaySessionId);
    if (result.cancelled) {
      void showInformation(
        `Hookpilot: replay of ${sessionId} cancelled. The timeline shows it as far as it ran, ${result.replaySessionId}.`,
      );
      return;
    }
    const count = result.differences.length;
    const summary = count === 0 ? 'every hook decided as recorded' : `${count} decision(s) differ (the Hookpilot log lists them)`;
    void showInformation(
      `Hookpilot: replay of ${sessionId} against today's hooks: ${summary}. The timeline shows the replay, ${result.replaySessionId}.`,
    );
  }

  private async testFire(id: string, payloadText: string): Promise<TestResultView> {
    let payload: unknown;
    try {
      payload = JSON.parse(payloadText);
    } catch (error) {
      return invalidPayloadResult(`The payload is not valid JSON: ${errorMessage(error)}`);
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
      return invalidPayloadResult('The payload must be a JSON object.');
    const projectDir = this.deps.engineHost.projectDir ?? '';
    const filled = { session_id: 'test-fire', transcript_path: '', cwd: projectDir, ...payload } as HookPayload;
    try {
      const { outcome } = await this.deps.engineHost.engine.testFire(id, filled);
      return toTestResultView(outcome);
    } catch (error) {
      return { status: 'error', decision: 'none', error: errorMessage(error), durationMs: 0 };
    }
  }

  private postPendingConfig(): void {
    this.post({ type: 'pendingConfig', changes: this.deps.engineHost.pendingChanges.map(toPendingConfigView) });
  }

  private postHooksAndProblems(): void {
    this.postHooks();
    const engine = this.deps.engineHost.engine;
    this.problems = [...engine.problems];
    this.post({
      type: 'problems',
      problems: this.problems.map((p, i) => toProblemView({ ...p, file: p.file && this.display(p.file) }, String(i))),
    });
    this.post({ type: 'trust', trusted: this.deps.engineHost.trusted });
  }

  private postHooks(): void {
    const engine = this.deps.engineHost.engine;
    const hooks = engine.registry.current().states.map((state) => {
      const review = engine.scriptReview(state.hook.id);
      const scriptChanged = review && toScriptChangeView(review);
      const health = this.deps.health.view(state.hook.id);
      const view = {
        ...toHookView(state, this.deps.activity.stats.get(state.hook.id)),
        ...(scriptChanged ? { scriptChanged } : {}),
        ...(health ? { health } : {}),
      };
      return view.file ? { ...view, file: this.display(view.file) } : view;
    });
    this.post({ type: 'hooks', hooks, disableAllHooks: engine.loadedConfig.disableAllHooks ?? false });
  }

  private postMcpServers(): void {
    const servers = this.deps.mcp.views().map((s) => (s.file ? { ...s, file: this.display(s.file) } : s));
    this.post({ type: 'mcpServers', servers });
  }

  private postApprovals(): void {
    this.post({
      type: 'approvals',
      pending: this.deps.pending.list().map(({ request, createdAt }) => toApprovalView(request, createdAt)),
    });
  }

  /** Workspace files are shown relative to the workspace; others as they are. */
  private display(file: string): string {
    return vscode.workspace.asRelativePath(file, false);
  }

  override dispose(): void {
    this.panel?.dispose();
    disposeAll(this.panelDisposables);
    super.dispose();
  }
}
