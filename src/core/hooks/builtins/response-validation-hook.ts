import type { AgentHook } from '../agent-hook';
import type { PayloadOf } from '../payloads';
import type { HookEffects } from '../types';

/**
 * AtomCode's ResponseValidationHook (OnModelResponse): flags model responses the loop
 * should not trust as they are: empty, or cut off at the token limit.
 */
export class ResponseValidationHook implements AgentHook {
  readonly name = 'ResponseValidation';
  readonly description = 'Warns about empty or truncated model responses and tells the model.';

  afterLLM(p: PayloadOf<'AfterLLM'>): HookEffects | undefined {
    const r = p.llm_response;
    if (r.finish_reason === 'length') {
      return {
        warnings: ['the model response was cut off at the token limit'],
        additionalContext: 'Your previous response was cut off at the output token limit. Continue more concisely.',
      };
    }
    if (r.content.trim() === '' && r.tool_calls.length === 0) {
      return { warnings: ['the model returned an empty response'] };
    }
    return undefined;
  }
}
