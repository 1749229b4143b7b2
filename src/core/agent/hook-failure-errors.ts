import type { Disposable } from '../events-emitter';
import type { HookDispatcher } from '../hooks/dispatcher';
import type { SessionHooks } from './session-hooks';

/** A hook of this session that fails or times out fires an Error event too (not for Error hooks themselves: no loops). */
export function reportHookFailures(dispatcher: HookDispatcher, sessionId: string, hooks: SessionHooks): Disposable {
  return dispatcher.onDidRunHook((run) => {
    if (run.sessionId !== sessionId || run.event === 'Error') return;
    if (run.outcome.status === 'error' || run.outcome.status === 'timeout') {
      hooks.emit('Error', {
        error_type: 'hook',
        error: `hook "${run.hook.name}" (${run.event}) ${run.outcome.status === 'timeout' ? 'timed out' : 'failed'}: ${run.outcome.error}`,
        recoverable: true,
      });
    }
  });
}
