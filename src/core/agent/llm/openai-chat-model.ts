import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ChatModel, CompleteOptions, ModelRequest, ModelResponse } from './chat-model';
import { ChatRequestBody } from './chat-request-body';
import { ModelError } from './model-error';
import { untilAborted } from '../../until-aborted';
import { cancelled, modelAt, requestErrorToModelError, streamErrorToModelError, type ErrorContext } from './openai-error-mapping';
import { fetchWithReplyLimits, type Fetch } from './reply-limits';
import { StreamAssembler } from './stream-assembler';

export interface OpenAIChatModelOptions {
  /** An OpenAI-compatible endpoint, e.g. `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  /** Local servers usually need none; a placeholder is sent then. */
  apiKey?: string;
  /** Retries of 408/409/429/5xx and connection failures, with the SDK's backoff. Default 3. */
  maxRetries?: number;
  /** How long to wait for the response to start, and then for each next chunk. Default 10 min. */
  timeoutMs?: number;
  fetch?: Fetch;
  /** Where a reply's problem that does not fail the request is told (token usage that is not counted). */
  warn?: (message: string) => void;
}

const PLACEHOLDER_API_KEY = 'not-needed';
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

/** A ChatModel over the `openai` SDK's streaming chat completions. */
export class OpenAIChatModel implements ChatModel {
  private readonly client: OpenAI;
  private readonly context: ErrorContext;
  private readonly apiKey: string | undefined;
  private readonly body = new ChatRequestBody();
  private readonly warn: ((message: string) => void) | undefined;

  constructor(options: OpenAIChatModelOptions) {
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.apiKey = options.apiKey;
    this.warn = options.warn;
    this.context = { baseURL: options.baseURL, timeoutMs };
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey || PLACEHOLDER_API_KEY,
      maxRetries,
      timeout: timeoutMs,
      fetch: fetchWithReplyLimits(options.fetch),
      // Every failure reaches the caller as a ModelError; the SDK's own console output would be noise.
      logLevel: 'off',
    });
  }

  async complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse> {
    try {
      return await this.stream(request, options);
    } catch (error) {
      // Anything else came from the caller's own onTextDelta and is theirs to see unchanged.
      throw error instanceof ModelError ? this.redact(error) : error;
    }
  }

  private async stream(request: ModelRequest, { signal, onTextDelta }: CompleteOptions): Promise<ModelResponse> {
    if (signal.aborted) throw cancelled();
    const params: ChatCompletionCreateParamsStreaming = {
      model: request.model,
      messages: request.messages,
      stream: true,
      stream_options: { include_usage: true },
    };
    // An empty tools array is rejected by OpenAI itself.
    if (request.tools && request.tools.length > 0) params.tools = request.tools;
    if (request.temperature !== undefined) params.temperature = request.temperature;
    if (request.maxTokens !== undefined) params.max_tokens = request.maxTokens;

    // The SDK never removes its abort listener: give it a signal of its own per request, so a
    // long turn does not pile listeners onto the turn's signal.
    const request_ = new AbortController();
    const forward = () => request_.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    let stream;
    try {
      // The SDK's retry backoff ignores the signal; the race makes cancel immediate.
      // The SDK would serialize the whole conversation again; the body is sent as built here.
      const body = this.body.encode(params);
      const headers = { 'content-type': 'application/json' };
      stream = await untilAborted(this.client.chat.completions.create(params, { signal: request_.signal, body, headers }), signal, () =>
        cancelled(),
      );
    } catch (error) {
      signal.removeEventListener('abort', forward);
      throw requestErrorToModelError(error, this.context);
    }

    const assembler = new StreamAssembler((message) => this.warn?.(`${modelAt(this.context)}: ${message}`));
    let stalled = false;
    let callbackFailure: { error: unknown } | undefined;
    const idle = new IdleTimer(this.context.timeoutMs, () => {
      stalled = true;
      stream.controller.abort();
    });
    try {
      for await (const chunk of stream) {
        idle.reset();
        const text = assembler.add(chunk);
        if (text && onTextDelta) {
          try {
            onTextDelta(text);
          } catch (error) {
            callbackFailure = { error };
            break;
          }
        }
      }
    } catch (error) {
      throw signal.aborted ? cancelled(error) : streamErrorToModelError(error, this.context);
    } finally {
      idle.stop();
      signal.removeEventListener('abort', forward);
    }

    if (callbackFailure) throw callbackFailure.error;
    // The SDK ends the iteration quietly when its request is aborted.
    if (signal.aborted) throw cancelled();
    const at = modelAt(this.context);
    if (stalled) {
      throw new ModelError('stream_cut', `the response stream from ${at} stalled: nothing arrived for ${this.context.timeoutMs} ms`);
    }
    if (assembler.receivedChunks === 0) {
      throw new ModelError('malformed', `${at} answered without any stream events (does it support streaming chat completions?)`);
    }
    if (!assembler.finished) {
      throw new ModelError('stream_cut', `the response stream from ${at} ended before the answer was finished (no finish_reason)`);
    }
    return assembler.result();
  }

  private redact(error: ModelError): ModelError {
    const key = this.apiKey;
    if (!key || !error.message.includes(key)) return error;
    const message = error.message.split(key).join('[redacted]');
    return new ModelError(error.kind, message, error.status);
  }
}

/** Fires once when `reset` has not been called for `ms`. */
class IdleTimer {
  private timer: ReturnType<typeof setTimeout>;

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {
    this.timer = setTimeout(onIdle, ms);
  }

  reset(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onIdle, this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
