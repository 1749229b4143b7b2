import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { Redactor } from '../audit/redactor';
import { errorMessage } from '../error-message';
import { Emitter, type Disposable } from '../events-emitter';
import type { AgentEvent, SessionStartSource } from './agent-events';
import type { AgentSessionOptions } from './agent-session-options';
import { Compactor } from './compaction';
import type { ElicitationAnswer, ElicitationPrompter, ElicitationRequest } from '../mcp/elicitation-content';
import { answerElicitation } from './elicitation-hooks';
import { FileChangedHooks } from './file-changed-hooks';
import { reportHookFailures } from './hook-failure-errors';
import { finalAnswerGuards } from './final-answer-guards';
import { IdlePromptTimer } from './idle-prompt';
import type { ChatMessage, ChatModel } from './llm/chat-model';
import { RedactingChatModel } from './llm/redacting-chat-model';
import { SessionEnvFile } from './session-env-file';
import { SessionHooks } from './session-hooks';
import { SessionSystemPrompt } from './session-system-prompt';
import { SessionTools } from './session-tools';
import { SteeringQueue } from './steering-queue';
import { envWithoutSecrets } from './tools/shell-environment';
import { TodoStore } from './tools/todo-store';
import { Transcript } from './transcript';
import { reminder, runTurnLoop, type TurnOutcome } from './turn-loop';
import { showHookMessages } from './hook-notices';

export type { AgentSessionOptions } from './agent-session-options';

/** Turns an `asyncRewake` hook may start with no prompt between them (Stop's cap of blocks in a row). */
const MAX_WAKES_IN_A_ROW = 8;

/**
 * One conversation with the agent: SessionStart, then turns (UserPromptSubmit, TurnStart,
 * SystemPrompt, the loop, TodoGuard and Stop), then SessionEnd.
 */
export class AgentSession {
  readonly id: string;
  readonly messages: ChatMessage[] = [];
  readonly todos = new TodoStore();
  readonly hooks: SessionHooks;
  private readonly events = new Emitter<AgentEvent>();
  private readonly fire = (event: AgentEvent): void => this.events.fire(event);
  /** Shows a dispatch's system messages and warnings to the user. */
  private readonly notices = (systemMessages: readonly string[], warnings: readonly string[]): void =>
    showHookMessages(this.fire, systemMessages, warnings);
  private readonly transcript: Transcript;
  private readonly tools: SessionTools;
  private readonly compactor: Compactor;
  private readonly steering: SteeringQueue;
  private readonly systemPrompt: SessionSystemPrompt;
  private turn = 0;
  /** start() took the session's lock: only then may turns write the transcript. */
  private started = false;
  private ended = false;
  /** SessionStart said `continue: false`: no prompt runs in this session. */
  private stoppedAtStart?: { reason?: string; hookName: string };
  private readonly hookFailures: Disposable;
  /** Tells the host when an `asyncRewake` hook asks to wake the agent between turns. */
  private readonly rewakes: Disposable;
  private turnRunning = false;
  /** start() has finished (SessionStart answered): only then may a hook wake the agent. */
  private ready = false;
  /** Turns woken since the last prompt: a hook that exits 2 after every turn must not keep the agent going for ever. */
  private wakesSincePrompt = 0;
  /** The model behind the secret boundary. */
  private readonly model: ChatModel;
  /** What SessionStart hooks wrote to CLAUDE_ENV_FILE: every Bash command runs after it. */
  private readonly envFile: SessionEnvFile;
  /** Settles when the requests for input before the newest are answered. */
  private elicitations: Promise<unknown> = Promise.resolve();
  private readonly idle: IdlePromptTimer | undefined;
  private readonly fileChanges: FileChangedHooks;
  private readonly secrets: { addSecretValue(value: string): void };

