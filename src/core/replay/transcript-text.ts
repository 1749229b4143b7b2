import type { ToolOutcome } from '../agent/agent-events';
import type { ChatMessage } from '../agent/llm/chat-model';

/** The text of a message, whether its content is a string or a list of parts. */
export function messageText(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const textOf = (part: unknown) =>
    typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '';
  return content.map(textOf).join('');
}

/**
 * A prompt the person typed: not a reminder the agent injected as a user message, nor a Stop
 * hook's feedback that kept the turn going.
 */
export function isTypedPrompt(message: ChatMessage): boolean {
  if (message.role !== 'user') return false;
  const text = messageText(message);
  return !text.startsWith('<system-reminder>') && !text.startsWith('Stop hook feedback: ');
}

/** The transcript keeps only what the model saw; a call's outcome is read back from the tool message's wording. */
export function toolOutcomeOf(content: string): ToolOutcome {
  if (content.startsWith('Permission denied')) return 'denied';
  if (content.startsWith('Stopped by hook') || /^PreToolUse hook ".*" blocked this call/.test(content)) return 'blocked';
  if (content.startsWith('Not run: ')) return 'skipped';
  if (content.startsWith('Error:')) return 'failed';
  return 'executed';
}
