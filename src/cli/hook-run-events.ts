import type { AgentEvent } from '../core/agent/agent-events';
import type { Disposable } from '../core/events-emitter';
import type { HookDispatcher } from '../core/hooks/dispatcher';

/**
 * The dispatcher's hook_started / hook_response for one session, as agent events, so a
 * printer sees hook runs in line with everything else.
 */
export function relayHookRuns(dispatcher: HookDispatcher, sessionId: string, emit: (event: AgentEvent) => void): Disposable {
  const started = dispatcher.onWillRunHook((run) => {
    if (run.sessionId === sessionId)
      emit({ type: 'hook_started', hookId: run.hook.id, hookName: run.hook.name, event: run.event, statusMessage: run.hook.statusMessage });
  });
  const finished = dispatcher.onDidRunHook((run) => {
    if (run.sessionId !== sessionId) return;
    const { trace } = run.outcome;
    emit({
      type: 'hook_response',
      hookId: run.hook.id,
      hookName: run.hook.name,
      event: run.event,
      status: run.outcome.status,
      decision: run.summary.decision,
      durationMs: trace.durationMs,
      exitCode: trace.exitCode,
      stdout: trace.stdout,
      stderr: trace.stderr,
      error: run.summary.error,
    });
  });
  return {
    dispose: () => {
      started.dispose();
      finished.dispose();
    },
  };
}