  constructor(private readonly options: AgentSessionOptions) {
    this.id = options.sessionId ?? randomUUID();
    const redactor = options.redactor ?? new Redactor();
    this.secrets = redactor;
    this.model = new RedactingChatModel(options.model, redactor);
    const cwd = options.cwd ?? options.workspaceRoot;
    const home = options.home ?? homedir();
    this.envFile = new SessionEnvFile(redactor, { env: envWithoutSecrets(options.env ?? process.env, options.passEnv), cwd });
    this.transcript = new Transcript(Transcript.pathFor(options.transcriptDir, this.id), (value) => redactor.redactForModel(value));
    this.hooks = new SessionHooks(options.dispatcher, {
      sessionId: this.id,
      transcriptPath: this.transcript.file,
      cwd,
      permissionMode: () => options.permissions().mode,
    });
    const waiting = () =>
      this.hooks.emit('Notification', {
        message: 'Hookpilot is waiting for your input',
        title: 'Waiting for you',
        notification_type: 'idle_prompt',
      });
    this.idle = options.idlePromptMs === undefined ? undefined : new IdlePromptTimer(options.idlePromptMs, waiting);
    const emit = (e: AgentEvent) => {
      // The conversation was just replaced in place: the transcript follows before anyone hears of it.
      if (e.type === 'compacted') this.transcript.compacted(this.messages);
      this.events.fire(e);
    };
    this.compactor = new Compactor(this.model, options.modelName, options.contextBudgetTokens ?? 100_000, emit, this.envFile, (paths) =>
      this.fileChanges.refresh(paths),
    );
    this.tools = new SessionTools({
      options,
      sessionId: this.id,
      cwd,
      home,
      hooks: this.hooks,
      model: this.model,
      compactor: this.compactor,
      todos: this.todos,
      envFile: this.envFile,
      redactor,
      emit,
      onSessionDeny: (rule) => this.transcript.recordSessionDeny(rule),
      subagentTranscript: (agentId) => this.transcript.subagent(agentId),
    });
    this.steering = new SteeringQueue({ hooks: this.hooks, messages: this.messages, emit: this.fire, notices: this.notices });
    this.systemPrompt = new SessionSystemPrompt({
      workspaceRoot: options.workspaceRoot,
      home,
      extra: options.systemPrompt,
      projectInstructions: options.projectInstructions !== false,
      permissions: options.permissions,
      hooks: this.hooks,
      emit: this.fire,
    });
    this.hookFailures = reportHookFailures(options.dispatcher, this.id, this.hooks);
    this.rewakes = options.dispatcher.onAsyncRewake(({ sessionId, hookName }) => {
      // During a turn, its next step takes the hook's words; after it, the host asks rewakeWaiting.
      if (sessionId !== this.id || !this.ready || this.ended || this.turnRunning) return;
      if (this.wakesSincePrompt >= MAX_WAKES_IN_A_ROW) this.wakesUsedUp(hookName);
      else this.fire({ type: 'rewake_requested', hookName });
    });
    this.fileChanges = new FileChangedHooks({ hooks: this.hooks, envFile: this.envFile, cwd, notices: this.notices });
  }

  /**
   * An MCP server's request for input while this is the host's session: its Elicitation hooks
   * answer, or `person` (none: declined), then its ElicitationResult hooks.
   */
  answerElicitation(request: ElicitationRequest, person: ElicitationPrompter | undefined, signal: AbortSignal): Promise<ElicitationAnswer> {
    // One at a time: a person answers one form at a time, and hooks see each answer before the next.
    const answer = this.elicitations.then(() =>
      signal.aborted
        ? { action: 'cancel' as const }
        : answerElicitation({ hooks: this.hooks, person, secrets: this.secrets, notices: this.notices }, request, signal),
    );
    this.elicitations = answer.catch(() => undefined);
    return answer;
  }

  /** The files FileChanged hooks watch now. */
  get watchedFiles(): readonly string[] {
    return this.fileChanges.watched;
  }

  onEvent(listener: (event: AgentEvent) => void): Disposable {
    return this.events.on(listener);
  }

