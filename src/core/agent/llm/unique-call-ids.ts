import type { ModelResponse } from './chat-model';

/**
 * One id per call of a reply: a repeated or empty id gets a suffix (`dup`, `dup_2`). The
 * agent loop renames so, and a recording of an older session is read the same way.
 */
export function uniqueCallIds(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  return ids.map((original, index) => {
    let id = original === '' ? `call_${index}` : original;
    for (let n = 2; seen.has(id); n++) id = `${original || 'call'}_${n}`;
    seen.add(id);
    return id;
  });
}

/**
 * The reply with one id per tool call. Approvals, cards and tool results are keyed by the
 * call's id; two calls of one reply under one id (a model's slip, or a model's trick) would
 * let an answer meant for one land on the other. The assistant message and tool results then
 * agree on the new ids.
 */
export function withUniqueCallIds(response: ModelResponse): ModelResponse {
  const ids = uniqueCallIds(response.toolCalls.map((call) => call.id));
  if (ids.every((id, i) => id === response.toolCalls[i].id)) return response;
  return { ...response, toolCalls: response.toolCalls.map((call, i) => (ids[i] === call.id ? call : { ...call, id: ids[i] })) };
}
