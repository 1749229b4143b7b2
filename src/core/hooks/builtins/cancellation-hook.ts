import type { AgentHook } from '../agent-hook';
import { actions } from '../agent-hook';

/**
 * AstroResearch's CancellationHook: once a session is cancelled, every further tool call is
 * blocked, even one that was already on its way; the mark is cleared when the session ends.
 */
export class CancellationHook implements AgentHook {
  readonly name = 'Cancellation';
  readonly description = 'Blocks tool calls of a session the user cancelled.';
  private readonly cancelled = new Set<string>();

  cancel(sessionId: string): void {
    this.cancelled.add(sessionId);
  }

  resume(sessionId: string): void {
    this.cancelled.delete(sessionId);
  }

  isCancelled(sessionId: string): boolean {
    return this.cancelled.has(sessionId);
  }

  preToolUse(payload: { session_id: string }) {
    return this.cancelled.has(payload.session_id) ? actions.block('the user cancelled this turn') : undefined;
  }

  onSessionEnd(payload: { session_id: string }) {
    this.cancelled.delete(payload.session_id);
  }
}
