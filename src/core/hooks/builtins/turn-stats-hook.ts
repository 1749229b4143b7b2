import type { AgentHook } from '../agent-hook';
import type { PayloadOf } from '../payloads';

export interface TurnStats {
  turn: number;
  startedAt: number;
  steps: number;
  toolCalls: number;
  durationMs?: number;
}

/** AtomCode's TurnStatsHook: per-turn step and tool counts and duration, for a live session. */
export class TurnStatsHook implements AgentHook {
  readonly name = 'TurnStats';
  readonly description = 'Measures steps, tool calls and time per turn.';
  private readonly current = new Map<string, TurnStats>();
  private readonly history = new Map<string, TurnStats[]>();

  constructor(private readonly now: () => number = Date.now) {}

  stats(sessionId: string): readonly TurnStats[] {
    return this.history.get(sessionId) ?? [];
  }

  onTurnStart(p: PayloadOf<'TurnStart'>) {
    const stats: TurnStats = { turn: p.turn_index, startedAt: this.now(), steps: 0, toolCalls: 0 };
    this.current.set(p.session_id, stats);
    this.history.set(p.session_id, [...(this.history.get(p.session_id) ?? []), stats]);
  }

  onStepComplete(p: PayloadOf<'StepComplete'>) {
    const stats = this.current.get(p.session_id);
    if (!stats) return undefined;
    stats.steps++;
    stats.toolCalls += p.tool_calls;
    stats.durationMs = this.now() - stats.startedAt;
    return { metadata: { turn_stats: { ...stats } } };
  }

  /** AtomCode's OnTurnComplete: the turn's final figures, with how it ended. */
  onTurnEnd(p: PayloadOf<'TurnEnd'>) {
    const stats = this.current.get(p.session_id);
    if (!stats) return undefined;
    this.current.delete(p.session_id);
    stats.durationMs = this.now() - stats.startedAt;
    return { metadata: { turn_stats: { ...stats, reason: p.reason } } };
  }

  /** A long-lived host must not keep every session it ever ran. */
  onSessionEnd(p: PayloadOf<'SessionEnd'>) {
    this.current.delete(p.session_id);
    this.history.delete(p.session_id);
  }
}
