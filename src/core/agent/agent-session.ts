import { randomUUID } from 'node:crypto';
import type { AuditSink } from '../audit/records';
import { Redactor } from '../audit/redactor';
import { errorMessage } from '../error-message';
import { Emitter, type Disposable } from '../events-emitter';
import type { CancellationHook } from '../hooks/builtins/cancellation-hook';
import type { HookDispatcher } from '../hooks/dispatcher';
import type { AgentEvent, SessionStartSource } from './agent-events';
import { Compactor } from './compaction';
import type { ChatMessage, ChatModel } from './llm/chat-model';
import { RedactingChatModel, type ModelRedactor } from './llm/redacting-chat-model';
import type { PermissionSettings, Approver } from './permissions/permission-settings';
import { PermissionGate } from './permissions/permission-gate';
import { IdlePromptTimer } from './idle-prompt';
import { SessionEnvFile } from './session-env-file';
import { SessionHooks } from './session-hooks';
import type { SubagentDefinition } from './subagent-definitions';
import { SubagentRunner } from './subagent-runner';
import { instructionsSection, loadProjectInstructions } from './project-instructions';
import { baseSystemPrompt, withExtensions } from './system-prompt';
import { createTaskTool } from './task-tool';
import { ToolExecutor } from './tool-executor';
import { BASH_SHELLS_ARG } from '../process/spawner/spawner-protocol';
import { SpawnerProcessRunner } from '../process/spawner/spawner-process-runner';
import { createBuiltinTools } from './tools/builtin-tools';
import { TodoStore } from './tools/todo-store';
import type { Tool } from './tools/tool';
import { Transcript } from './transcript';
import { reminder, runTurnLoop, type SteeringResult, type TurnOutcome } from './turn-loop';

