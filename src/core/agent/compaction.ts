import { formatTaggedContext } from '../hooks/dispatch-result';
import type { AgentEvent } from './agent-events';
import type { ChatMessage, ChatModel } from './llm/chat-model';
import type { SessionEnvFile } from './session-env-file';
import type { SessionHooks } from './session-hooks';

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
    if (pre.blocked) {
      this.emit({
        type: 'notice',
        level: 'warning',
        message: `compaction blocked by hook "${pre.blockingErrors[0]?.hookName}": ${pre.blockReason}`,
      });
      return false;
    }
    const old = rest.slice(0, cut);
    const summary = await this.summarize(old, instructions, signal);
    const before = messages.length;
    const summaryMessage: ChatMessage = {
      role: 'user',
      content: `<system-reminder>\nSummary of the earlier conversation (compacted):\n${summary}\n</system-reminder>`,
    };
    messages.splice(0, messages.length, system, summaryMessage, ...rest.slice(cut));
    hooks.emit('PostCompact', { trigger, compact_summary: summary, new_message_count: messages.length });
    // Claude Code: SessionStart again, source "compact"; what its hooks add follows the summary.
    const dispatchStart = (env?: Readonly<Record<string, string>>) =>
      hooks.dispatch('SessionStart', { source: 'compact', model: this.modelName }, signal, env);
    const { result: start, problem } = this.envFile ? await this.envFile.capture(dispatchStart) : { result: await dispatchStart() };
    if (problem !== undefined) this.emit({ type: 'notice', level: 'warning', message: problem, source: 'SessionStart' });
    if (start.watchPaths) this.onWatchPaths?.(start.watchPaths);
    if (start.contexts.length > 0) {
      messages.splice(2, 0, {
        role: 'user',
        content: `<system-reminder>\n${start.contexts.map(formatTaggedContext).join('\n')}\n</system-reminder>`,
      });
    }
    this.emit({ type: 'compacted', messagesBefore: before, messagesAfter: messages.length, summary });
    return true;
  }

  private async summarize(old: ChatMessage[], instructions: string | null, signal: AbortSignal): Promise<string> {
    const transcript = old
      .map(
        (m) =>
          `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ('tool_calls' in m ? m.tool_calls : ''))}`,
      )
      .join('\n');
    try {
      const response = await this.model.complete(
        {
          model: this.modelName,
          messages: [
            {
              role: 'system',
              content:
                "You compact coding-agent conversations. Summarize the conversation below: the user's goals, decisions, files touched, commands run and their results, and what is still to do. Be factual and brief.",
            },
            { role: 'user', content: `${instructions ? `Focus: ${instructions}\n\n` : ''}${transcript.slice(-200_000)}` },
          ],
        },
        { signal },
      );
      if (response.content.trim() !== '') return response.content.trim();
    } catch (err) {
      if (signal.aborted) throw err;
    }
    // Without a model summary, keep a mechanical one rather than lose the context entirely.
    return old
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => `${m.role}: ${String(m.content ?? '').slice(0, 300)}`)
      .join('\n')
      .slice(0, 8_000);
  }
}
