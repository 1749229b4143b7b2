import { formatTaggedContext, type DispatchResult, type TaggedContext } from '../hooks/dispatch-result';
import type { StopFailureError } from '../hooks/payloads';
import type { AgentEvent, TurnEndReason } from './agent-events';
import type { Compactor } from './compaction';
import { estimateTokens } from './compaction';
import type { ChatMessage, ChatModel, ModelRequest, ModelResponse, TokenUsage, ToolCallRequest } from './llm/chat-model';
import { ModelError } from './llm/model-error';
import type { SessionHooks } from './session-hooks';
import { CANCELLED_BEFORE_RUN } from './tool-call-outcome';
import type { ToolCallOutcome, ToolExecutor } from './tool-executor';
import type { Tool } from './tools/tool';
import { toolDefinitions } from './tools/tool-definitions';
import { errorMessage } from '../error-message';
import { withUniqueCallIds } from './llm/unique-call-ids';
import { dispatchAfterLLM, dispatchBeforeLLM } from './llm-request-hooks';
import { showHookMessages } from './hook-notices';

export interface TurnOutcome {
  reason: TurnEndReason;
  result: string;
  error?: string;
  /** A hook ended the session (`continue: false`). */
  stopSession?: { reason?: string; hookName: string };
  /** The hook that aborted the turn (reason `aborted`); a hard abort also sets stopSession. */
  abort?: ToolCallOutcome['abort'];
  toolCalls: ToolCallOutcome[];
  steps: number;
  usage: TokenUsage;
}

/** What the user said while the turn ran: whether any reached the conversation, or a hook's stop. */
export interface SteeringResult {
  injected: boolean;
  stop?: { reason?: string; hookName: string };
}

/** What to do when the model answers without tool calls: finish, or continue with a message. */
export type FinalAnswerHandler = (
  answer: string,
  signal: AbortSignal,
  /** Tool calls the turn has run so far. */
  toolCallsSoFar: number,
) => Promise<{ continueWith?: string; stop?: { reason?: string; hookName: string } }>;

export interface TurnLoopDeps {
  model: ChatModel;
  modelName: string;
  hooks: SessionHooks;
  /** Asked before each model request: MCP servers' tool lists may change mid-turn. */
  tools: () => readonly Tool[];
  executor: ToolExecutor;
  compactor: Compactor;
  emit: (event: AgentEvent) => void;
  maxSteps: number;
  onFinalAnswer: FinalAnswerHandler;
  /** Adds the messages the user sent since the last step. */
  takeSteering?: (step: number, signal: AbortSignal) => Promise<SteeringResult>;
  /** Writes the messages added so far to the transcript (a crash then loses at most the step in flight). */
  persist?: () => void;
}

/**
 * The ReAct loop of one turn: BeforeLLM, the model, AfterLLM, the tool calls, StepComplete,
 * and the final answer, with compaction when the context passes its budget.
 */
