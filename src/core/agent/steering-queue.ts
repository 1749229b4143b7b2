import type { AgentEvent } from './agent-events';
import type { ChatMessage } from './llm/chat-model';
import type { SessionHooks } from './session-hooks';
import { reminder, type SteeringResult } from './turn-loop';

export interface SteeringQueueDeps {
  hooks: SessionHooks;
  /** The conversation steering messages are added to. */
  messages: ChatMessage[];
  emit: (event: AgentEvent) => void;
  /** Shows a dispatch's system messages and warnings to the user. */
  notices: (systemMessages: readonly string[], warnings: readonly string[]) => void;
}

/**
 * Messages the user sent while a turn ran (steering, docs/design.md#subagents-steering-and-async-hooks),
 * in order, not yet given to the model: each reaches it at the next step through the
 * UserPromptSubmit hooks; what still waits when the turn ends is the next prompt.
 */
export class SteeringQueue {
  private readonly queued: string[] = [];

  constructor(private readonly deps: SteeringQueueDeps) {}

  push(text: string): void {
    this.queued.push(text);
  }

  get size(): number {
    return this.queued.length;
  }

  /** The waiting messages, taken back unsent (the turn was interrupted). */
  takeAll(): string[] {
    return this.queued.splice(0);
  }

  /** The messages still waiting after turn `turnIndex`, as the next prompt (FollowUpQueued fires). */
  takeFollowUp(turnIndex: number): string | undefined {
    if (this.queued.length === 0) return undefined;
    const messages = this.takeAll();
    const prompt = messages.join('\n\n');
    this.deps.hooks.emit('FollowUpQueued', { prompt, turn_index: turnIndex, messages: messages.length });
    return prompt;
  }

  /** Adds the waiting messages to the conversation at this step, each through UserPromptSubmit, then SteeringInjected. */
  async inject(turn: number, step: number, signal: AbortSignal): Promise<SteeringResult> {
    const { hooks, messages, emit } = this.deps;
    let injected = false;
    while (this.queued.length > 0 && !signal.aborted) {
      const text = this.queued[0];
      const submit = await hooks.dispatch('UserPromptSubmit', { prompt: text }, signal);
      // Interrupted while its hooks ran: it stays queued, for the next prompt.
      if (signal.aborted) break;
      this.queued.shift();
      this.deps.notices(submit.systemMessages, submit.warnings);
      // As for a prompt: `continue: false` stops the turn, a block keeps the message from the model.
      if (submit.stop) {
        emit({ type: 'steering_blocked', text, reason: submit.stop.reason ?? 'continue: false', hookName: submit.stop.hookName });
        return { injected, stop: submit.stop };
      }
      if (submit.blocked) {
        emit({
          type: 'steering_blocked',
          text,
          reason: submit.blockReason ?? 'blocked by a hook',
          hookName: submit.blockingErrors[0]?.hookName,
        });
        continue;
      }
      messages.push({ role: 'user', content: text });
      if (submit.contexts.length > 0) messages.push(reminder(submit.contexts));
      hooks.emit('SteeringInjected', { prompt: text, turn_index: turn, step });
      emit({ type: 'steering_injected', text });
      injected = true;
    }
    return { injected };
  }
}
