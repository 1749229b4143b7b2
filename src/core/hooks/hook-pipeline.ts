import type { DispatchResult } from './dispatch-result';
import type { HookDefinition, HookPayload } from './types';

/**
 * An event's hooks in the groups they run in: consecutive hooks of one priority and kind
 * (in-process or not) run in parallel; groups run one after another.
 */
export function groupByOrder(hooks: readonly HookDefinition[]): HookDefinition[][] {
  const groups: HookDefinition[][] = [];
  let previous: HookDefinition | undefined;
  for (const hook of hooks) {
    const sameGroup =
      previous !== undefined &&
      (previous.spec.type === 'builtin') === (hook.spec.type === 'builtin') &&
      previous.priority === hook.priority;
    if (sameGroup) groups[groups.length - 1].push(hook);
    else groups.push([hook]);
    previous = hook;
  }
  return groups;
}

/** What the next group sees: the payload with the rewrite the groups so far decided. */
export function pipe(payload: HookPayload, result: DispatchResult): HookPayload {
  if (result.updatedInput && 'tool_input' in payload) return { ...payload, tool_input: result.updatedInput };
  if (result.llmRequest && 'llm_request' in payload) return { ...payload, llm_request: result.llmRequest };
  if (result.llmResponse && 'llm_response' in payload) return { ...payload, llm_response: result.llmResponse };
  if (result.updatedToolOutput !== undefined && 'tool_response' in payload) return { ...payload, tool_response: result.updatedToolOutput };
  return payload;
}
