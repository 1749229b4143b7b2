import * as vscode from 'vscode';
import type { AgentEvent, SessionStartSource } from '../core/agent/agent-events';
import type { AgentSession } from '../core/agent/agent-session';
import type { ChatMessage } from '../core/agent/llm/chat-model';
import type { Approver } from '../core/agent/permissions/permission-settings';
import type { TurnOutcome } from '../core/agent/turn-loop';
import { Transcript } from '../core/agent/transcript';
import { ChatProjector } from '../shared/chat-projector';
import { chatTranscriptDir, createChatSession } from './chat-session-factory';
import type { ChatToHost, HostToChat } from '../shared/chat-protocol';
import { modelPreset } from '../shared/model-presets';
import { demoRecordingOf, replayDemoSession, replayStoredSession } from './demo-replay';
import type { DiffPreviews } from './diff-previews';
import type { EngineHost } from './engine-host';
import type { HookpilotConfig } from './hookpilot-config';
import { HookStatusLine } from './hook-status-line';
import { Disposable } from './lifecycle';
import type { HookpilotLog } from './log';
import type { McpHost } from './mcp-host';
import type { PendingApprovals } from './pending-approvals';
import { scrubSecrets } from './secret-scrubber';
import { listSessions } from './session-catalog';
import { replayTranscript } from './session-replay';
import { UnsentDrafts } from './unsent-drafts';
import { errorMessage } from '../core/error-message';
import { ChatActivity } from './chat-activity';
import { describeDifference } from '../core/replay/decisions';
import type { ScratchReplayResult } from '../core/replay/scratch-replay';
import type { ElicitationAnswer, ElicitationRequest } from '../core/mcp/elicitation-content';
import { ElicitationModal } from './elicitation-prompter';
import { showInformation } from './notifications';

export interface ChatControllerDeps {
  engineHost: EngineHost;
  config: HookpilotConfig;
  approver: Approver;
  pending: PendingApprovals;
  diffs: DiffPreviews;
  log: HookpilotLog;
  openHookManager: () => void;
  promptForApiKey: () => Promise<void>;
  /** The window's MCP servers, whose tools each new chat offers. */
  mcp?: McpHost;
  /** Hookpilot's records, out of the model's reach (privateStoragePaths). */
  privatePaths: readonly string[];
}

/** Claude Code's `/compact [instructions]`, typed in the composer. */
const COMPACT_COMMAND = /^\/compact(?:\s+([\s\S]*))?$/;

/**
 * The chat's host side, without the webview: one AgentSession at a time, its events
 * projected into the numbered append/patch stream, cancel, new chat and resume. The view
 * provider attaches a poster; while none is attached, the stream is kept in the projector
 * and the next `ready` gets a reset.
 */
export class ChatController extends Disposable {
  private projector = new ChatProjector();
  private session: AgentSession | undefined;
  private readonly elicitor = new ElicitationModal();
  /** New Chat cleared the last session: the next one starts with source "clear", as in Claude Code. */
  private cleared = false;
  /** The person stopped the agent (or a hook did): no hook wakes it before the next prompt. */
  private wakesHeld = false;
  private sessionEvents: vscode.Disposable | undefined;
  /** A prompt sent while the session ends or switches waits, then goes to the chat that follows. */
  private readonly activity = new ChatActivity({
    busyChanged: () => this.postStatus(),
    failed: (what, message) => {
      this.deps.log.error(`${what} failed: ${message}`);
      this.emitAll(this.projector.project({ type: 'notice', level: 'error', message }));
    },
    finished: () => this.postSessions(),
  });
  private readonly drafts = new UnsentDrafts((message) => this.post(message));
  private poster: ((message: HostToChat) => void) | undefined;
  private lastReplayId: string | undefined;
  private readonly hookStatus: HookStatusLine;
  private readonly sessionChanged = this._register(new vscode.EventEmitter<string | undefined>());
  /** The chat's session started, ended or was switched (the Hook Manager follows it live). */
  readonly onDidChangeSession = this.sessionChanged.event;

  constructor(private readonly deps: ChatControllerDeps) {
    super();
    this._register(deps.config.onDidChangeModel(() => this.postStatus()));
    this.hookStatus = this._register(new HookStatusLine(deps.engineHost.engine.dispatcher, () => this.session?.id));
    this._register(this.hookStatus.onDidChange(() => this.postStatus()));
  }

  get currentSessionId(): string | undefined {
    return this.session?.id;
  }

  /** The last demo replay's session: the timeline shows it while no chat runs. */
  get replaySessionId(): string | undefined {
    return this.lastReplayId;
  }

  get busy(): boolean {
    return this.activity.busy;
  }

  private get transcriptDir(): string {
    return chatTranscriptDir(this.deps);
  }

