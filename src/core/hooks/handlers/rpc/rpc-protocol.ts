import { z } from 'zod';
import { NotificationType, NotificationType0, RequestType, RequestType0 } from 'vscode-jsonrpc/node';
import { HOOK_EVENTS } from '../../events';
import { hookOutputSchema } from '../../protocol/output';

/**
 * The rpc hook wire protocol, version 1 (docs/rpc-hooks.md): JSON-RPC 2.0 over the
 * server's stdin/stdout with the `Content-Length` framing of vscode-jsonrpc.
 * Every message has a zod schema; the host validates what it receives with them.
 */
export const RPC_PROTOCOL_VERSION = 1;

/** Host -> server, first message. */
export const initializeParamsSchema = z.object({
  protocolVersion: z.literal(RPC_PROTOCOL_VERSION),
  client: z.object({ name: z.literal('hookpilot'), version: z.string() }),
  projectDir: z.string(),
  sessionId: z.string().optional(),
});
export type InitializeParams = z.infer<typeof initializeParamsSchema>;

/**
 * Server -> host. Event names may be canonical or aliases; unknown names are reported, not fatal.
 * A list left out announces nothing, so the config's list for that mode stands.
 */
export const initializeResultSchema = z.looseObject({
  name: z.string().min(1),
  version: z.string().optional(),
  observe: z.array(z.string()).optional(),
  intercept: z.array(z.string()).optional(),
});
export type InitializeResult = z.infer<typeof initializeResultSchema>;

/** `hook/observe` and `hook/intercept` params: the canonical event and Claude Code's payload. */
export const hookEventParamsSchema = z.object({
  event: z.enum(HOOK_EVENTS),
  payload: z.looseObject({ hook_event_name: z.enum(HOOK_EVENTS), session_id: z.string() }),
});
export type HookEventParams = z.infer<typeof hookEventParamsSchema>;

/** `hook/intercept` result: a command hook's JSON output, or null / {} to continue. */
export const hookInterceptResultSchema = hookOutputSchema.nullable();

export const InitializeRequest = new RequestType<InitializeParams, unknown, unknown>('initialize');
export const InitializedNotification = new NotificationType0('initialized');
export const HookObserveNotification = new NotificationType<HookEventParams>('hook/observe');
export const HookInterceptRequest = new RequestType<HookEventParams, unknown, unknown>('hook/intercept');
/** `shutdown` has no params and answers null; `exit` follows it. */
export const ShutdownRequest = new RequestType0<unknown, unknown>('shutdown');
export const ExitNotification = new NotificationType0('exit');
/** Host -> server: the host stopped waiting for the request of this id. */
export const CancelRequestNotification = new NotificationType<{ id: number }>('$/cancelRequest');
