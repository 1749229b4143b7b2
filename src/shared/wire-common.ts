import * as z from 'zod';
import { HOOK_EVENTS } from '../core/hooks/events';

/** Schemas shared by the chat and Hook Manager protocols. */

export const hookEventNameSchema = z.enum(HOOK_EVENTS);

/** The four answers to a permission prompt, the same in the modal, the chat and the manager. */
export const approvalChoiceSchema = z.enum(['allow-once', 'allow-session', 'allow-always', 'deny-session', 'deny']);
export type ApprovalChoiceView = z.infer<typeof approvalChoiceSchema>;

export { tokenUsageSchema, type TokenUsage } from '../core/agent/llm/token-usage';

/** An ISO 8601 timestamp as text (Date objects do not survive postMessage as Dates in every host). */
export const isoTimeSchema = z.string().min(1);

/** The result of checking a message that arrived over postMessage. */
export type Received<T> = { ok: true; message: T } | { ok: false; error: string };

/** safeParse with a short, loggable error: every message is checked on receipt. */
export function receive<T>(schema: z.ZodType<T>, raw: unknown): Received<T> {
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, message: result.data };
  const type = typeof raw === 'object' && raw !== null && 'type' in raw ? String((raw as { type: unknown }).type) : typeof raw;
  return { ok: false, error: `invalid message (${type}): ${z.prettifyError(result.error)}` };
}