  attach(post: (message: HostToChat) => void): vscode.Disposable {
    this.poster = post;
    return { dispose: () => (this.poster === post ? (this.poster = undefined) : undefined) };
  }

  /** Every message leaves scrubbed of secret values, whatever a tool or a hook printed. */
  private post(message: HostToChat): void {
    this.poster?.(scrubSecrets(message, this.deps.config.secretValues()));
  }

  async handle(message: ChatToHost): Promise<void> {
    switch (message.type) {
      case 'ready':
      case 'resync':
        this.postStatus();
        await this.postSessions();
        this.post(this.projector.snapshot());
        if (message.type === 'ready') this.drafts.resend();
        return;
      case 'draftRestored':
        this.drafts.acknowledge(message.id);
        return;
      case 'send':
        await this.send(message.text);
        return;
      case 'cancel':
        this.cancel();
        return;
      case 'newChat':
        await this.newChat();
        return;
      case 'resume':
        await this.resume(message.sessionId);
        return;
      case 'openHookManager':
        this.deps.openHookManager();
        return;
      case 'configureModel': {
        await this.deps.config.applyPreset(message.preset);
        if (modelPreset(message.preset).needsApiKey && !this.deps.config.apiKey()) await this.deps.promptForApiKey();
        this.postStatus();
        return;
      }
      case 'setApiKey':
        await this.deps.promptForApiKey();
        return;
      case 'answerApproval':
        this.deps.pending.answer(message.id, message.choice, 'user (chat)', message.askId);
        return;
      case 'showDiff':
        await this.showDiff(message.id);
        return;
      case 'replayDemo':
        await this.replayDemo();
        return;
    }
  }

  postFocus(): void {
    this.post({ type: 'focus' });
  }

  private postStatus(): void {
    const model = this.deps.config.modelStatus();
    if (!model.configured && demoRecordingOf(this.deps.engineHost)) model.demoReplay = true;
    this.post({ type: 'status', model, busy: this.busy, usage: this.projector.usage, activity: this.hookStatus.current?.slice(0, 200) });
  }

  private async postSessions(): Promise<void> {
    const list = await listSessions(this.transcriptDir);
    this.post({ type: 'sessions', list, currentId: this.session?.id });
  }

  private emitAll(messages: HostToChat[]): void {
    for (const message of messages) this.post(message);
  }

  async send(text: string): Promise<void> {
    await this.activity.afterSwitches();
    const compact = COMPACT_COMMAND.exec(text.trim());
    if (compact) return this.compact(compact[1]?.trim() || null, text);
    // Sent while the agent works, or while earlier such messages still wait: the model gets
    // it after the current step, in order (steering, docs/design.md#subagents-steering-and-async-hooks).
    if (this.session && (this.busy || this.session.hasQueued)) {
      this.session.queue(text);
      this.emitAll(this.projector.queuedPrompt(text));
      return;
    }
    // Busy before any session exists (the first one still starting): nothing can queue it yet.
    if (this.busy) return this.drafts.add(text);
    const notLoaded = this.deps.engineHost.notLoadedReason;
    if (notLoaded !== undefined) {
      this.drafts.add(text);
      const message = `The agent does not run while the hook configuration is not loaded (${notLoaded}). It runs once the configuration loads.`;
      return this.emitAll(this.projector.project({ type: 'notice', level: 'error', message }));
    }
    const resolution = this.deps.config.resolveEndpoint();
    if (!resolution.ok) {
      this.postStatus();
      return;
    }
    this.wakesHeld = false;
    const halted = await this.runTurn(async (signal) => {
      const session =
        this.session ??
        (await this.startSession(this.cleared ? 'clear' : 'startup', resolution.endpoint.model).catch((error: unknown) => {
          // The prompt never reached a session: back to the composer, not lost.
          this.drafts.add(text);
          throw error;
        }));
      this.emitAll(this.projector.userPrompt(text));
      return session.prompt(text, signal);
    });
    await this.afterRun(halted);
  }

  /** One prompt as the chat's turn; true when it was interrupted or a hook stopped the agent. */
  private async runTurn(prompt: (signal: AbortSignal) => Promise<TurnOutcome | undefined>): Promise<boolean> {
    let outcome: TurnOutcome | undefined;
    const interrupted = await this.activity.exclusive('chat turn', async (signal) => {
      try {
        outcome = await prompt(signal);
      } finally {
        // Before the chat is idle again: a hook that reports from now on must not restart what was stopped.
        if (signal.aborted || outcome?.reason === 'stopped') this.wakesHeld = true;
      }
    });
    const ended = outcome?.reason === 'aborted' ? outcome.stopSession : undefined;
    if (ended) {
      // A hard abort ends the session (docs/hooks.md): what was queued goes back to the composer, and the next prompt starts anew.
      await this.closeSession('other');
      const message = `Hook "${ended.hookName}" ended the session${ended.reason ? `: ${ended.reason}` : ''}. The next prompt starts a new one.`;
      this.emitAll(this.projector.project({ type: 'notice', level: 'warning', message, source: 'hook' }));
    }
    return interrupted || outcome?.reason === 'stopped' || ended !== undefined;
  }

