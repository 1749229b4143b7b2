import type { ChatMessage, ChatModel, CompleteOptions, ModelRequest, ModelResponse } from './chat-model';

/** The host's secret registry, as the model boundary uses it (the engine's `Redactor`). */
export interface ModelRedactor {
  redactForModel<T>(value: T): T;
  /** Grows when a secret value is registered; while it stays, a message redacts the same way. */
  readonly secretValueCount?: number;
  /** Drops the start of a secret value left at the end of a text cut at a size cap. */
  withoutSecretStartAtEnd?(text: string): string;
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
  /** Each message's redacted form, until a new secret value is registered. */
  private redacted = new WeakMap<ChatMessage, ChatMessage>();
  private redactedTools = new WeakMap<NonNullable<ModelRequest['tools']>, NonNullable<ModelRequest['tools']>>();
  private redactedWith: number | undefined;

  constructor(
    private readonly inner: ChatModel,
    private readonly redactor: ModelRedactor,
  ) {}

  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse> {
    const { messages, tools } = request;
    return this.inner.complete({ ...request, messages: this.redactMessages(messages), tools: tools && this.redactTools(tools) }, options);
  }

  /** The tools list is the same object while the tools stay the same: redacted once for it. */
  private redactTools(tools: NonNullable<ModelRequest['tools']>): NonNullable<ModelRequest['tools']> {
    if (this.redactor.secretValueCount === undefined) return this.redactor.redactForModel(tools);
    this.forgetOnNewSecret();
    let redacted = this.redactedTools.get(tools);
    if (redacted === undefined) this.redactedTools.set(tools, (redacted = this.redactor.redactForModel(tools)));
    return redacted;
  }

  /** A secret value registered since: every message and list redacts anew. */
  private forgetOnNewSecret(): void {
    const count = this.redactor.secretValueCount;
    if (count === this.redactedWith) return;
    this.redacted = new WeakMap();
    this.redactedTools = new WeakMap();
    this.redactedWith = count;
  }

  /**
   * A conversation's messages are appended, never changed in place: each is scanned once
   * (not the whole history every step) until a new secret value means scanning them all again.
   */
  private redactMessages(messages: ChatMessage[]): ChatMessage[] {
    if (this.redactor.secretValueCount === undefined) return this.redactor.redactForModel(messages);
    this.forgetOnNewSecret();
    let changed = false;
    const out = messages.map((message) => {
      let redacted = this.redacted.get(message);
      if (redacted === undefined) this.redacted.set(message, (redacted = this.redactor.redactForModel(message)));
      changed ||= redacted !== message;
      return redacted;
    });
    return changed ? out : messages;
  }
}
