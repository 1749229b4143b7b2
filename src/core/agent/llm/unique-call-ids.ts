import type { ModelResponse } from './chat-model';

/**
 * The reply with one id per tool call. Approvals, cards and tool results are keyed by the
 * call's id; two calls of one reply under one id (a model's slip, or a model's trick) would
 * let an answer meant for one land on the other. A repeated or empty id gets a suffix, and
 * the assistant message and tool results then agree on the new one.
 */
export function withUniqueCallIds(response: ModelResponse): ModelResponse {
  const seen = new Set<string>();
  let renamed = false;
  const toolCalls = response.toolCalls.map((call, index) => {
    let id = call.id === '' ? `call_${index}` : call.id;
    for (let n = 2; seen.has(id); n++) id = `${call.id || 'call'}_${n}`;
    seen.add(id);
    if (id === call.id) return call;
    renamed = true;
    return { ...call, id };
  });
  return renamed ? { ...response, toolCalls } : response;
}