  /**
   * What was sent during a turn (or a compaction) and never reached the model: the next
   * prompt, or back in the composer when the turn was halted (the user interrupted it, or a
   * hook stopped the agent).
   */
  private async afterRun(halted: boolean): Promise<void> {
    const session = this.session;
    // A turn that started meanwhile takes them: at its next step, or after it.
    if (this.busy || !session) return;
    // Stopped by the person (or a hook): a hook reporting later does not start it again either.
    if (halted) this.wakesHeld = true;
    // An asyncRewake hook that spoke during the turn wakes the agent, unless the person stopped it.
    if (!session.hasQueued) return halted ? undefined : this.wakeIfIdle();
    if (halted) return this.returnQueued(session);
    const followUp = session.takeFollowUp();
    if (followUp === undefined) return this.wakeIfIdle();
    this.wakesHeld = false;
    this.emitAll(this.projector.adoptQueued());
    await this.afterRun(await this.runTurn((signal) => session.prompt(followUp, signal)));
  }

  private returnQueued(session: AgentSession): void {
    const texts = session.takeQueued();
    if (texts.length === 0) return;
    this.emitAll(this.projector.withdrawQueued());
    this.drafts.add(texts.join('\n\n'));
  }

  /**
   * Claude Code's /compact: the conversation so far becomes one summary (PreCompact, trigger
   * "manual"). Only between turns: typed while the agent works, it goes back to the composer.
   */
  async compact(instructions: string | null, typed?: string): Promise<void> {
    await this.activity.afterSwitches();
    const session = this.session;
    if (!session) {
      this.emitAll(
        this.projector.project({
          type: 'notice',
          level: 'info',
          message: 'Nothing to compact yet: the chat has not started.',
          source: 'compaction',
        }),
      );
      return;
    }
    if (this.busy) {
      this.emitAll(
        this.projector.project({
          type: 'notice',
          level: 'info',
          message: 'The conversation can be compacted only between turns: run /compact again when the agent has finished.',
          source: 'compaction',
        }),
      );
      if (typed) this.drafts.add(typed);
      return;
    }
    const interrupted = await this.activity.exclusive('compaction', async (signal) => {
      if (!(await session.compact(instructions, signal))) {
        this.emitAll(
          this.projector.project({
            type: 'notice',
            level: 'info',
            message: 'Nothing was compacted: too little conversation so far, or a PreCompact hook blocked it.',
            source: 'compaction',
          }),
        );
      }
    });
    await this.afterRun(interrupted);
  }

  cancel(): void {
    this.activity.cancel();
  }

  /**
   * The workspace's recorded session, replayed through its hooks in a scratch copy (see
   * demo-replay.ts): the chat draws it, labelled as a replay, and the timeline lists it.
   */
  async replayDemo(): Promise<void> {
    await this.activity.switchSession(async () => {
      await this.endSession('other');
      this.post(this.projector.clear());
    });
    const notice = (level: 'info' | 'warning', message: string) =>
      this.emitAll(this.projector.project({ type: 'notice', level, message, source: 'replay' }));
    notice(
      'info',
      "Replay of the demo session: recorded model replies run through this workspace's hooks in a scratch copy; your files are not changed. No model is called.",
    );
    let events: vscode.Disposable | undefined;
    await this.activity.exclusive('demo replay', async (signal) => {
      const result = await replayDemoSession(this.deps, signal, (session) => {
        this.lastReplayId = session.id;
        events = session.onEvent((event) => this.emitAll(this.projector.project(event)));
        this.sessionChanged.fire(undefined);
      }).finally(() => events?.dispose());
      const differ = result.differences.map(describeDifference);
      const next = "Open the Hook Manager's Timeline to see each decision; New Chat shows how to connect a model.";
      if (differ.length === 0) notice('info', `Replay finished: every hook decided as in the recording. ${next}`);
      else notice('warning', `Replay finished: ${differ.length} decision(s) differ from the recording:\n${differ.join('\n')}\n${next}`);
    });
    this.sessionChanged.fire(undefined);
  }

  /** The Hook Manager's "Replay against today's hooks": the chat stays as it is; the timeline shows the replay. */
  replaySession(sessionId: string, signal: AbortSignal): Promise<ScratchReplayResult> {
    return replayStoredSession(this.deps, sessionId, signal);
  }

  /** An MCP server's request for input: the chat's session runs its Elicitation hooks and asks the person; no session, no answer. */
  answerElicitation(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
    if (!this.session) return Promise.resolve({ action: 'decline' });
    return this.session.answerElicitation(request, this.elicitor, signal);
  }

