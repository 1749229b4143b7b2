import type { AgentEvent } from './agent-events';
import type { SessionHooks } from './session-hooks';
import type { TodoStore } from './tools/todo-store';
import { StopBlocks } from './stop-continuation';
import type { FinalAnswerHandler } from './turn-loop';

export interface FinalAnswerGuardsDeps {
  hooks: SessionHooks;
  todos: TodoStore;
  /** Nudges about unfinished todos per turn before the answer goes to the Stop hooks. */
  todoGuardCap: number;
  /** Consecutive Stop blocks honoured before the agent stops anyway (Claude Code: 8; see StopBlocks). */
  stopHookCap: number;
  /** Writes the conversation to the transcript: Stop hooks read it. */
  persist: () => void;
  emit: (event: AgentEvent) => void;
  notices: (systemMessages: readonly string[], warnings: readonly string[]) => void;
}

/**
 * What decides, for one turn, whether a final answer ends it: TodoGuard first (unfinished
 * todos mean keep going), then the Stop hooks, which may block it or add context, up to a cap.
 */
export function finalAnswerGuards(deps: FinalAnswerGuardsDeps): FinalAnswerHandler {
  const stopBlocks = new StopBlocks(deps.stopHookCap, 'Stop', (blocks, cap) =>
    deps.emit({
      type: 'notice',
      level: 'warning',
      message: `Stop hooks asked to continue ${blocks} times in a row; stopping anyway (cap ${cap}).`,
    }),
  );
  let todoNudges = 0;
  return async (answer, signal, toolCallsSoFar) => {
    if (deps.todos.hasUnfinished() && todoNudges < deps.todoGuardCap) {
      todoNudges++;
      const open = deps.todos
        .get()
        .filter((t) => t.status !== 'completed')
        .map((t) => `- [${t.status}] ${t.content}`)
        .join('\n');
      return {
        continueWith: `<system-reminder>\n[TodoGuard] You still have unfinished todos:\n${open}\nFinish them, or update the list with TodoWrite if they are done or no longer needed.\n</system-reminder>`,
      };
    }
    deps.persist();
    const stop = await deps.hooks.dispatch(
      'Stop',
      { stop_hook_active: stopBlocks.total > 0, stop_hook_count: stopBlocks.total, last_assistant_message: answer },
      signal,
    );
    deps.notices(stop.systemMessages, stop.warnings);
    if (stop.stop) return { stop: stop.stop };
    return stopBlocks.continuation(stop, toolCallsSoFar);
  };
}
