import * as z from 'zod';
import { chatItemChangesSchema, chatItemSchema } from './chat-items';
import { modelPresetIdSchema, modelPresetSchema } from './model-presets';
import { isValidSessionId } from '../core/session-id';
import { approvalChoiceSchema, isoTimeSchema, receive, tokenUsageSchema, type Received } from './wire-common';

/**
 * Messages between the chat webview and the extension host.
 *
 * The transcript travels as a numbered stream: `reset` carries the whole list once (on
 * `ready`, `resync` and new or resumed chats); after it, `append` and `patch` each carry
 * the next `seq` (reset's seq + 1, + 2, ...). A webview that sees a gap stops applying and
 * sends `resync`; the host answers with a `reset`. `status` and `sessions` are small
 * snapshots outside the stream: the latest one wins.
 */

const seq = z.number().int().nonnegative();

export const chatStateSchema = z.object({ items: z.array(chatItemSchema) });
export type ChatTranscript = z.infer<typeof chatStateSchema>;

/** Whether a model is usable; when it is not, what the setup panel shows. */
export const modelStatusSchema = z.discriminatedUnion('configured', [
  z.object({
    configured: z.literal(true),
    /** The model name as the footer shows it. */
    name: z.string(),
    /** Where requests go (a base URL or a provider label), for the footer's tooltip. */
    endpoint: z.string().optional(),
  }),
  z.object({
    configured: z.literal(false),
    /** Why no model is usable: "No model is configured", "The API key is missing", ... */
    problem: z.string(),
    /** The presets to offer, usually MODEL_PRESETS. */
    presets: z.array(modelPresetSchema),
    /** The workspace ships a recorded session: the setup panel offers to replay it. */
    demoReplay: z.boolean().optional(),
  }),
]);
export type ModelStatus = z.infer<typeof modelStatusSchema>;

export const sessionEntrySchema = z.object({
  id: z.string(),
  /** The first prompt or a summary, one line. */
  title: z.string(),
  startedAt: isoTimeSchema,
  lastActiveAt: isoTimeSchema.optional(),
  turns: z.number().int().nonnegative().optional(),
});
export type SessionEntry = z.infer<typeof sessionEntrySchema>;

export const hostToChatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('reset'), seq, state: chatStateSchema }),
  z.object({ type: z.literal('append'), seq, item: chatItemSchema }),
  z.object({ type: z.literal('patch'), seq, id: z.string(), changes: chatItemChangesSchema }),
  z.object({
    type: z.literal('status'),
    model: modelStatusSchema,
    /** A turn is running: the composer shows Cancel instead of Send. */
    busy: z.boolean(),
    /** Tokens used by this chat so far. */
    usage: tokenUsageSchema,
    /** The `statusMessage` of a hook running now, shown instead of "Working…". */
    activity: z.string().max(200).optional(),
  }),
  z.object({
    type: z.literal('sessions'),
    /** Earlier sessions to resume, newest first. */
    list: z.array(sessionEntrySchema),
    currentId: z.string().optional(),
  }),
  /** Put the caret in the composer (a "focus chat" command). */
  z.object({ type: z.literal('focus') }),
  /** Text the user sent that never ran (queued for a halted turn, /compact while busy): back to the composer. */
  z.object({ type: z.literal('restoreDraft'), id: z.number().int().positive(), text: z.string().min(1) }),
]);
export type HostToChat = z.infer<typeof hostToChatSchema>;
export type ChatStreamMessage = Extract<HostToChat, { type: 'reset' | 'append' | 'patch' }>;
export type ChatStatusMessage = Extract<HostToChat, { type: 'status' }>;

export const MAX_PROMPT_CHARS = 200_000;

export const chatToHostSchema = z.discriminatedUnion('type', [
  /** The webview loaded; `lastSeq` is what it had before a reload (0 when new). The host answers with status, sessions and a reset. */
  z.object({ type: z.literal('ready'), lastSeq: seq }),
  z.object({ type: z.literal('send'), text: z.string().trim().min(1).max(MAX_PROMPT_CHARS) }),
  z.object({ type: z.literal('cancel') }),
  /** A `restoreDraft` is in the composer: the host stops keeping it. */
  z.object({ type: z.literal('draftRestored'), id: z.number().int().positive() }),
  z.object({ type: z.literal('newChat') }),
  z.object({ type: z.literal('resume'), sessionId: z.string().refine(isValidSessionId, 'not a session id') }),
  /** The webview saw a gap after `lastSeq`; the host answers with a reset. */
  z.object({ type: z.literal('resync'), lastSeq: seq }),
  z.object({ type: z.literal('openHookManager') }),
  z.object({ type: z.literal('configureModel'), preset: modelPresetIdSchema }),
  /** The host asks for the key itself (a password input box); the key never enters the webview. */
  z.object({ type: z.literal('setApiKey') }),
  /** Answers the pending approval of tool call `id` (the modal may have answered first: then it is ignored). */
  /** `askId`: the card's (its approval's): the answer reaches that ask only, never a later one under the same id. */
  z.object({ type: z.literal('answerApproval'), id: z.string().min(1), askId: z.string().min(1), choice: approvalChoiceSchema }),
  /** Show the diff of the file edit of tool call `id`. */
  z.object({ type: z.literal('showDiff'), id: z.string().min(1) }),
  /** Replay the workspace's recorded session through its hooks (no model needed). */
  z.object({ type: z.literal('replayDemo') }),
]);
export type ChatToHost = z.infer<typeof chatToHostSchema>;

export function receiveHostToChat(raw: unknown): Received<HostToChat> {
  return receive(hostToChatSchema, raw);
}

export function receiveChatToHost(raw: unknown): Received<ChatToHost> {
  return receive(chatToHostSchema, raw);
}
