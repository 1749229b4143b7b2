import type { AgentHook } from '../agent-hook';
import type { PayloadOf } from '../payloads';

export interface SessionMetrics {
  toolCalls: number;
  toolFailures: number;
  toolsByName: Record<string, number>;
  steps: number;
  estimatedTokens: number;
  stopReason?: string;
}

/** Seed 000 MetricsHook: counts per session, readable by the host at any time. */
export class MetricsHook implements AgentHook {
  readonly name = 'Metrics';
  readonly description = 'Counts tool calls, failures and steps per session.';
  private readonly sessions = new Map<string, SessionMetrics>();

  metrics(sessionId: string): SessionMetrics {
    let m = this.sessions.get(sessionId);
    if (!m) {
      m = { toolCalls: 0, toolFailures: 0, toolsByName: {}, steps: 0, estimatedTokens: 0 };
      this.sessions.set(sessionId, m);
    }
    return m;
  }

  onSessionStart(p: PayloadOf<'SessionStart'>) {
    this.metrics(p.session_id);
  }

  postToolUse(p: PayloadOf<'PostToolUse'>) {
    this.count(p.session_id, p.tool_name);
  }

  postToolUseFailure(p: PayloadOf<'PostToolUseFailure'>) {
    this.count(p.session_id, p.tool_name);
    this.metrics(p.session_id).toolFailures++;
  }

  onStepComplete(p: PayloadOf<'StepComplete'>) {
    const m = this.metrics(p.session_id);
    m.steps = p.step;
    m.estimatedTokens = p.estimated_tokens;
    // Every third step the summary rides along as metadata for the timeline (seed 000).
    return p.step % 3 === 0 ? { metadata: { metrics: { ...m } } } : undefined;
  }

  onStop(p: PayloadOf<'Stop'>) {
    this.metrics(p.session_id).stopReason = 'completed';
  }

  onSessionEnd(p: PayloadOf<'SessionEnd'>) {
    this.metrics(p.session_id).stopReason = p.reason;
  }

  private count(sessionId: string, tool: string): void {
    const m = this.metrics(sessionId);
    m.toolCalls++;
    m.toolsByName[tool] = (m.toolsByName[tool] ?? 0) + 1;
  }
}