  /** SessionStart: hooks may add context to the start of the conversation. */
  async start(source: SessionStartSource = 'startup', signal?: AbortSignal): Promise<void> {
    // Throws when another process works on this session: two writers would interleave the transcript.
    this.transcript.open(this.id);
    this.started = true;
    if (source === 'resume') {
      const skipped = (line: number) =>
        this.fire({ type: 'notice', level: 'warning', message: `transcript line ${line} is no valid record; skipped on resume` });
      const restored = Transcript.restore(this.transcript.file, skipped);
      this.messages.push(...restored.messages.filter((m) => m.role !== 'system'));
      // What a person denied for this session stays denied in it (kept without being written again).
      for (const rule of restored.denyRules) this.tools.gate.restoreSessionDeny(rule);
      this.messages.unshift({ role: 'system', content: '' });
      this.transcript.markWritten(this.messages.length);
      // Turns go on counting from the resumed conversation's prompts.
      this.turn = this.messages.filter((m) => m.role === 'user' && !String(m.content).startsWith('<system-reminder>')).length;
    } else {
      this.messages.push({ role: 'system', content: '' });
    }
    this.events.fire({ type: 'session_started', sessionId: this.id, source, model: this.options.modelName });
    const fields = { source, model: this.options.modelName, is_resume: source === 'resume', turn_index: this.turn };
    const { result, problem } = await this.envFile.capture(`SessionStart ${source}`, (env) =>
      this.hooks.dispatch('SessionStart', fields, signal, env),
    );
    this.notices(result.systemMessages, problem === undefined ? result.warnings : [...result.warnings, problem]);
    if (result.stop) this.stoppedAtStart = result.stop;
    if (result.contexts.length > 0) this.messages.push(reminder(result.contexts));
    this.transcript.sync(this.messages);
    this.fileChanges.refresh(result.watchPaths);
    this.ready = true;
    // A hook that asked to wake the agent while SessionStart ran is heard now.
    const waiting = this.rewakeWaiting;
    if (waiting !== undefined) this.fire({ type: 'rewake_requested', hookName: waiting });
  }

  /**
   * Compacts the conversation now (Claude Code's `/compact`): PreCompact with trigger
   * "manual" may block it. False when it was blocked or there is too little to compact.
   */
  async compact(instructions: string | null, signal: AbortSignal = new AbortController().signal): Promise<boolean> {
    return this.compactor.compact(this.messages, this.hooks, 'manual', signal, instructions);
  }

  /**
   * A message sent while a turn runs (steering, docs/design.md#subagents-steering-and-async-hooks): it reaches the model at the next
   * step, after the UserPromptSubmit hooks, and a turn about to end goes on with it. What
   * still waits when the turn ends is the next prompt (takeFollowUp).
   */
  queue(text: string): void {
    this.steering.push(text);
  }

  /** Whether messages wait for the next step or prompt. */
  get hasQueued(): boolean {
    return this.steering.size > 0;
  }

  /** The waiting messages, taken back unsent (the turn was interrupted). */
  takeQueued(): string[] {
    return this.steering.takeAll();
  }

  /** The messages still waiting after a turn, as the next prompt (FollowUpQueued fires). */
  takeFollowUp(): string | undefined {
    return this.steering.takeFollowUp(Math.max(0, this.turn - 1));
  }

  /** One user prompt, worked on until the agent stops (or is blocked, cancelled, capped). */
  prompt(text: string, signal: AbortSignal = new AbortController().signal): Promise<TurnOutcome> {
    this.wakesSincePrompt = 0;
    return this.turnOf((turn) => this.runTurn(turn, text, signal), signal);
  }

  /**
   * The `asyncRewake` hook whose words wait while no turn runs: the host wakes the agent with
   * them (wake), as Claude Code does, rather than leave them for the next prompt.
   */
  get rewakeWaiting(): string | undefined {
    if (this.turnRunning || this.ended || !this.ready || this.wakesSincePrompt >= MAX_WAKES_IN_A_ROW) return undefined;
    return this.options.dispatcher.pendingRewake(this.id);
  }

