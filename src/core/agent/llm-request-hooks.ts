import type { DispatchResult } from '../hooks/dispatch-result';
import type { ChatMessage, ModelRequest, ModelResponse, ToolCallRequest } from './llm/chat-model';
import type { SessionHooks } from './session-hooks';

/**
 * BeforeLLM for one model request: its dispatch, and the request as its hooks rewrote it.
 * The caller decides what a block, abort or stop in the dispatch means.
 */
export async function dispatchBeforeLLM(
  hooks: SessionHooks,
  step: number,
  request: ModelRequest,
  signal: AbortSignal,
): Promise<{ result: DispatchResult; request: ModelRequest }> {
  const result = await hooks.dispatch(
    'BeforeLLM',
    { step, llm_request: { model: request.model, messages: request.messages, tools: request.tools } },
    signal,
  );
  return { result, request: result.llmRequest ? applyRequestRewrite(request, result.llmRequest) : request };
}

/**
 * AfterLLM for one model response: its dispatch, and the response as its hooks rewrote it.
 * The caller decides what a block, abort or stop in the dispatch means.
 */
export async function dispatchAfterLLM(
  hooks: SessionHooks,
  step: number,
  response: ModelResponse,
  signal: AbortSignal,
): Promise<{ result: DispatchResult; response: ModelResponse }> {
  const result = await hooks.dispatch(
    'AfterLLM',
    {
      step,
      llm_response: {
        content: response.content,
        tool_calls: response.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments ?? c.argumentsText })),
        finish_reason: response.finishReason,
      },
    },
    signal,
  );
  return { result, response: result.llmResponse ? applyResponseRewrite(response, result.llmResponse) : response };
}

/** `modify` on BeforeLLM (PicoClaw's): a hook may replace messages, model, tools or sampling. */
function applyRequestRewrite(request: ModelRequest, rewrite: Record<string, unknown>): ModelRequest {
  const next = { ...request };
  if (typeof rewrite.model === 'string') next.model = rewrite.model;
  if (Array.isArray(rewrite.messages)) next.messages = rewrite.messages as ChatMessage[];
  if (Array.isArray(rewrite.tools)) next.tools = rewrite.tools as ModelRequest['tools'];
  if (typeof rewrite.temperature === 'number') next.temperature = rewrite.temperature;
  return next;
}
/** `modify` on AfterLLM (PicoClaw's): a hook may replace the text or drop/replace tool calls. */
function applyResponseRewrite(response: ModelResponse, rewrite: Record<string, unknown>): ModelResponse {
  const next = { ...response };
  if (typeof rewrite.content === 'string') next.content = rewrite.content;
  if (Array.isArray(rewrite.tool_calls)) {
    next.toolCalls = rewrite.tool_calls.flatMap((c, i): ToolCallRequest[] => {
      if (!c || typeof c !== 'object') return [];
      const call = c as { id?: unknown; name?: unknown; arguments?: unknown };
      if (typeof call.name !== 'string') return [];
      const args = call.arguments && typeof call.arguments === 'object' ? (call.arguments as Record<string, unknown>) : {};
      return [
        {
          id: typeof call.id === 'string' ? call.id : `hook_call_${i}`,
          name: call.name,
          argumentsText: JSON.stringify(args),
          arguments: args,
        },
      ];
    });
  }
  return next;
}
