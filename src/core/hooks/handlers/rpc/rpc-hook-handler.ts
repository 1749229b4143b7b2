import { parseHookOutput } from '../../protocol/output';
import { spillOutcome } from '../../protocol/spill';
import type { HookHandler, HookInvocation, HookOutcome } from '../../types';
import type { RpcServerPool } from './rpc-server-pool';

export interface RpcHookHandlerOptions {
  /** Where answer texts over 10,000 chars are saved; without it they are only truncated. */
  spillDir?: string;
}

/**
 * Runs rpc hooks through the pool's long-lived servers. Observe hooks are notifications and
 * return at once; intercept hooks are requests whose answer is a command hook's JSON output,
 * whose long texts are cut like a command hook's before they reach the model.
 */
export class RpcHookHandler implements HookHandler {
  constructor(
    private readonly pool: RpcServerPool,
    private readonly options: RpcHookHandlerOptions = {},
  ) {}

  async run(invocation: HookInvocation): Promise<HookOutcome> {
    const started = performance.now();
    const trace = () => ({ durationMs: performance.now() - started });
    const { hook, payload } = invocation;
    if (hook.spec.type !== 'rpc') {
      return { status: 'error', error: `hook ${hook.id} is not an rpc hook (type ${hook.spec.type})`, trace: trace() };
    }
    const { server, mode } = hook.spec;

    if (mode === 'observe') {
      const error = this.pool.notify(server, hook.event, payload);
      return error === undefined ? { status: 'success', effects: {}, trace: trace() } : { status: 'error', error, trace: trace() };
    }

    const result = await this.pool.intercept(server, hook.event, payload, { timeoutMs: invocation.timeoutMs, signal: invocation.signal });
    switch (result.status) {
      case 'cancelled':
        return { status: 'cancelled', trace: trace() };
      case 'timeout':
        return { status: 'timeout', error: result.error, trace: { ...trace(), stderr: this.pool.stderrTail(server) } };
      case 'error':
        return { status: 'error', error: result.error, trace: { ...trace(), stderr: this.pool.stderrTail(server) } };
      case 'ok': {
        // null and {} both mean "no opinion, continue".
        const parsed = parseHookOutput(hook.event, result.value ?? {});
        if (!parsed.ok) return { status: 'error', error: `rpc server "${server}": ${parsed.error}`, trace: trace() };
        const outcome: HookOutcome = { status: 'success', effects: parsed.effects, trace: trace() };
        return spillOutcome(outcome, { dir: this.options.spillDir, sessionId: payload.session_id, label: hook.name });
      }
    }
  }
}