  /** Says once, until the next prompt, that the wakes in a row are used up. */
  private wakesUsedUp(hookName: string): void {
    if (this.wakesSincePrompt > MAX_WAKES_IN_A_ROW) return;
    this.wakesSincePrompt++;
    const message = `Hook "${hookName}" woke the agent ${MAX_WAKES_IN_A_ROW} times in a row; what it reports now waits for the next prompt.`;
    this.fire({ type: 'notice', level: 'warning', message, source: 'hook' });
  }

  /**
   * A turn with no prompt, started for an `asyncRewake` hook's words (a system reminder at its
   * first step); undefined when none wait any more, or after MAX_WAKES_IN_A_ROW woken turns
   * with no prompt between them (the words then wait for the next prompt).
   */
  async wake(signal: AbortSignal = new AbortController().signal): Promise<TurnOutcome | undefined> {
    const hookName = this.rewakeWaiting;
    if (hookName === undefined) return undefined;
    this.wakesSincePrompt++;
    return this.turnOf((turn) => this.runWokenTurn(turn, hookName, signal), signal);
  }

  private async turnOf(run: (turn: number) => Promise<TurnOutcome>, signal: AbortSignal): Promise<TurnOutcome> {
    // A session whose start failed (its lock is held elsewhere) must not write the transcript.
    if (!this.started) throw new Error(`session ${this.id} has not started: resume it again, or start a new one`);
    const turn = this.turn++;
    this.turnRunning = true;
    this.idle?.turnStarted();
    // A configuration applied since the last prompt may watch other files.
    this.fileChanges.refresh();
    this.options.cancellation?.resume(this.id);
    const onAbort = () => {
      this.options.cancellation?.cancel(this.id);
      this.hooks.emit('InterruptReceived', { turn_index: turn });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let outcome: TurnOutcome;
    try {
      outcome = await run(turn);
    } catch (err) {
      // However the turn ends, it ends as an outcome: TurnEnd and turn_ended must not be skipped.
      const error = errorMessage(err);
      if (!signal.aborted) this.hooks.emit('Error', { error_type: 'internal', error, recoverable: true });
      outcome = { reason: signal.aborted ? 'cancelled' : 'error', result: '', ...(signal.aborted ? {} : { error }), ...emptyTurn() };
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.turnRunning = false;
    }
    try {
      this.transcript.sync(this.messages);
    } catch (err) {
      this.events.fire({
        type: 'notice',
        level: 'error',
        message: `the transcript could not be written: ${errorMessage(err)}`,
        source: 'session',
      });
    }
    const result = this.finish(turn, outcome);
    // Words that came during the last allowed woken turn wait for the next prompt: say so.
    const waiting = this.options.dispatcher.pendingRewake(this.id);
    if (waiting !== undefined && this.wakesSincePrompt >= MAX_WAKES_IN_A_ROW) this.wakesUsedUp(waiting);
    return result;
  }

  /** A prompted turn up to its outcome; turnOf reports its end (TurnEnd, turn_ended) whatever it was. */
  private async runTurn(turn: number, text: string, signal: AbortSignal): Promise<TurnOutcome> {
    const empty = emptyTurn();
    if (this.stoppedAtStart) return { reason: 'stopped', result: '', stopSession: this.stoppedAtStart, ...empty };
    const submit = await this.hooks.dispatch('UserPromptSubmit', { prompt: text }, signal);
    this.notices(submit.systemMessages, submit.warnings);
    if (submit.stop) return { reason: 'stopped', result: '', stopSession: submit.stop, ...empty };
    if (submit.blocked) {
      // Claude Code: the prompt is erased; the reason is for the user, not the model.
      const reason = submit.blockReason ?? 'blocked by a hook';
      this.events.fire({ type: 'prompt_blocked', reason, hookName: submit.blockingErrors[0]?.hookName });
      return { reason: 'blocked', result: '', error: reason, ...empty };
    }
    this.events.fire({ type: 'turn_started', turn, prompt: text });
    this.hooks.emit('TurnStart', { turn_index: turn, prompt: text });
    this.messages.push({ role: 'user', content: text });
    if (submit.contexts.length > 0) this.messages.push(reminder(submit.contexts));
    return this.loop(turn, signal);
  }

  /** A woken turn: no prompt and no UserPromptSubmit; the loop's first step takes the hook's words. */
  private async runWokenTurn(turn: number, hookName: string, signal: AbortSignal): Promise<TurnOutcome> {
    if (this.stoppedAtStart) return { reason: 'stopped', result: '', stopSession: this.stoppedAtStart, ...emptyTurn() };
    this.events.fire({ type: 'turn_started', turn, prompt: '', wokenBy: hookName });
    this.hooks.emit('TurnStart', { turn_index: turn, prompt: '' });
    return this.loop(turn, signal);
  }

  private async loop(turn: number, signal: AbortSignal): Promise<TurnOutcome> {
    this.transcript.sync(this.messages);
    await this.systemPrompt.refresh(this.messages, this.tools.current(), signal);

    return runTurnLoop(
      this.messages,
      {
        model: this.model,
        modelName: this.options.modelName,
        hooks: this.hooks,
        tools: () => this.tools.current(),
        executor: this.tools.executor,
        compactor: this.compactor,
        emit: this.fire,
        maxSteps: this.options.maxSteps ?? 50,
        takeSteering: (step, loopSignal) => this.steering.inject(turn, step, loopSignal),
        persist: () => this.transcript.sync(this.messages),
        onFinalAnswer: finalAnswerGuards({
          hooks: this.hooks,
          todos: this.todos,
          todoGuardCap: this.options.todoGuardCap ?? 3,
          stopHookCap: this.options.stopHookCap ?? 8,
          persist: () => this.transcript.sync(this.messages),
          emit: this.fire,
          notices: this.notices,
        }),
      },
      signal,
    );
  }

  /** Every end of a turn, whatever ended it (a blocked prompt, a hook's stop, an error, a cancel) fires TurnEnd once. */
  private finish(turn: number, outcome: TurnOutcome): TurnOutcome {
    this.hooks.emit('TurnEnd', {
      turn_index: turn,
      reason: outcome.reason,
      steps: outcome.steps,
      tool_calls: outcome.toolCalls.length,
      last_assistant_message: outcome.result,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    if (outcome.reason === 'completed')
      this.hooks.emit('Notification', { message: 'Hookpilot finished its turn', title: 'Done', notification_type: 'agent_completed' });
    this.events.fire({ type: 'turn_ended', reason: outcome.reason, result: outcome.result, error: outcome.error });
    if (!this.ended) this.idle?.turnEnded();
    return outcome;
  }

  /**
   * SessionEnd, then a bounded wait for observers so their records are not lost. Async hooks
   * end with the session: those still running are killed (and recorded as cancelled).
   */
  async end(reason: 'completed' | 'cancelled' | 'error' | 'clear' | 'other' | 'prompt_input_exit' = 'completed'): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.fileChanges.stop();
    this.idle?.dispose();
    this.hookFailures.dispose();
    this.rewakes.dispose();
    if (!this.started) {
      // It never started (its transcript was another process's): no SessionEnd for it, nothing to write.
      this.tools.dispose();
      return;
    }
    this.transcript.sync(this.messages);
    const dispatcher = this.options.dispatcher;
    await dispatcher.cancelAsync('the session ended', this.id);
    this.hooks.emit('SessionEnd', { reason });
    await dispatcher.drainSessionEnd(this.id);
    // SessionEnd's own async hooks had the drain to finish.
    await dispatcher.cancelAsync('the session ended', this.id);
    this.transcript.close();
    this.tools.dispose();
    this.events.fire({ type: 'session_ended', reason });
  }
}

function emptyTurn(): Pick<TurnOutcome, 'toolCalls' | 'steps' | 'usage'> {
  return { toolCalls: [], steps: 0, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
}
