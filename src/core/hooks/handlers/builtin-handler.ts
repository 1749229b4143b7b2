import { AGENT_HOOK_METHODS, type AgentHook } from '../agent-hook';
import type { HookEventName } from '../events';
import type { HookEffects, HookHandler, HookInvocation, HookOutcome } from '../types';

type AnyMethod = (payload: unknown, ctx: { signal: AbortSignal }) => HookEffects | void | Promise<HookEffects | void>;

/** Runs in-process hooks, looked up by the id of their definition. */
export class BuiltinHookHandler implements HookHandler {
  private readonly hooks = new Map<string, AgentHook>();

  register(id: string, hook: AgentHook): void {
    this.hooks.set(id, hook);
  }

  unregister(id: string): void {
    this.hooks.delete(id);
  }

  async run(invocation: HookInvocation): Promise<HookOutcome> {
    const started = performance.now();
    const hook = this.hooks.get(invocation.hook.id);
    const event: HookEventName = invocation.payload.hook_event_name;
    const method = hook?.[AGENT_HOOK_METHODS[event]] as AnyMethod | undefined;
    if (!hook || !method) {
      return { status: 'error', error: `no in-process hook registered for ${invocation.hook.id}`, trace: { durationMs: performance.now() - started } };
    }
    if (invocation.signal.aborted) return { status: 'cancelled', trace: { durationMs: 0 } };
    try {
      // An in-process hook cannot be killed: stop waiting for it as soon as it is aborted.
      const aborted = new Promise<'aborted'>((resolve) => invocation.signal.addEventListener('abort', () => resolve('aborted'), { once: true }));
      const effects = await Promise.race([method.call(hook, invocation.payload, { signal: invocation.signal }), aborted]);
      if (effects === 'aborted') return { status: 'cancelled', trace: { durationMs: performance.now() - started } };
      return { status: 'success', effects: effects ?? {}, trace: { durationMs: performance.now() - started } };
    } catch (err) {
      return { status: 'error', error: `${hook.name} threw: ${err instanceof Error ? err.message : String(err)}`, trace: { durationMs: performance.now() - started } };
    }
  }
}
