import type { TurnOutcome } from '../../core/agent/turn-loop';

/** The final object of `--output-format json` and the last line of `stream-json`, shaped like Claude Code's. */
export interface RunResult {
  type: 'result';
  subtype: 'success' | 'error_max_turns' | 'error_during_execution' | 'error_blocked' | 'error_cancelled';
  result: string;
  session_id: string;
  num_turns: number;
  is_error: boolean;
  stop_reason: TurnOutcome['reason'];
  error?: string;
  duration_ms: number;
  tool_calls: Array<{
    id: string;
    name: string;
    input: Record<string, unknown>;
    outcome: string;
    output: string;
    hooks: Array<{ hook_name: string; event: string; kind: string; detail?: string }>;
  }>;
  permission_denials: Array<{ tool_name: string; tool_use_id: string; tool_input: Record<string, unknown> }>;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
  audit_log: string;
}

export function buildRunResult(outcome: TurnOutcome, context: { sessionId: string; auditLog: string; durationMs: number }): RunResult {
  const error =
    outcome.error ??
    (outcome.stopSession
      ? `hook "${outcome.stopSession.hookName}" stopped the session${outcome.stopSession.reason ? `: ${outcome.stopSession.reason}` : ''}`
      : undefined);
  return {
    type: 'result',
    subtype: subtypeOf(outcome.reason),
    result: outcome.result,
    session_id: context.sessionId,
    num_turns: outcome.steps,
    is_error: outcome.reason !== 'completed',
    stop_reason: outcome.reason,
    ...(error ? { error } : {}),
    duration_ms: Math.round(context.durationMs),
    tool_calls: outcome.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      input: call.input,
      outcome: call.outcome,
      output: call.content,
      hooks: call.hooks.map((h) => ({ hook_name: h.hookName, event: h.event, kind: h.kind, ...(h.detail ? { detail: h.detail } : {}) })),
    })),
    // Claude Code lists every call the permission system or a hook refused.
    permission_denials: outcome.toolCalls
      .filter((call) => call.outcome === 'denied' || call.outcome === 'blocked')
      .map((call) => ({ tool_name: call.name, tool_use_id: call.id, tool_input: call.input })),
    usage: {
      input_tokens: outcome.usage.promptTokens,
      output_tokens: outcome.usage.completionTokens,
      total_tokens: outcome.usage.totalTokens,
    },
    audit_log: context.auditLog,
  };
}

function subtypeOf(reason: TurnOutcome['reason']): RunResult['subtype'] {
  switch (reason) {
    case 'completed':
      return 'success';
    case 'max_steps':
      return 'error_max_turns';
    case 'blocked':
      return 'error_blocked';
    case 'cancelled':
      return 'error_cancelled';
    default:
      return 'error_during_execution';
  }
}