export interface AgentSessionOptions {
  sessionId?: string;
  workspaceRoot: string;
  cwd?: string;
  model: ChatModel;
  modelName: string;
  dispatcher: HookDispatcher;
  approver: Approver;
  permissions: () => PermissionSettings;
  /** Files only a person may let the agent change (hook configs and their scripts). */
  protectedPaths?: () => readonly string[];
  transcriptDir: string;
  env?: NodeJS.ProcessEnv;
  /** Tools the model is offered; default: all built-ins plus Task. Names listed here are withheld. */
  disallowedTools?: readonly string[];
  maxSteps?: number;
  contextBudgetTokens?: number;
  /** Consecutive Stop blocks honoured before the agent stops anyway (Claude Code: 8). */
  stopHookCap?: number;
  todoGuardCap?: number;
  approvalTimeoutMs?: number;
  persistAllowRule?: (rule: string) => Promise<void>;
  /** Where permission decisions are recorded; default: the dispatcher's audit sink. */
  audit?: AuditSink;
  systemPrompt?: string;
  cancellation?: CancellationHook;
  /**
   * The host's secret registry (the engine's audit redactor): what the model reads and the
   * transcript are redacted with it, and it learns the secrets SessionStart hooks export.
   * Default: token shapes only.
   */
  redactor?: ModelRedactor & { addSecretValue(value: string): void };
  /** Secret-looking variables the Bash tool's shell still inherits (`hookpilot.tools.bash.passEnv`, `--pass-env`). */
  passEnv?: readonly string[];
  /**
   * More tools for the main agent (MCP servers' tools); subagents do not get them. A function is
   * asked again before each model request: a server's tool list may change mid-session.
   */
  extraTools?: readonly Tool[] | (() => readonly Tool[]);
  /**
   * Custom subagents (`.claude/agents/*.md`) the Task tool offers by `subagent_type`; one is
   * offered an extra (MCP) tool only when its `tools` list names it.
   */
  subagents?: readonly SubagentDefinition[];
  /**
   * The built process-spawner helper: the Bash tool's commands are forked from it (from bash
   * shells it starts ahead of need) instead of from this process, whose forks get slower as
   * a long session grows its memory. Without it, they are forked from here.
   */
  spawnerModulePath?: string;
  /**
   * Load AGENTS.md and CLAUDE.md from the workspace root into the system prompt (InstructionsLoaded
   * fires for each). Default true; an untrusted workspace contributes nothing, so the host says false there.
   */
  projectInstructions?: boolean;
  /**
   * Where a person types the next prompt (the chat): after a turn, once the prompt has waited
   * this long, Notification `idle_prompt` fires (Claude Code: 60 s). Unset: never (a one-shot run).
   */
  idlePromptMs?: number;
}

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
  private readonly transcript: Transcript;
  /** Built-ins and Task; `currentTools()` adds the extra tools. */
  private readonly baseTools: Tool[];
  /** What the executor looks calls up in, kept equal to `currentTools()`. */
  private readonly toolsByName = new Map<string, Tool>();
  private readonly bashRunner: SpawnerProcessRunner | undefined;
  private readonly executor: ToolExecutor;
  private readonly compactor: Compactor;
  private readonly withheld: ReadonlySet<string>;
  private readonly gate: PermissionGate;
  private turn = 0;
  /** start() took the session's lock: only then may turns write the transcript. */
  private started = false;
  private ended = false;
  /** Messages the user sent while a turn ran, in order, not yet given to the model. */
  private readonly queued: string[] = [];
  /** SessionStart said `continue: false`: no prompt runs in this session. */
  private stoppedAtStart?: { reason?: string; hookName: string };
  private readonly hookFailures: Disposable;
  /** The model behind the secret boundary. */
  private readonly model: ChatModel;
  /** AGENTS.md / CLAUDE.md as loaded for this session ('' when none). */
  private instructionsText?: string;
  /** What SessionStart hooks wrote to CLAUDE_ENV_FILE: every Bash command runs after it. */
  private readonly envFile: SessionEnvFile;
  private readonly idle: IdlePromptTimer | undefined;

  constructor(private readonly options: AgentSessionOptions) {
    this.id = options.sessionId ?? randomUUID();
    const redactor = options.redactor ?? new Redactor();
    this.model = new RedactingChatModel(options.model, redactor);
    this.envFile = new SessionEnvFile(redactor);
    this.transcript = new Transcript(Transcript.pathFor(options.transcriptDir, this.id), (value) => redactor.redactForModel(value));
    const cwd = options.cwd ?? options.workspaceRoot;
    this.hooks = new SessionHooks(options.dispatcher, { sessionId: this.id, transcriptPath: this.transcript.file, cwd, permissionMode: () => options.permissions().mode });
    this.gate = new PermissionGate(options.permissions);
    const waiting = () => this.hooks.emit('Notification', { message: 'Hookpilot is waiting for your input', title: 'Waiting for you', notification_type: 'idle_prompt' });
    this.idle = options.idlePromptMs === undefined ? undefined : new IdlePromptTimer(options.idlePromptMs, waiting);
    const emit = (e: AgentEvent) => {
      // The conversation was just replaced in place: the transcript follows before anyone hears of it.
      if (e.type === 'compacted') this.transcript.compacted(this.messages);
      this.events.fire(e);
    };
    this.compactor = new Compactor(this.model, options.modelName, options.contextBudgetTokens ?? 100_000, emit, this.envFile);
    const withheld = new Set(options.disallowedTools ?? []);
    if (options.spawnerModulePath) {
      this.bashRunner = new SpawnerProcessRunner({ modulePath: options.spawnerModulePath, args: [BASH_SHELLS_ARG] });
      this.bashRunner.warmUp();
    }
    const builtins: Tool[] = createBuiltinTools(this.todos, this.bashRunner);
    const executorFor = (hooks: SessionHooks, tools: ReadonlyMap<string, Tool>) =>
      new ToolExecutor({
        tools,
        hooks,
        gate: this.gate,
        approver: options.approver,
        gateContext: () => ({ workspaceRoot: options.workspaceRoot, cwd, protectedPaths: options.protectedPaths?.() ?? [] }),
        toolContext: (signal) => ({
          workspaceRoot: options.workspaceRoot,
          cwd,
          signal,
          env: options.env ?? process.env,
          sessionId: this.id,
          additionalDirectories: options.permissions().additionalDirectories,
          passEnv: options.passEnv,
          redactForModel: (text) => redactor.redactForModel(text),
          shellPrelude: this.envFile.prelude,
        }),
        emit,
        persistAllowRule: options.persistAllowRule,
        approvalTimeoutMs: options.approvalTimeoutMs ?? 10 * 60_000,
        audit: options.audit ?? options.dispatcher.auditSink,
      });
    const subagentTools = builtins.filter((t) => !withheld.has(t.name));
    const subagents = new SubagentRunner({
      parentHooks: this.hooks,
      model: this.model,
      modelName: options.modelName,
      tools: subagentTools,
      mcpTools: () => this.extraToolsNow(),
      definitions: options.subagents,
      executorFor,
      compactor: this.compactor,
      emit,
      maxSteps: options.maxSteps ?? 50,
      stopHookCap: options.stopHookCap ?? 8,
      systemPrompt: (tools, instructions) =>
        baseSystemPrompt({ workspaceRoot: options.workspaceRoot, tools, extra: ['You are a subagent: do the task you are given and answer with the result.', instructions ?? ''].filter(Boolean).join('\n\n') }),
    });
    const task = withheld.has('Task') ? [] : [createTaskTool((input, signal) => subagents.run(input, signal), options.subagents) as unknown as Tool];
    this.baseTools = [...subagentTools, ...task];
    this.withheld = withheld;
    this.executor = executorFor(this.hooks, this.toolsByName);
    this.currentTools();
    // A failing hook is an Error event too (not for Error hooks themselves: no loops).
    this.hookFailures = options.dispatcher.onDidRunHook((run) => {
      if (run.sessionId !== this.id || run.event === 'Error') return;
      if (run.outcome.status === 'error' || run.outcome.status === 'timeout') {
        this.hooks.emit('Error', { error_type: 'hook', error: `hook "${run.hook.name}" (${run.event}) ${run.outcome.status === 'timeout' ? 'timed out' : 'failed'}: ${run.outcome.error}`, recoverable: true });
      }
    });
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
      this.messages.push(...Transcript.load(this.transcript.file).filter((m) => m.role !== 'system'));
      this.messages.unshift({ role: 'system', content: '' });
      this.transcript.markWritten(this.messages.length);
      // Turns go on counting from the resumed conversation's prompts.
      this.turn = this.messages.filter((m) => m.role === 'user' && !String(m.content).startsWith('<system-reminder>')).length;
    } else {
      this.messages.push({ role: 'system', content: '' });
    }
    this.events.fire({ type: 'session_started', sessionId: this.id, source, model: this.options.modelName });
    const fields = { source, model: this.options.modelName, is_resume: source === 'resume', turn_index: this.turn };
    const { result, problem } = await this.envFile.capture((env) => this.hooks.dispatch('SessionStart', fields, signal, env));
    this.notices(result.systemMessages, problem === undefined ? result.warnings : [...result.warnings, problem]);
    if (result.stop) this.stoppedAtStart = result.stop;
    if (result.contexts.length > 0) this.messages.push(reminder(result.contexts));
    this.transcript.sync(this.messages);
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
    this.queued.push(text);
  }

  /** Whether messages wait for the next step or prompt. */
  get hasQueued(): boolean {
    return this.queued.length > 0;
  }

  /** The waiting messages, taken back unsent (the turn was interrupted). */
  takeQueued(): string[] {
    return this.queued.splice(0);
  }

  /** The messages still waiting after a turn, as the next prompt (FollowUpQueued fires). */
  takeFollowUp(): string | undefined {
    if (this.queued.length === 0) return undefined;
    const messages = this.takeQueued();
    const prompt = messages.join('\n\n');
    this.hooks.emit('FollowUpQueued', { prompt, turn_index: Math.max(0, this.turn - 1), messages: messages.length });
    return prompt;
  }

  /** One user prompt, worked on until the agent stops (or is blocked, cancelled, capped). */
  async prompt(text: string, signal: AbortSignal = new AbortController().signal): Promise<TurnOutcome> {
    // A session whose start failed (its lock is held elsewhere) must not write the transcript.
    if (!this.started) throw new Error(`session ${this.id} has not started: resume it again, or start a new one`);
    const turn = this.turn++;
    this.idle?.turnStarted();
    this.options.cancellation?.resume(this.id);
    const onAbort = () => {
      this.options.cancellation?.cancel(this.id);
      this.hooks.emit('InterruptReceived', { turn_index: turn });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let outcome: TurnOutcome;
    try {
      outcome = await this.runTurn(turn, text, signal);
    } catch (err) {
      // However the turn ends, it ends as an outcome: TurnEnd and turn_ended must not be skipped.
      const error = errorMessage(err);
      if (!signal.aborted) this.hooks.emit('Error', { error_type: 'internal', error, recoverable: true });
      outcome = { reason: signal.aborted ? 'cancelled' : 'error', result: '', ...(signal.aborted ? {} : { error }), ...emptyTurn() };
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    try {
      this.transcript.sync(this.messages);
    } catch (err) {
      this.events.fire({ type: 'notice', level: 'error', message: `the transcript could not be written: ${errorMessage(err)}`, source: 'session' });
    }
    return this.finish(turn, outcome);
  }

  /** The turn up to its outcome; prompt() reports its end (TurnEnd, turn_ended) whatever it was. */
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
    this.transcript.sync(this.messages);
    await this.refreshSystemPrompt(signal);

    let stopBlocks = 0;
    let todoNudges = 0;
    return runTurnLoop(
      this.messages,
      {
        model: this.model,
        modelName: this.options.modelName,
        hooks: this.hooks,
        tools: () => this.currentTools(),
        executor: this.executor,
        compactor: this.compactor,
        emit: (e) => this.events.fire(e),
        maxSteps: this.options.maxSteps ?? 50,
        takeSteering: (step, loopSignal) => this.takeSteering(turn, step, loopSignal),
        persist: () => this.transcript.sync(this.messages),
        onFinalAnswer: async (answer, loopSignal) => {
          // TodoGuard runs before Stop hooks: unfinished todos mean keep going.
          if (this.todos.hasUnfinished() && todoNudges < (this.options.todoGuardCap ?? 3)) {
            todoNudges++;
            const open = this.todos.get().filter((t) => t.status !== 'completed').map((t) => `- [${t.status}] ${t.content}`).join('\n');
            return { continueWith: `<system-reminder>\n[TodoGuard] You still have unfinished todos:\n${open}\nFinish them, or update the list with TodoWrite if they are done or no longer needed.\n</system-reminder>` };
          }
          this.transcript.sync(this.messages);
          const stop = await this.hooks.dispatch('Stop', { stop_hook_active: stopBlocks > 0, stop_hook_count: stopBlocks, last_assistant_message: answer }, loopSignal);
          this.notices(stop.systemMessages, stop.warnings);
          if (stop.stop) return { stop: stop.stop };
          if (!stop.blocked && stop.contexts.length === 0) return {};
          const cap = this.options.stopHookCap ?? 8;
          if (cap > 0 && stopBlocks >= cap) {
            this.events.fire({ type: 'notice', level: 'warning', message: `Stop hooks asked to continue ${stopBlocks} times in a row; stopping anyway (cap ${cap}).` });
            return {};
          }
          stopBlocks++;
          if (stop.blocked) return { continueWith: `Stop hook feedback: ${stop.blockReason ?? ''}${stop.contexts.length ? `\n\n${reminder(stop.contexts).content}` : ''}` };
          return { continueWith: String(reminder(stop.contexts).content) };
        },
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
    if (outcome.reason === 'completed') this.hooks.emit('Notification', { message: 'Hookpilot finished its turn', title: 'Done', notification_type: 'agent_completed' });
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
    this.idle?.dispose();
    this.hookFailures.dispose();
    this.transcript.sync(this.messages);
    const dispatcher = this.options.dispatcher;
    await dispatcher.cancelAsync('the session ended', this.id);
    this.hooks.emit('SessionEnd', { reason });
    await dispatcher.drain(1_500);
    // SessionEnd's own async hooks had the drain to finish.
    await dispatcher.cancelAsync('the session ended', this.id);
    this.transcript.close();
    this.bashRunner?.dispose();
    this.events.fire({ type: 'session_ended', reason });
  }

  private async takeSteering(turn: number, step: number, signal: AbortSignal): Promise<SteeringResult> {
    let injected = false;
    while (this.queued.length > 0 && !signal.aborted) {
      const text = this.queued[0];
      const submit = await this.hooks.dispatch('UserPromptSubmit', { prompt: text }, signal);
      // Interrupted while its hooks ran: it stays queued, for the next prompt.
      if (signal.aborted) break;
      this.queued.shift();
      this.notices(submit.systemMessages, submit.warnings);
      // As for a prompt: `continue: false` stops the turn, a block keeps the message from the model.
      if (submit.stop) {
        this.events.fire({ type: 'steering_blocked', text, reason: submit.stop.reason ?? 'continue: false', hookName: submit.stop.hookName });
        return { injected, stop: submit.stop };
      }
      if (submit.blocked) {
        this.events.fire({ type: 'steering_blocked', text, reason: submit.blockReason ?? 'blocked by a hook', hookName: submit.blockingErrors[0]?.hookName });
        continue;
      }
      this.messages.push({ role: 'user', content: text });
      if (submit.contexts.length > 0) this.messages.push(reminder(submit.contexts));
      this.hooks.emit('SteeringInjected', { prompt: text, turn_index: turn, step });
      this.events.fire({ type: 'steering_injected', text });
      injected = true;
    }
    return { injected };
  }

  /** Read once per session, at its first prompt; each file loaded fires InstructionsLoaded. */
  private async instructions(): Promise<string> {
    if (this.instructionsText !== undefined) return this.instructionsText;
    this.instructionsText = '';
    if (this.options.projectInstructions === false) return '';
    const { loaded, skipped } = await loadProjectInstructions(this.options.workspaceRoot);
    for (const reason of skipped) this.events.fire({ type: 'notice', level: 'warning', message: `project instructions not loaded: ${reason}`, source: 'session' });
    for (const file of loaded) this.hooks.emit('InstructionsLoaded', { file_path: file.filePath, memory_type: 'Project', load_reason: 'session_start' });
    this.instructionsText = instructionsSection(loaded);
    return this.instructionsText;
  }

  private async refreshSystemPrompt(signal: AbortSignal): Promise<void> {
    const extra = [this.options.systemPrompt ?? '', await this.instructions()].filter((part) => part !== '').join('\n\n');
    const base = baseSystemPrompt({ workspaceRoot: this.options.workspaceRoot, tools: this.currentTools(), extra: extra || undefined });
    const result = await this.hooks.dispatch('SystemPrompt', { system_prompt: base }, signal);
    this.messages[0] = { role: 'system', content: withExtensions(base, result.contexts) };
  }

  /** The tools offered now; the executor's lookup follows, so a tool no longer listed cannot be called. */
  private currentTools(): readonly Tool[] {
    const tools = [...this.baseTools, ...this.extraToolsNow()];
    this.toolsByName.clear();
    for (const tool of tools) this.toolsByName.set(tool.name, tool);
    return tools;
  }

  private extraToolsNow(): readonly Tool[] {
    const extra = typeof this.options.extraTools === 'function' ? this.options.extraTools() : (this.options.extraTools ?? []);
    return extra.filter((t) => !this.withheld.has(t.name));
  }

  private notices(systemMessages: readonly string[], warnings: readonly string[]): void {
    for (const message of systemMessages) this.events.fire({ type: 'notice', level: 'info', message, source: 'hook' });
    for (const message of warnings) this.events.fire({ type: 'notice', level: 'warning', message, source: 'hook' });
  }
}

function emptyTurn(): Pick<TurnOutcome, 'toolCalls' | 'steps' | 'usage'> {
  return { toolCalls: [], steps: 0, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
}
