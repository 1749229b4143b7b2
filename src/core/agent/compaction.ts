import { formatTaggedContext, type DispatchResult } from '../hooks/dispatch-result';
import type { AgentEvent } from './agent-events';
import type { ChatMessage, ChatModel, ModelRequest, ModelResponse } from './llm/chat-model';
import { dispatchAfterLLM, dispatchBeforeLLM } from './llm-request-hooks';
import type { SessionEnvFile } from './session-env-file';
import type { SessionHooks } from './session-hooks';
import { showHookMessages } from './hook-notices';

/** Each message's JSON length, measured once: messages are appended, never changed in place. */
const messageChars = new WeakMap<ChatMessage, number>();

/** A rough token estimate (4 characters a token): enough to decide when to compact. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    let length = messageChars.get(m);
    if (length === undefined) messageChars.set(m, (length = JSON.stringify(m).length));
    chars += length;
  }
  return Math.ceil(chars / 4);
}

const KEEP_RECENT = 6;

/** The `step` of the summary request's BeforeLLM and AfterLLM: no step of the turn (those count from 1). */
export const COMPACTION_STEP = 0;

/**
 * Replaces old turns by a model-written summary once the context passes its budget,
 * around PreCompact (which may block it) and PostCompact.
 */
export class Compactor {
  constructor(
    private readonly model: ChatModel,
    private readonly modelName: string,
    readonly budgetTokens: number,
    private readonly emit: (e: AgentEvent) => void,
    /** The session's CLAUDE_ENV_FILE: SessionStart hooks after a compaction get one too. */
    private readonly envFile?: SessionEnvFile,
    /** Their watchPaths are the files FileChanged watches, as at the session's start. */
    private readonly onWatchPaths?: (paths: readonly string[]) => void,
  ) {}

  needsCompaction(messages: readonly ChatMessage[]): boolean {
    return estimateTokens(messages) > this.budgetTokens && messages.length > KEEP_RECENT + 2;
  }

  async compact(
    messages: ChatMessage[],
    hooks: SessionHooks,
    trigger: 'auto' | 'manual',
    signal: AbortSignal,
    instructions: string | null = null,
  ): Promise<boolean> {
    const [system, ...rest] = messages;
    let cut = rest.length - KEEP_RECENT;
    // Never separate a tool result from the assistant message that asked for it.
    while (cut > 0 && rest[cut]?.role === 'tool') cut--;
    // One old message (often the last summary) is not worth a summary of its own.
    if (cut < 2) return false;
    const pre = await hooks.dispatch(
      'PreCompact',
      { trigger, custom_instructions: instructions, message_count: messages.length, estimated_tokens: estimateTokens(messages) },
      signal,
    );
    showHookMessages(this.emit, pre.systemMessages, pre.warnings);
    if (pre.blocked) {
      this.emit({
        type: 'notice',
        level: 'warning',
        message: `compaction blocked by hook "${pre.blockingErrors[0]?.hookName}": ${pre.blockReason}`,
      });
      return false;
    }
    const old = rest.slice(0, cut);
    const summary = await this.summarize(old, instructions, hooks, signal);
    if (summary === undefined) return false;
    const before = messages.length;
    const summaryMessage: ChatMessage = {
      role: 'user',
      content: `<system-reminder>\nSummary of the earlier conversation (compacted):\n${summary}\n</system-reminder>`,
    };
    messages.splice(0, messages.length, system, summaryMessage, ...rest.slice(cut));
    // The transcript is rewritten on this event: the hooks below read the compacted one.
    this.emit({ type: 'compacted', messagesBefore: before, messagesAfter: messages.length, summary });
    hooks.emit('PostCompact', { trigger, compact_summary: summary, new_message_count: messages.length });
    // Claude Code: SessionStart again, source "compact"; what its hooks add follows the summary
    // (appended: the transcript already holds the messages before it).
    const dispatchStart = (env?: Readonly<Record<string, string>>) =>
      hooks.dispatch('SessionStart', { source: 'compact', model: this.modelName }, signal, env);
    const { result: start, problem } = this.envFile
      ? await this.envFile.capture('SessionStart compact', dispatchStart)
      : { result: await dispatchStart() };
    showHookMessages(this.emit, start.systemMessages, start.warnings);
    if (problem !== undefined) this.emit({ type: 'notice', level: 'warning', message: problem, source: 'SessionStart' });
    if (start.watchPaths) this.onWatchPaths?.(start.watchPaths);
    if (start.contexts.length > 0) {
      messages.push({
        role: 'user',
        content: `<system-reminder>\n${start.contexts.map(formatTaggedContext).join('\n')}\n</system-reminder>`,
      });
    }
    return true;
  }

  /**
   * The same compactor for a subagent, its events told to `emit` (its compaction is not the
   * session's). Without the session's CLAUDE_ENV_FILE and watch paths: SessionStart is no
   * subagent event, and capturing it would replace what the session's last compaction exported
   * with nothing.
   */
  reportingTo(emit: (e: AgentEvent) => void): Compactor {
    return new Compactor(this.model, this.modelName, this.budgetTokens, emit);
  }

  /**
   * The summary of `old`, asked of the model through BeforeLLM and AfterLLM as every model
   * request is; undefined when a hook halts either (then nothing is compacted).
   */
  private async summarize(
    old: ChatMessage[],
    instructions: string | null,
    hooks: SessionHooks,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const transcript = old
      .map(
        (m) =>
          `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ('tool_calls' in m ? m.tool_calls : ''))}`,
      )
      .join('\n');
    const request: ModelRequest = {
      model: this.modelName,
      messages: [
        {
          role: 'system',
          content:
            "You compact coding-agent conversations. Summarize the conversation below: the user's goals, decisions, files touched, commands run and their results, and what is still to do. Be factual and brief.",
        },
        { role: 'user', content: `${instructions ? `Focus: ${instructions}\n\n` : ''}${transcript.slice(-200_000)}` },
      ],
    };
    const before = await dispatchBeforeLLM(hooks, COMPACTION_STEP, request, signal);
    if (this.halted(before.result)) return undefined;
    let response: ModelResponse | undefined;
    try {
      response = await this.model.complete(before.request, { signal });
    } catch (err) {
      if (signal.aborted) throw err;
    }
    if (response) {
      const after = await dispatchAfterLLM(hooks, COMPACTION_STEP, response, signal);
      if (this.halted(after.result)) return undefined;
      for (const message of after.result.warnings) this.emit({ type: 'notice', level: 'warning', message, source: 'AfterLLM' });
      if (after.response.content.trim() !== '') return after.response.content.trim();
    }
    // Without a model summary, keep a mechanical one rather than lose the context entirely.
    return old
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => `${m.role}: ${String(m.content ?? '').slice(0, 300)}`)
      .join('\n')
      .slice(0, 8_000);
  }

  /** A block, abort or stop of the summary request or its reply: a warning, and no compaction. */
  private halted(result: DispatchResult): boolean {
    const halt =
      result.abort ??
      result.stop ??
      (result.blocked ? { hookName: result.blockingErrors[0]?.hookName, reason: result.blockReason } : undefined);
    if (!halt) return false;
    this.emit({
      type: 'notice',
      level: 'warning',
      message: `compaction blocked by ${result.event} hook "${halt.hookName}": ${halt.reason ?? ''}`,
    });
    return true;
  }
}