export async function runTurnLoop(messages: ChatMessage[], deps: TurnLoopDeps, signal: AbortSignal): Promise<TurnOutcome> {
  const toolCalls: ToolCallOutcome[] = [];
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  const done = (reason: TurnEndReason, result: string, extra: Partial<TurnOutcome> = {}): TurnOutcome => ({
    reason,
    result,
    toolCalls,
    steps: step,
    usage,
    ...extra,
  });
  let step = 0;
  let lastText = '';
  while (step < deps.maxSteps) {
    if (signal.aborted) return done('cancelled', lastText);
    step++;
    const asyncContexts = deps.hooks.takeAsyncContexts();
    if (asyncContexts.length > 0) messages.push(reminder(asyncContexts));
    const steering = await deps.takeSteering?.(step, signal);
    if (steering?.stop) return done('stopped', lastText, { stopSession: steering.stop });
    if (deps.compactor.needsCompaction(messages)) await deps.compactor.compact(messages, deps.hooks, 'auto', signal);

    deps.persist?.();
    const toolDefs = toolDefinitions(deps.tools());
    let request: ModelRequest = { model: deps.modelName, messages, tools: toolDefs.length > 0 ? toolDefs : undefined };
    const before = await dispatchBeforeLLM(deps.hooks, step, request, signal);
    const beforeHalt = modelHookHalt(before.result);
    if (beforeHalt) return done(beforeHalt.reason, lastText, beforeHalt.outcome);
    request = before.request;

    let response: ModelResponse;
    try {
      response = await deps.model.complete(request, { signal, onTextDelta: (text) => deps.emit({ type: 'text_delta', text }) });
    } catch (err) {
      if (signal.aborted) return done('cancelled', lastText);
      const message = errorMessage(err);
      deps.hooks.emit('Error', { error_type: 'model', error: message, recoverable: true });
      // Claude Code: StopFailure instead of Stop, its last_assistant_message the error text.
      deps.hooks.emit('StopFailure', { error: stopFailureError(err), error_details: message, last_assistant_message: message });
      return done('error', lastText, { error: message });
    }
    if (response.usage) {
      usage.promptTokens += response.usage.promptTokens;
      usage.completionTokens += response.usage.completionTokens;
      usage.totalTokens += response.usage.totalTokens;
      deps.emit({ type: 'usage', ...response.usage });
    }
    // AfterLLM hooks see the ids the calls will run under; a rewrite may repeat one again.
    response = withUniqueCallIds(response);
    const after = await dispatchAfterLLM(deps.hooks, step, response, signal);
    const afterHalt = modelHookHalt(after.result);
    if (afterHalt) return done(afterHalt.reason, lastText, afterHalt.outcome);
    response = withUniqueCallIds(after.response);
    for (const w of after.result.warnings) deps.emit({ type: 'notice', level: 'warning', message: w, source: 'AfterLLM' });

    lastText = response.content || lastText;
    messages.push(assistantMessage(response));
    deps.persist?.();
    deps.emit({
      type: 'assistant_message',
      content: response.content,
      toolCalls: response.toolCalls.map((c) => ({ id: c.id, name: c.name, input: c.arguments ?? c.argumentsText })),
    });
    const afterContexts = after.result.contexts;

    if (response.toolCalls.length > 0) {
      const outcomes = await executeCalls(response.toolCalls, deps, signal);
      toolCalls.push(...outcomes);
      for (const o of outcomes) messages.push({ role: 'tool', tool_call_id: o.id, content: o.content });
      const calls = outcomes.map((o) => ({ tool_name: o.name, tool_input: o.input, tool_use_id: o.id, tool_response: o.content }));
      const batch = await deps.hooks.dispatch('PostToolBatch', { step, tool_calls: calls }, signal);
      showHookMessages(deps.emit, batch.systemMessages, batch.warnings);
      const stepContexts = [...afterContexts, ...batch.contexts];
      if (stepContexts.length > 0) messages.push(reminder(stepContexts));
      deps.persist?.();
      deps.hooks.emit('StepComplete', {
        step,
        max_steps: deps.maxSteps,
        messages_count: messages.length,
        estimated_tokens: estimateTokens(messages),
        token_limit: deps.compactor.budgetTokens,
        tool_calls: outcomes.length,
      });
      const stop = outcomes.find((o) => o.stop)?.stop ?? batch.stop;
      if (stop) return done('stopped', lastText, { stopSession: stop });
      // A PostToolBatch block stops the loop before the next model call (Claude Code).
      if (batch.blocked)
        return done('blocked', lastText, {
          error: `PostToolBatch hook "${batch.blockingErrors[0]?.hookName ?? 'hook'}" stopped the turn: ${batch.blockReason ?? ''}`,
        });
      const abort = outcomes.find((o) => o.abort)?.abort;
      if (abort)
        return done('aborted', lastText, {
          error: `hook "${abort.hookName}" aborted the turn: ${abort.reason ?? 'abort'}`,
          stopSession: hardAbortStop(abort),
          abort,
        });
      if (signal.aborted) return done('cancelled', lastText);
      continue;
    }

    deps.hooks.emit('StepComplete', {
      step,
      max_steps: deps.maxSteps,
      messages_count: messages.length,
      estimated_tokens: estimateTokens(messages),
      token_limit: deps.compactor.budgetTokens,
      tool_calls: 0,
    });
    if (afterContexts.length > 0) {
      // An AfterLLM hook has something to tell the model about this answer: let it respond.
      messages.push(reminder(afterContexts));
      continue;
    }
    // The user said more while this answer was written: the model hears it before the turn can end.
    const late = await deps.takeSteering?.(step, signal);
    if (late?.stop) return done('stopped', response.content, { stopSession: late.stop });
    if (late?.injected) continue;
    const final = await deps.onFinalAnswer(response.content, signal, toolCalls.length);
    if (final.stop) return done('stopped', response.content, { stopSession: final.stop });
    if (final.continueWith === undefined) return done('completed', response.content);
    messages.push({ role: 'user', content: final.continueWith });
  }
  return done('max_steps', lastText, { error: `stopped after ${deps.maxSteps} steps (--max-steps)` });
}

