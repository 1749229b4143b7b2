import * as z from 'zod';
import { HANDLER_TYPES } from '../hooks/types';
import { PERMISSION_DECIDERS } from './permission-text';

/**
 * The audit log's record shapes: one JSONL line each. `seq` and `ts` are stamped by the
 * writer. Secrets are redacted by the writer before a record reaches the disk.
 */
const base = {
  seq: z.number().int().nonnegative(),
  ts: z.string(),
  session_id: z.string(),
};

export const auditRecordSchema = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('event'),
    dispatch_id: z.string(),
    event: z.string(),
    payload: z.unknown(),
  }),
  z.object({
    ...base,
    type: z.literal('hook_run'),
    dispatch_id: z.string(),
    event: z.string(),
    hook_id: z.string(),
    hook_name: z.string(),
    handler: z.enum(HANDLER_TYPES),
    source: z.string(),
    status: z.enum(['success', 'blocking-error', 'error', 'timeout', 'cancelled']),
    /** allow | deny | ask | block | defer | error | timeout | none */
    decision: z.string(),
    reason: z.string().optional(),
    input: z.unknown().optional(),
    effects: z.unknown().optional(),
    stdout: z.string().optional(),
    stderr: z.string().optional(),
    exit_code: z.number().nullable().optional(),
    duration_ms: z.number(),
    started_ms: z.number().optional(),
    /** prompt and agent hooks: the model asked and the tokens it used. */
    model: z.string().optional(),
    tokens: z.object({ prompt: z.number(), completion: z.number(), total: z.number() }).optional(),
    error: z.string().optional(),
    /** An `async: true` run: recorded once it finished (or was cancelled), with its real duration. */
    async: z.boolean().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('dispatch'),
    dispatch_id: z.string(),
    event: z.string(),
    decision: z.string(),
    reason: z.string().optional(),
    hooks_run: z.number().int(),
    duration_ms: z.number(),
  }),
  z.object({
    ...base,
    type: z.literal('permission'),
    tool_name: z.string(),
    tool_use_id: z.string().optional(),
    /** `ask` is followed by a second record with the final answer. */
    decision: z.enum(['allow', 'deny', 'ask']),
    /** Who decided: the rule text, hook name, mode, who answered ("user", "no-terminal"), ... */
    source: z.string(),
    /** The kind of decider, for filters and the timeline's "allowed by ...". */
    by: z.enum(PERMISSION_DECIDERS).optional(),
    /** The precedence level (P0-P8) when the permission gate decided. */
    level: z.string().optional(),
    /** A person's answer: once, for the session, always (persisted), or deny. */
    answer: z.enum(['once', 'session', 'always', 'deny', 'deny-session']).optional(),
    /** Set for a call made by a Task subagent. */
    agent_id: z.string().optional(),
    reason: z.string().optional(),
  }),
  /** A PostToolUse hook says the call that ran needed a permission (AstroResearch's PermissionRequired): advisory. */
  z.object({
    ...base,
    type: z.literal('permission_required'),
    tool_name: z.string(),
    tool_use_id: z.string(),
    permission: z.string(),
    hook_name: z.string(),
    agent_id: z.string().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('note'),
    level: z.enum(['info', 'warning', 'error']),
    message: z.string(),
    data: z.unknown().optional(),
  }),
]);

export type AuditRecord = z.infer<typeof auditRecordSchema>;

/** A record before the writer stamps `seq` and `ts`. */
export type AuditEntry = AuditRecord extends infer R ? (R extends AuditRecord ? Omit<R, 'seq' | 'ts'> : never) : never;

/** Where the engine and the agent send audit entries. Appending never blocks the caller. */
export interface AuditSink {
  append(entry: AuditEntry): void;
}
