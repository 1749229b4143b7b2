import type { DispatchResult } from '../hooks/dispatch-result';

/** What a shortened output keeps of each end: commands tend to say what went wrong last. */
const TRUNCATED_HEAD_CHARS = 1_500;
const TRUNCATED_TAIL_CHARS = 500;

/**
 * The tool message the model gets after PostToolUse (or PostToolUseFailure) hooks: their
 * replacement output, shortened when one asked for it, and a blocking hook's feedback.
 */
export function rewriteToolOutput(content: string, result: DispatchResult): string {
  let out =
    result.updatedToolOutput === undefined
      ? content
      : typeof result.updatedToolOutput === 'string'
        ? result.updatedToolOutput
        : JSON.stringify(result.updatedToolOutput);
  if (result.truncateOutputBy && out.length > TRUNCATED_HEAD_CHARS + TRUNCATED_TAIL_CHARS) {
    const dropped = out.length - TRUNCATED_HEAD_CHARS - TRUNCATED_TAIL_CHARS;
    out = `${out.slice(0, TRUNCATED_HEAD_CHARS)}\n[… ${dropped} characters left out at the request of hook "${result.truncateOutputBy}" …]\n${out.slice(-TRUNCATED_TAIL_CHARS)}`;
  }
  if (result.blocked) out += `\n\n${result.event} hook "${result.blockingErrors[0]?.hookName}" feedback: ${result.blockReason}`;
  return out;
}
