import * as z from 'zod';

/** A token count: a whole number, not negative, within what a double holds exactly (so not 1e400, not "5"). */
const count = z.number().int().nonnegative();

/** Token counts as Hookpilot keeps them: a reply's, a hook run's, the chat's running totals. */
export const tokenUsageSchema = z.object({ promptTokens: count, completionTokens: count, totalTokens: count });
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/**
 * `usage` as an OpenAI-compatible server sends it. A missing `total_tokens` is the sum of the
 * other two (what it means in that API; some local servers leave it out). A missing prompt or
 * completion count drops the whole usage, as does any count that is not a count: kept, it would
 * be summed into the totals as if it were right.
 */
const wireUsageSchema = z
  .object({ prompt_tokens: count, completion_tokens: count, total_tokens: count.optional() })
  .transform((u) => ({
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    totalTokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
  }))
  .pipe(tokenUsageSchema);

export type CheckedUsage = { ok: true; usage: TokenUsage } | { ok: false; problem: string };

/** The server's `usage`, or why it is not counted (names the fields, never their values). */
export function usageFromWire(raw: unknown): CheckedUsage {
  const parsed = wireUsageSchema.safeParse(raw);
  if (parsed.success) return { ok: true, usage: parsed.data };
  return { ok: false, problem: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'usage'}: ${issue.message}`).join('; ') };
}
