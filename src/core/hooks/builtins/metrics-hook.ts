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

/**
 * AstroResearch's MetricsHook: counts per live session, readable by the host at any time. At
 * SessionEnd the final counts go to the audit timeline as metadata and the session is
 * forgotten, so a long-lived host does not accumulate every session it ever ran.
 */
export class MetricsHook implements AgentHook {
  readonly name = 'Metrics';
  readonly description = 'Counts tool calls, failures and steps per session.';
  private readonly sessions = new Map<string, SessionMetrics>();

  /** A live session's counts so far; undefined once it has ended (or before it started). */
  metrics(sessionId: string): SessionMetrics | undefined {
    const m = this.sessions.get(sessionId);
    return m && { ...m, toolsByName: { ...m.toolsByName } };
  }

  private entry(sessionId: string): SessionMetrics {
    let m = this.sessions.get(sessionId);
    if (!m) {
      m = { toolCalls: 0, toolFailures: 0, toolsByName: {}, steps: 0, estimatedTokens: 0 };
      this.sessions.set(sessionId, m);
    }
    return m;
  }

  onSessionStart(p: PayloadOf<'SessionStart'>) {
    this.entry(p.session_id);
  }

  postToolUse(p: PayloadOf<'PostToolUse'>) {
    this.count(p.session_id, p.tool_name);
  }

  postToolUseFailure(p: PayloadOf<'PostToolUseFailure'>) {
    this.count(p.session_id, p.tool_name);
    this.entry(p.session_id).toolFailures++;
  }

  onStepComplete(p: PayloadOf<'StepComplete'>) {
    const m = this.entry(p.session_id);
    // `step` restarts every turn; the session's count does not.
    m.steps++;
    m.estimatedTokens = p.estimated_tokens;
    // Every third step the summary rides along as metadata for the timeline, as AstroResearch's metrics hook does.
    return m.steps % 3 === 0 ? { metadata: { metrics: this.metrics(p.session_id) } } : undefined;
  }

  onStop(p: PayloadOf<'Stop'>) {
    this.entry(p.session_id).stopReason = 'completed';
  }

  onSessionEnd(p: PayloadOf<'SessionEnd'>) {
    const m = this.sessions.get(p.session_id);
    this.sessions.delete(p.session_id);
    return m ? { metadata: { metrics: { ...m, stopReason: p.reason } } } : undefined;
  }

  private count(sessionId: string, tool: string): void {
    const m = this.entry(sessionId);
    m.toolCalls++;
    m.toolsByName[tool] = (m.toolsByName[tool] ?? 0) + 1;
  }
}
