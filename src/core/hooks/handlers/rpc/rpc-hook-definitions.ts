import { EVENT_INFO, type HookEventName } from '../../events';
import type { HookDefinition, ServerDefinition } from '../../types';

export interface RpcEventLists {
  observe: HookEventName[];
  intercept: HookEventName[];
  approveEveryCall?: boolean;
}

/**
 * Events of one mode: the config's list narrowed by the handshake's when both are known,
 * the handshake's when the config lists none, the config's before the handshake.
 */
function effectiveEvents(configured: HookEventName[], announced: HookEventName[] | undefined): HookEventName[] {
  if (configured.length === 0) return announced ?? [];
  if (!announced) return configured;
  const offered = new Set(announced);
  return configured.filter((event) => offered.has(event));
}

/**
 * One hook per event a server handles, id `rpc:<server>:<event>`. An event both observed
 * and intercepted is intercepted only: the request already tells the server about it.
 * Observe-kind events are never waited for, so asking to intercept one observes it (as the
 * config loader does for the config's lists).
 */
export function rpcHookDefinitions(server: ServerDefinition, caps?: RpcEventLists): HookDefinition[] {
  const wanted = effectiveEvents(server.intercept, caps?.intercept);
  const intercept = [...new Set(wanted.filter((event) => EVENT_INFO[event].kind !== 'observe'))];
  const intercepted = new Set(intercept);
  const observeKind = wanted.filter((event) => EVENT_INFO[event].kind === 'observe');
  const observe = [...new Set([...effectiveEvents(server.observe, caps?.observe), ...observeKind])].filter(
    (event) => !intercepted.has(event),
  );
  const define = (event: HookEventName, mode: 'observe' | 'intercept'): HookDefinition => ({
    id: `rpc:${server.name}:${event}`,
    name: server.name,
    description: `rpc server ${server.name} (${mode})`,
    event,
    priority: server.priority,
    onFailure: server.onFailure,
    timeoutMs: server.timeoutMs,
    enabled: server.enabled,
    source: server.source,
    spec: { type: 'rpc', server: server.name, mode },
    ...(event === 'PermissionRequest' && (server.approveEveryCall || caps?.approveEveryCall) ? { everyCall: true } : {}),
  });
  return [...intercept.map((event) => define(event, 'intercept')), ...observe.map((event) => define(event, 'observe'))];
}
