import type { AgentEvent } from '../core/agent/agent-events';
import type { ChatMessage } from '../core/agent/llm/chat-model';
import { isTypedPrompt, messageText, toolOutcomeOf } from '../core/replay/transcript-text';

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A resumed chat's transcript as the agent events that would have drawn it: typed
 * prompts, answers and tool cards (hook annotations and timings are not in a transcript).
 */
export function replayTranscript(messages: readonly ChatMessage[]): AgentEvent[] {
  const events: AgentEvent[] = [];
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  let turn = 0;
  for (const message of messages) {
    if (message.role === 'user') {
      if (isTypedPrompt(message)) events.push({ type: 'turn_started', turn: turn++, prompt: messageText(message) });
    } else if (message.role === 'assistant') {
      const text = messageText(message);
      if (text.trim() !== '') events.push({ type: 'assistant_message', content: text, toolCalls: [] });
      for (const call of message.tool_calls ?? []) {
        if (call.type !== 'function') continue;
        const input = parseArguments(call.function.arguments);
        calls.set(call.id, { name: call.function.name, input });
        events.push({ type: 'tool_started', id: call.id, name: call.function.name, input });
      }
    } else if (message.role === 'tool') {
      const call = calls.get(message.tool_call_id);
      if (!call) continue;
      const output = messageText(message);
      events.push({
        type: 'tool_finished',
        id: message.tool_call_id,
        name: call.name,
        input: call.input,
        outcome: toolOutcomeOf(output),
        output,
        hooks: [],
        durationMs: 0,
      });
    }
  }
  return events;
}
