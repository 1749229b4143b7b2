import * as z from 'zod';
import { approvalChoiceSchema, hookEventNameSchema } from './wire-common';

/**
 * What the chat shows, one entry per row. Every item has an `id` unique within the chat so
 * that `patch` messages can address it.
 */

export const hookAnnotationKindSchema = z.enum([
  'blocked',
  'denied',
  'asked',
  'allowed',
  'context',
  'rewrote-input',
  'rewrote-output',
  'feedback',
  'warning',
  'error',
]);

/** What one hook did to a tool call ("blocked by guard: no rm -rf"). */
export const hookAnnotationSchema = z.object({
  hookName: z.string(),
  event: hookEventNameSchema,
  kind: hookAnnotationKindSchema,
  detail: z.string().optional(),
});
export type HookAnnotationView = z.infer<typeof hookAnnotationSchema>;

/** A tool card's state: running, waiting for a person, or one of the five outcomes. */
export const toolStatusSchema = z.enum(['running', 'awaiting-approval', 'executed', 'blocked', 'denied', 'failed', 'skipped']);
export type ToolStatus = z.infer<typeof toolStatusSchema>;

/** The permission prompt for a tool call, shown inline on its card while it waits. */
export const pendingApprovalSchema = z.object({
  /** The host's id of this ask (ApprovalRequest.askId): the card's answer names it. */
  askId: z.string().min(1),
  /** The call as the person must see it to answer: whole and escaped (approval-text.ts), never the clipped summary. */
  subject: z.string(),
  reason: z.string(),
  /** The rule, hook or mode that asked ("hook guard", "protected file", "default mode"). */
  askedBy: z.string(),
  /** The answers offered, in order. */
  choices: z.array(approvalChoiceSchema),
  /** The rule "Allow for session" and "Always allow" add, escaped (visibleRule): the card names it. */
  rule: z.string(),
  /** A file edit: the host can show the change before it is answered, so the card offers "Show diff". */
  proposedDiff: z.boolean(),
});

export const approvalOutcomeSchema = z.object({
  decision: z.enum(['allow', 'deny']),
  /** Who answered: user, timeout, cancel, a hook name, ... */
  by: z.string(),
});

export const userItemSchema = z.object({
  kind: z.literal('user'),
  id: z.string(),
  text: z.string(),
  /** A UserPromptSubmit hook blocked this prompt; it never reached the model. */
  blocked: z.boolean().optional(),
  /** Sent while the agent worked: the model gets it after the current step. */
  queued: z.boolean().optional(),
  /** Queued when the turn was interrupted: never sent, and back in the composer. */
  withdrawn: z.boolean().optional(),
});

export const assistantItemSchema = z.object({
  kind: z.literal('assistant'),
  id: z.string(),
  /** Markdown; the webview sanitizes it before it touches the DOM. */
  text: z.string(),
  /** More text_delta chunks are still coming. */
  streaming: z.boolean(),
});

export const toolItemSchema = z.object({
  kind: z.literal('tool'),
  id: z.string(),
  /** The tool_use_id: what answerApproval and showDiff name (the item id differs only if a model reused an id). */
  callId: z.string(),
  name: z.string(),
  /** One line, escaped (visibleText): "Run: npm test", "Edit src/a.ts". */
  summary: z.string(),
  status: toolStatusSchema,
  /** The start of what the model got back (the full text stays in the host). */
  outputPreview: z.string().optional(),
  outputTruncated: z.boolean().optional(),
  hooks: z.array(hookAnnotationSchema),
  durationMs: z.number().nonnegative().optional(),
  approval: pendingApprovalSchema.optional(),
  approvalOutcome: approvalOutcomeSchema.optional(),
  /** The host can show a diff for this call (file edits): the card offers "Show diff". */
  diffAvailable: z.boolean(),
});

export const noticeItemSchema = z.object({
  kind: z.literal('notice'),
  id: z.string(),
  level: z.enum(['info', 'warning', 'error']),
  message: z.string(),
  source: z.string().optional(),
});

export const promptBlockedItemSchema = z.object({
  kind: z.literal('prompt-blocked'),
  id: z.string(),
  reason: z.string(),
  hookName: z.string().optional(),
});

export const turnEndReasonSchema = z.enum(['completed', 'max_steps', 'blocked', 'cancelled', 'error', 'stopped', 'aborted']);

export const turnEndItemSchema = z.object({
  kind: z.literal('turn-end'),
  id: z.string(),
  reason: turnEndReasonSchema,
  error: z.string().optional(),
});

export const chatItemSchema = z.discriminatedUnion('kind', [
  userItemSchema,
  assistantItemSchema,
  toolItemSchema,
  noticeItemSchema,
  promptBlockedItemSchema,
  turnEndItemSchema,
]);

export type ChatItem = z.infer<typeof chatItemSchema>;
export type UserItem = z.infer<typeof userItemSchema>;
export type AssistantItem = z.infer<typeof assistantItemSchema>;
export type ToolItem = z.infer<typeof toolItemSchema>;
export type NoticeItem = z.infer<typeof noticeItemSchema>;
export type PromptBlockedItem = z.infer<typeof promptBlockedItemSchema>;
export type TurnEndItem = z.infer<typeof turnEndItemSchema>;
export type ChatItemKind = ChatItem['kind'];

/**
 * Changes a `patch` may make, one shape per item kind (the patch names the kind, so a
 * patch can never set tool fields on a message). `appendText` extends streaming text
 * without resending it: patches stay small however long the answer grows.
 */
export const chatItemChangesSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user'), blocked: z.boolean().optional(), queued: z.boolean().optional(), withdrawn: z.boolean().optional() }),
  z.object({
    kind: z.literal('assistant'),
    appendText: z.string().optional(),
    text: z.string().optional(),
    streaming: z.boolean().optional(),
  }),
  z.object({
    kind: z.literal('tool'),
    status: toolStatusSchema.optional(),
    summary: z.string().optional(),
    outputPreview: z.string().optional(),
    outputTruncated: z.boolean().optional(),
    hooks: z.array(hookAnnotationSchema).optional(),
    durationMs: z.number().nonnegative().optional(),
    /** null clears the inline prompt once it was answered. */
    approval: pendingApprovalSchema.nullable().optional(),
    approvalOutcome: approvalOutcomeSchema.optional(),
    diffAvailable: z.boolean().optional(),
  }),
]);
export type ChatItemChanges = z.infer<typeof chatItemChangesSchema>;

/** One sentence for a hook annotation, as the tool card prints it. */
export function describeAnnotation(a: HookAnnotationView): string {
  const detail = a.detail ? `: ${a.detail}` : '';
  switch (a.kind) {
    case 'blocked':
      return `Blocked by ${a.hookName}${detail}`;
    case 'denied':
      return `Denied by ${a.hookName}${detail}`;
    case 'asked':
      return `${a.hookName} asked for approval${detail}`;
    case 'allowed':
      return `Allowed by ${a.hookName}${detail}`;
    case 'context':
      return `Context from ${a.hookName}${detail}`;
    case 'rewrote-input':
      return `Input rewritten by ${a.hookName}${detail}`;
    case 'rewrote-output':
      return `Output rewritten by ${a.hookName}${detail}`;
    case 'feedback':
      return `Feedback from ${a.hookName}${detail}`;
    case 'warning':
      return `Warning from ${a.hookName}${detail}`;
    case 'error':
      return `${a.hookName} failed${detail}`;
  }
}
