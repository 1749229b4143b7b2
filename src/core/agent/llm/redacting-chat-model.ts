import type { ChatModel, CompleteOptions, ModelRequest, ModelResponse } from './chat-model';

/** The host's secret registry, as the model boundary uses it (the engine's `Redactor`). */
export interface ModelRedactor {
  redactForModel<T>(value: T): T;
}

/**
 * The model is the boundary secrets must not cross: every request leaves with the known
 * secret values and token shapes removed from its messages and tools, whatever put them there
 * (a tool result, a hook's context or reason, a BeforeLLM rewrite, a compaction, a resumed
 * transcript).
 * Redacting here rather than where each message is made leaves no path around it, and values
 * registered later (a `.env` read at reload) are removed from earlier messages too.
 */
export class RedactingChatModel implements ChatModel {
  constructor(
    private readonly inner: ChatModel,
    private readonly redactor: ModelRedactor,
  ) {}

  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse> {
    const { messages, tools } = request;
    return this.inner.complete({ ...request, messages: this.redactor.redactForModel(messages), tools: tools && this.redactor.redactForModel(tools) }, options);
  }
}
