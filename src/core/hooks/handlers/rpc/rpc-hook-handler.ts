import { parseHookOutput } from '../../protocol/output';
import { spillOutcome } from '../../protocol/spill';
import type { HookHandler, HookInvocation, HookOutcome } from '../../types';
import type { RpcServerPool } from './rpc-server-pool';
import { refusedRun } from '../refused-run';
import type { RpcCallFailure } from './rpc-types';

export interface RpcHookHandlerOptions {
  /** Where answer texts over 10,000 chars are saved; without it they are only truncated. */
  spillDir?: string;
  /** The engine's redactor, applied to a long text before it is saved and cut. */
  redact?: (text: string) => string;
  /** Why a server must not run now (its script changed, the untrusted workspace it would run), if so. */
  refusal?: (server: string) => string | undefined;
}

/**
 * Runs rpc hooks through the pool's long-lived servers. Observe hooks are notifications and
 * return at once; intercept hooks are requests whose answer is a command hook's JSON output,
 * whose long texts are cut like a command hook's before they reach the model. A provisional
 * hook first waits for the server's handshake, then does what it announced for the event.
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
    const { server, provisional } = hook.spec;
    const refused = this.options.refusal?.(server);
    if (refused !== undefined) return refusedRun(hook.event, `rpc server "${server}" did not run: ${refused}`);
    let mode: 'observe' | 'intercept' | undefined = hook.spec.mode;
    if (provisional) {
      const ready = await this.pool.whenReady(server, { timeoutMs: invocation.timeoutMs, signal: invocation.signal });
      if (ready.status !== 'ok') return this.failed(server, ready, trace());
      mode = this.pool.modeAfterHandshake(server, hook.event);
    }

    if (mode === undefined) return { status: 'success', effects: {}, trace: trace() };
    if (mode === 'observe') {
      const error = this.pool.notify(server, hook.event, payload);
      return error === undefined ? { status: 'success', effects: {}, trace: trace() } : { status: 'error', error, trace: trace() };
    }

    // A provisional hook has spent part of its timeout waiting for the handshake.
    const timeoutMs = provisional ? Math.max(1, Math.round(started + invocation.timeoutMs - performance.now())) : invocation.timeoutMs;
    const result = await this.pool.intercept(server, hook.event, payload, { timeoutMs, signal: invocation.signal });
    if (result.status !== 'ok') return this.failed(server, result, trace());
    // null and {} both mean "no opinion, continue".
    const parsed = parseHookOutput(hook.event, result.value ?? {});
    if (!parsed.ok) return { status: 'error', error: `rpc server "${server}": ${parsed.error}`, trace: trace() };
    const outcome: HookOutcome = { status: 'success', effects: parsed.effects, trace: trace() };
    return spillOutcome(outcome, {
      dir: this.options.spillDir,
      redact: this.options.redact,
      sessionId: payload.session_id,
      label: hook.name,
    });
  }

  private failed(server: string, result: RpcCallFailure, trace: { durationMs: number }): HookOutcome {
    switch (result.status) {
      case 'cancelled':
        return { status: 'cancelled', trace };
      case 'timeout':
        return { status: 'timeout', error: result.error, trace: { ...trace, stderr: this.pool.stderrTail(server) } };
      case 'error':
        return { status: 'error', error: result.error, trace: { ...trace, stderr: this.pool.stderrTail(server) } };
    }
  }
}
