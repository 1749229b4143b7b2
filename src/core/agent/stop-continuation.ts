import type { DispatchResult } from '../hooks/dispatch-result';
import { reminder } from './turn-loop';

/** A loop's Stop (or SubagentStop) blocks so far: all of them, and those with no tool call between. */
export class StopBlocks {
  total = 0;
  private consecutive = 0;
  private toolCallsAtLastBlock = 0;

  constructor(
    /** Consecutive blocks honoured before the agent stops anyway (Claude Code: 8; 0: no cap). */
    private readonly cap: number,
    /** Names the hooks in the feedback: `Stop hook feedback: …`. */
    private readonly event: 'Stop' | 'SubagentStop',
    private readonly onCapped: (blocks: number, cap: number) => void = () => undefined,
  ) {}

  /**
   * What the hooks' answer asks of the loop (Claude Code): a block sends the agent back with the
   * reason (and any additionalContext), additionalContext alone sends it back with that. A tool
   * call since the last block starts the count again: an agent that works after each one is not
   * looping. Past the cap, the answer stands.
   */
  continuation(result: DispatchResult, toolCallsSoFar: number): { continueWith?: string } {
    if (!result.blocked && result.contexts.length === 0) return {};
    if (toolCallsSoFar > this.toolCallsAtLastBlock) this.consecutive = 0;
    if (this.cap > 0 && this.consecutive >= this.cap) {
      this.onCapped(this.consecutive, this.cap);
      return {};
    }
    this.total++;
    this.consecutive++;
    this.toolCallsAtLastBlock = toolCallsSoFar;
    const context = result.contexts.length > 0 ? String(reminder(result.contexts).content) : '';
    if (!result.blocked) return { continueWith: context };
    return { continueWith: `${this.event} hook feedback: ${result.blockReason ?? ''}${context ? `\n\n${context}` : ''}` };
  }
}
