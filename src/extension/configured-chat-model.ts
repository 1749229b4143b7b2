import type { ChatModel, CompleteOptions, ModelRequest, ModelResponse } from '../core/agent/llm/chat-model';
import { ModelError } from '../core/agent/llm/model-error';
import { OpenAIChatModel } from '../core/agent/llm/openai-chat-model';
import type { EndpointResolution } from './hookpilot-config';

/**
 * The model as the settings say right now: every request resolves the endpoint again, so
 * "Select Model" or a new API key applies to the running chat's next request. The
 * session's own model name stands for "the configured model"; a name a BeforeLLM hook
 * wrote into the request is kept.
 */
export class ConfiguredChatModel implements ChatModel {
  private client: { key: string; model: OpenAIChatModel } | undefined;

  constructor(
    private readonly resolve: () => EndpointResolution,
    private readonly sessionModelName: string,
    /** The output channel: a reply's problem that does not fail it (token usage that is not counted). */
    private readonly warn: (message: string) => void,
  ) {}

  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse> {
    const resolution = this.resolve();
    if (!resolution.ok) return Promise.reject(new ModelError('auth', resolution.problem));
    const { baseURL, apiKey, model } = resolution.endpoint;
    const key = JSON.stringify([baseURL, apiKey ?? '']);
    if (this.client?.key !== key) this.client = { key, model: new OpenAIChatModel({ baseURL, apiKey, warn: this.warn }) };
    return this.client.model.complete({ ...request, model: request.model === this.sessionModelName ? model : request.model }, options);
  }
}
