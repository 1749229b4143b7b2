import { EVENT_INFO, HOOK_EVENTS, type HookEventName } from '../../events';
import type { HookDefinition, ServerDefinition } from '../../types';

export interface RpcEventLists {
  /** Undefined: the handshake did not announce the list, so the config's stands. */
  observe?: HookEventName[];
  intercept?: HookEventName[];
  approveEveryCall?: boolean;
}

/** What a server takes in each mode; an event is in one list at most. */
export interface RpcEventModes {
  intercept: HookEventName[];
  observe: HookEventName[];
}

const INTERCEPTABLE = HOOK_EVENTS.filter((event) => EVENT_INFO[event].kind !== 'observe');

/**
 * Events of one mode: the config's list narrowed by the handshake's when both are known,
 * the handshake's when the config lists none, the config's when the handshake announced none.
 */
function effectiveEvents(configured: HookEventName[], announced: HookEventName[] | undefined): HookEventName[] {
  if (configured.length === 0) return announced ?? [];
  if (!announced) return configured;
  const offered = new Set(announced);
  return configured.filter((event) => offered.has(event));
}

/**
 * An event both observed and intercepted is intercepted only: the request already tells the
 * server about it. Observe-kind events are never waited for, so asking to intercept one
 * observes it (as the config loader does for the config's lists).
 */
export function rpcEventModes(server: ServerDefinition, caps?: RpcEventLists): RpcEventModes {
  const wanted = effectiveEvents(server.intercept, caps?.intercept);
  const intercept = [...new Set(wanted.filter((event) => EVENT_INFO[event].kind !== 'observe'))];
  const intercepted = new Set(intercept);
  const observeKind = wanted.filter((event) => EVENT_INFO[event].kind === 'observe');
  const observe = [...new Set([...effectiveEvents(server.observe, caps?.observe), ...observeKind])].filter(
    (event) => !intercepted.has(event),
  );
  return { intercept, observe };
}

/** The events the config lists that a handshake took away: not sent at all, or only observed where the config intercepts them. */
export function narrowedEvents(server: ServerDefinition, caps: RpcEventLists): { dropped: HookEventName[]; observedOnly: HookEventName[] } {
  const { intercept, observe } = rpcEventModes(server, caps);
  const taken = new Set([...intercept, ...observe]);
  return {
    dropped: [...new Set([...server.intercept, ...server.observe])].filter((event) => !taken.has(event)),
    observedOnly: server.intercept.filter((event) => EVENT_INFO[event].kind !== 'observe' && observe.includes(event)),
  };
}

/** A server whose config lists no intercept events: its handshake says which it intercepts. */
export function interceptsPerHandshake(server: ServerDefinition): boolean {
  return server.intercept.length === 0;
}

/**
 * One hook per event a server handles, id `rpc:<server>:<event>`. Before its first handshake,
 * a server whose config lists no intercept events may intercept any event: it gets a
 * provisional hook for each, which waits for the handshake, so a guard that is slow to start,
 * hung or down fails by its onFailure instead of being silently absent.
 */
export function rpcHookDefinitions(server: ServerDefinition, caps?: RpcEventLists): HookDefinition[] {
  const provisional = caps === undefined && interceptsPerHandshake(server);
  const modes = rpcEventModes(server, caps);
  const intercept = provisional ? INTERCEPTABLE : modes.intercept;
  // The provisional hooks already cover the interceptable events the config observes.
  const observe = provisional ? modes.observe.filter((event) => EVENT_INFO[event].kind === 'observe') : modes.observe;
  const define = (event: HookEventName, mode: 'observe' | 'intercept'): HookDefinition => ({
    id: `rpc:${server.name}:${event}`,
    name: server.name,
    description: `rpc server ${server.name} (${provisional && mode === 'intercept' ? 'until its handshake' : mode})`,
    event,
    priority: server.priority,
    // A provisional hook fails closed only when the config asks: a server meant to observe, down,
    // must not deny every approval (which fail closed by default).
    onFailure: provisional && mode === 'intercept' ? (server.onFailure ?? 'continue') : server.onFailure,
    timeoutMs: server.timeoutMs,
    enabled: server.enabled,
    source: server.source,
    spec: { type: 'rpc', server: server.name, mode, ...(provisional && mode === 'intercept' ? { provisional: true } : {}) },
    ...(event === 'PermissionRequest' && (server.approveEveryCall || caps?.approveEveryCall) ? { everyCall: true } : {}),
  });
  return [...intercept.map((event) => define(event, 'intercept')), ...observe.map((event) => define(event, 'observe'))];
}
