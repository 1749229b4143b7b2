import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { TokenUsage } from './token-usage';

/** A chat message in the OpenAI wire shape: system, user, assistant (with tool_calls) or tool. */
export type ChatMessage = ChatCompletionMessageParam;
export type ChatTool = ChatCompletionTool;

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  temperature?: number;
  maxTokens?: number;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  /** The arguments exactly as the model sent them. */
  argumentsText: string;
  /** Present when `argumentsText` parsed to a JSON object (an empty text counts as `{}`). */
  arguments?: Record<string, unknown>;
  /** Present instead of `arguments` when the model sent malformed JSON or a non-object. */
  argumentsError?: string;
}

export type { TokenUsage };

export interface ModelResponse {
  content: string;
  toolCalls: ToolCallRequest[];
  finishReason: string | null;
  usage?: TokenUsage;
}

export interface CompleteOptions {
  signal: AbortSignal;
  /** Called with each piece of assistant text as it streams in. */
  onTextDelta?: (delta: string) => void;
}

/** What the agent loop needs from a model: one streamed completion, or a ModelError. */
export interface ChatModel {
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse>;
}
