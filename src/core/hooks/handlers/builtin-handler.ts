import { AGENT_HOOK_METHODS, type AgentHook } from '../agent-hook';
import type { HookDefinition, HookEffects, HookHandler, HookInvocation, HookOutcome, HookPayload } from '../types';
import { errorMessage } from '../../error-message';

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

  start(hook: HookDefinition, payload: HookPayload, signal: () => AbortSignal): HookOutcome | Promise<HookOutcome> {
    const started = performance.now();
    const agentHook = this.hooks.get(hook.id);
    const method = agentHook?.[AGENT_HOOK_METHODS[payload.hook_event_name]] as AnyMethod | undefined;
    if (!agentHook || !method) return { status: 'error', error: `no in-process hook registered for ${hook.id}`, trace: { durationMs: 0 } };
    const failed = (err: unknown): HookOutcome => ({
      status: 'error',
      error: `${agentHook.name} threw: ${errorMessage(err)}`,
      trace: { durationMs: performance.now() - started },
    });
    const succeeded = (effects: HookEffects | void): HookOutcome => ({
      status: 'success',
      effects: effects ?? {},
      trace: { durationMs: performance.now() - started },
    });
    let result: ReturnType<AnyMethod>;
    try {
      result = method.call(agentHook, payload, {
        get signal() {
          return signal();
        },
      });
    } catch (err) {
      return failed(err);
    }
    return result instanceof Promise ? result.then(succeeded, failed) : succeeded(result);
  }

  async run(invocation: HookInvocation): Promise<HookOutcome> {
    if (invocation.signal.aborted) return { status: 'cancelled', trace: { durationMs: 0 } };
    const running = this.start(invocation.hook, invocation.payload, () => invocation.signal);
    if (!(running instanceof Promise)) return running;
    // An in-process hook cannot be killed: stop waiting for it as soon as it is aborted.
    const aborted = new Promise<HookOutcome>((resolve) =>
      invocation.signal.addEventListener('abort', () => resolve({ status: 'cancelled', trace: { durationMs: 0 } }), { once: true }),
    );
    return Promise.race([running, aborted]);
  }
}
