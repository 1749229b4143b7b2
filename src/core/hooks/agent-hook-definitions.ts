import { subscribedEvents, type AgentHook } from './agent-hook';
import type { HookDefinition, HookSource } from './types';

/** One definition per event an in-process hook implements; ids are `<prefix>:<event>`. */
export function agentHookDefinitions(
  hook: AgentHook,
  options: { idPrefix: string; source: HookSource; enabled?: boolean },
): HookDefinition[] {
  return subscribedEvents(hook).map((event) => ({
    id: `${options.idPrefix}:${event}`,
    name: hook.name,
    description: hook.description,
    event,
    matcher: hook.matcher,
    contentPatterns: hook.contentPatterns ? [...hook.contentPatterns] : undefined,
    priority: hook.priority ?? 0,
    onFailure: hook.onFailure,
    timeoutMs: hook.timeoutMs,
    enabled: options.enabled ?? true,
    source: options.source,
    spec: { type: 'builtin', builtin: hook.name, async: hook.async },
  }));
}