  /** Cancels a running turn and ends the session; the next prompt starts a new one. */
  async newChat(): Promise<void> {
    await this.activity.switchSession(async () => {
      await this.endSession('clear');
      this.cleared = true;
      this.post(this.projector.clear());
    });
    this.postStatus();
    await this.postSessions();
  }

  async resume(sessionId: string): Promise<void> {
    if (sessionId === this.session?.id) return;
    const resolution = this.deps.config.resolveEndpoint();
    await this.activity.switchSession(async () => {
      await this.endSession('other');
      this.post(this.projector.clear());
      const notice = (level: 'info' | 'error', message: string) =>
        this.emitAll(this.projector.project({ type: 'notice', level, message, source: 'session' }));
      let messages: ChatMessage[];
      try {
        messages = Transcript.load(Transcript.pathFor(this.transcriptDir, sessionId));
      } catch (error) {
        return notice('error', `This earlier chat could not be resumed: ${errorMessage(error)}`);
      }
      for (const event of replayTranscript(messages)) this.emitAll(this.projector.project(event));
      if (!resolution.ok) return notice('info', 'This earlier chat can continue once a model is configured.');
      try {
        await this.startSession('resume', resolution.endpoint.model, sessionId);
      } catch (error) {
        // Its conversation stays off the screen: the next prompt starts a new chat without it.
        this.post(this.projector.clear());
        return notice('error', `This earlier chat could not be resumed: ${errorMessage(error)}`);
      }
      notice('info', 'Resumed an earlier chat.');
    });
    this.postStatus();
    await this.postSessions();
  }

  private async startSession(source: SessionStartSource, modelName: string, sessionId?: string): Promise<AgentSession> {
    const session = await createChatSession(this.deps, modelName, sessionId);
    this.session = session;
    this.wakesHeld = false;
    this.sessionEvents = session.onEvent((event) => this.onAgentEvent(event));
    this.sessionChanged.fire(session.id);
    try {
      await session.start(source);
    } catch (error) {
      // Not kept (its transcript may be another process's): the next prompt or resume starts afresh.
      await this.closeSession('other');
      throw error;
    }
    this.cleared = false;
    return session;
  }

  private onAgentEvent(event: AgentEvent): void {
    // Synchronously, before the tool runs: the diff's "before" side.
    if (event.type === 'tool_started')
      this.deps.diffs.snapshotBefore(event.id, event.name, event.input, this.deps.engineHost.projectDir ?? '');
    this.emitAll(this.projector.project(event));
    if (event.type === 'usage') this.postStatus();
    if (event.type === 'rewake_requested') void this.wakeIfIdle();
  }

  /**
   * An `asyncRewake` hook's words wait while the chat has no turn: the agent is woken with them
   * (Claude Code's asyncRewake), as a turn of its own. One that came during a turn waits for it.
   */
  private async wakeIfIdle(): Promise<void> {
    // A session still starting (resume) or being switched is not idle: its SessionStart must answer first.
    await this.activity.afterSwitches();
    const session = this.session;
    if (!session || this.wakesHeld || this.busy || session.hasQueued || session.rewakeWaiting === undefined) return;
    let woken = false;
    const halted = await this.runTurn(async (signal) => {
      const outcome = await session.wake(signal);
      woken = outcome !== undefined;
      return outcome;
    });
    // No turn was started (what waited was taken meanwhile, or the wakes in a row are used up): nothing to follow.
    if (woken) await this.afterRun(halted);
  }

  private async endSession(reason: 'clear' | 'other' | 'completed'): Promise<void> {
    await this.activity.stop();
    await this.closeSession(reason);
  }

  /** Ends the session; a turn still running is the caller's to stop first (or to be in). */
  private async closeSession(reason: 'clear' | 'other' | 'completed'): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = undefined;
    // Messages it never got are the user's: back to the composer, not lost with the session.
    this.returnQueued(session);
    await session.end(reason);
    this.sessionEvents?.dispose();
    this.sessionEvents = undefined;
    this.deps.engineHost.engine.clearSession(session.id);
    this.sessionChanged.fire(undefined);
  }

  /** A pending edit's proposed change, or an executed one's applied change (the Hook Manager's Approvals list asks too). */
  async showDiff(callId: string): Promise<void> {
    const pending = this.deps.pending.get(callId);
    const root = this.deps.engineHost.projectDir ?? '';
    const shown = pending
      ? await this.deps.diffs.showProposed(pending.request.toolName, pending.request.input, root)
      : await this.deps.diffs.showApplied(callId);
    if (!shown && !pending) void showInformation('Hookpilot has no diff for this tool call (it was made before this window opened).');
  }

  /** Ends the running session (SessionEnd hooks run) before the engine goes away. */
  async shutdown(): Promise<void> {
    await this.endSession('other');
  }
}
