import type { HookEventName } from '../../events';

export type RpcLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type RpcLogger = (level: RpcLogLevel, message: string) => void;

/** The outcome of one request to a server, before it becomes a HookOutcome. */
export type RpcCallResult =
  { status: 'ok'; value: unknown } | { status: 'error'; error: string } | { status: 'timeout'; error: string } | { status: 'cancelled' };
export type RpcCallFailure = Exclude<RpcCallResult, { status: 'ok' }>;

/** What a server said in its handshake, with event names resolved to canonical ones. */
export interface RpcCapabilities {
  serverName: string;
  serverVersion?: string;
  /** Undefined when the handshake left the list out: it announced nothing for that mode. */
  observe?: HookEventName[];
  intercept?: HookEventName[];
  /** Names in the handshake that are neither events nor aliases (reported, not fatal). */
  unknownEvents: string[];
  /** The handshake's intercept list names `approve_tool`. */
  approveEveryCall?: boolean;
}

export type RpcServerState = 'starting' | 'ready' | 'restarting' | 'failed' | 'stopped';

export interface RpcServerStatus {
  state: RpcServerState;
  lastError?: string;
  /** Process id of the running incarnation, if any. */
  pid?: number;
  /** Unexpected exits so far (all time). */
  crashes: number;
}

/** Restart policy after unexpected exits. */
export interface RpcBackoff {
  /** Delay before the first restart; doubles per crash in the window. */
  initialMs: number;
  maxMs: number;
  /** This many crashes within `windowMs` mark the server failed. */
  maxCrashes: number;
  windowMs: number;
}

export const DEFAULT_BACKOFF: RpcBackoff = { initialMs: 200, maxMs: 10_000, maxCrashes: 5, windowMs: 60_000 };