/**
 * How a BeforeLLM or AfterLLM dispatch ends the turn, if it does: an abort or a block aborts it
 * (a hard abort ends the session too), `continue: false` stops it.
 */
function modelHookHalt(result: DispatchResult): { reason: TurnEndReason; outcome: Partial<TurnOutcome> } | undefined {
  if (result.abort || result.blocked) {
    // A block aborts the turn as `abort: "turn"` does.
    const abort: NonNullable<DispatchResult['abort']> = result.abort ?? {
      kind: 'turn',
      hookName: result.blockingErrors[0]?.hookName ?? 'hook',
      reason: result.blockReason,
    };
    const error = `${result.event} hook "${abort.hookName}" aborted the turn: ${abort.reason ?? result.blockReason ?? ''}`;
    return { reason: 'aborted', outcome: { error, stopSession: hardAbortStop(abort), abort } };
  }
  if (result.stop) return { reason: 'stopped', outcome: { stopSession: result.stop } };
  return undefined;
}

/** A hard abort ends the session as well as the turn. */
function hardAbortStop(abort: NonNullable<DispatchResult['abort']>): TurnOutcome['stopSession'] {
  return abort.kind === 'hard' ? { reason: abort.reason, hookName: abort.hookName } : undefined;
}

/**
 * Read-only calls run at most this many at once: each may start its own hook processes, and
 * the model picks how many calls a reply holds.
 */
export const MAX_PARALLEL_READS = 8;

/**
 * Read-only calls run together (MAX_PARALLEL_READS at a time); anything that edits or
 * executes runs alone, in order. Once a hook stops the turn, or the user cancels it, the
 * calls after it are not run, but each still gets its tool message.
 */
async function executeCalls(calls: ToolCallRequest[], deps: TurnLoopDeps, signal: AbortSignal): Promise<ToolCallOutcome[]> {
  const seen = new Set<string>();
  const byName = new Map(deps.tools().map((t) => [t.name, t]));
  const outcomes: ToolCallOutcome[] = [];
  // A cancel, a `continue: false` or an `abort` ends the turn: the calls after it do not run.
  const haltReason = (running: readonly ToolCallOutcome[] = []): string | undefined => {
    if (signal.aborted) return CANCELLED_BEFORE_RUN;
    const stop = [...outcomes, ...running].map((o) => o.stop ?? o.abort).find((halt) => halt !== undefined);
    return stop && `hook "${stop.hookName}" stopped the turn before this call ran${stop.reason ? ` (${stop.reason})` : ''}.`;
  };
  let batch: ToolCallRequest[] = [];
  const flush = async () => {
    const done: ToolCallOutcome[] = [];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < batch.length; i = next++) {
        // A call still waiting for a worker when an earlier one stopped the turn does not run.
        const halt = haltReason(done.filter((o) => o !== undefined));
        done[i] = halt === undefined ? await deps.executor.execute(batch[i], signal, seen) : deps.executor.skip(batch[i], halt);
      }
    };
    await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_READS, batch.length) }, worker));
    outcomes.push(...done);
    batch = [];
  };
  for (const call of calls) {
    if (byName.get(call.name)?.category === 'read' && haltReason() === undefined) {
      batch.push(call);
      continue;
    }
    await flush();
    const halt = haltReason();
    outcomes.push(halt === undefined ? await deps.executor.execute(call, signal, seen) : deps.executor.skip(call, halt));
  }
  await flush();
  return outcomes;
}

function assistantMessage(response: ModelResponse): ChatMessage {
  if (response.toolCalls.length === 0) return { role: 'assistant', content: response.content };
  return {
    role: 'assistant',
    content: response.content || null,
    tool_calls: response.toolCalls.map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: c.argumentsText },
    })),
  };
}

/** Claude Code's StopFailure `error` for a failed model request. */
export function stopFailureError(err: unknown): StopFailureError {
  if (!(err instanceof ModelError)) return 'unknown';
  switch (err.kind) {
    case 'auth':
      return err.status === 402 ? 'billing_error' : 'authentication_failed';
    case 'rate_limit':
      return 'rate_limit';
    case 'server':
      return err.status === 529 ? 'overloaded' : 'server_error';
    case 'bad_request':
      return err.status === 404 ? 'model_not_found' : 'invalid_request';
    default:
      return 'unknown';
  }
}

export function reminder(contexts: readonly TaggedContext[]): ChatMessage {
  return { role: 'user', content: `<system-reminder>\n${contexts.map(formatTaggedContext).join('\n')}\n</system-reminder>` };
}
