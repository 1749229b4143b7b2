import * as z from 'zod';

/**
 * The audit record schema as the Hook Manager webview checks it. It has the same shape as
 * `auditRecordSchema` in core/audit/records (a type test keeps the two equal); it exists
 * because that module imports zod as `{ z }`, which pulls all of zod's locales into a
 * browser bundle, while `* as z` lets esbuild keep only what is used.
 */
const base = {
  seq: z.number().int().nonnegative(),
  ts: z.string(),
  session_id: z.string(),
};

export const auditRecordWireSchema = z.discriminatedUnion('type', [
  z.object({ ...base, type: z.literal('event'), dispatch_id: z.string(), event: z.string(), payload: z.unknown() }),
  z.object({
    ...base,
    type: z.literal('hook_run'),
    dispatch_id: z.string(),
    event: z.string(),
    hook_id: z.string(),
    hook_name: z.string(),
    handler: z.enum(['builtin', 'command', 'rpc', 'http']),
    source: z.string(),
    status: z.enum(['success', 'blocking-error', 'error', 'timeout', 'cancelled']),
    decision: z.string(),
    reason: z.string().optional(),
    input: z.unknown().optional(),
    effects: z.unknown().optional(),
    stdout: z.string().optional(),
    stderr: z.string().optional(),
    exit_code: z.number().nullable().optional(),
    duration_ms: z.number(),
    started_ms: z.number().optional(),
    error: z.string().optional(),
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
    decision: z.enum(['allow', 'deny', 'ask']),
    source: z.string(),
    reason: z.string().optional(),
  }),
  z.object({ ...base, type: z.literal('note'), level: z.enum(['info', 'warning', 'error']), message: z.string(), data: z.unknown().optional() }),
]);

export type AuditRecordWire = z.infer<typeof auditRecordWireSchema>;
