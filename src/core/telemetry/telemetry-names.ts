import type { Counter, Histogram, Meter } from '@opentelemetry/api';
import type { ToolOutcome } from '../agent/agent-events';

/**
 * The span, attribute and metric names Hookpilot exports, in one place (docs/hooks.md#opentelemetry
 * lists them). OpenTelemetry's semantic conventions are used where one exists (`session.id`,
 * `gen_ai.*`); the rest are `hookpilot.*`.
 */

export const SPAN = {
  session: 'hookpilot.session',
  turn: 'hookpilot.turn',
  modelRequest: 'hookpilot.model_request',
  toolCall: 'hookpilot.tool_call',
  hookRun: 'hookpilot.hook_run',
  /** A span event on the tool-call span. */
  permission: 'hookpilot.permission',
} as const;

export const ATTR = {
  sessionId: 'session.id',
  sessionSource: 'hookpilot.session.source',
  sessionEndReason: 'hookpilot.session.end_reason',
  model: 'gen_ai.request.model',
  operation: 'gen_ai.operation.name',
  finishReason: 'gen_ai.response.finish_reasons',
  responseToolCalls: 'hookpilot.model.tool_calls',
  step: 'hookpilot.step',
  turnNumber: 'hookpilot.turn.number',
  turnIndex: 'hookpilot.turn.index',
  turnReason: 'hookpilot.turn.reason',
  turnSteps: 'hookpilot.turn.steps',
  turnToolCalls: 'hookpilot.turn.tool_calls',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolOutcome: 'hookpilot.tool.outcome',
  deniedBy: 'hookpilot.tool.denied_by',
  agentId: 'hookpilot.agent.id',
  hookName: 'hookpilot.hook.name',
  hookEvent: 'hookpilot.hook.event',
  hookHandler: 'hookpilot.hook.handler',
  hookSource: 'hookpilot.hook.source',
  hookStatus: 'hookpilot.hook.status',
  hookDecision: 'hookpilot.hook.decision',
  hookDurationMs: 'hookpilot.hook.duration_ms',
  hookExitCode: 'hookpilot.hook.exit_code',
  hookReason: 'hookpilot.hook.reason',
  hookAsync: 'hookpilot.hook.async',
  permissionDecision: 'hookpilot.permission.decision',
  permissionSource: 'hookpilot.permission.source',
  permissionBy: 'hookpilot.permission.by',
  permissionRule: 'hookpilot.permission.rule',
  permissionLevel: 'hookpilot.permission.level',
  permissionAnswer: 'hookpilot.permission.answer',
} as const;

/** The events that end a tool call, and the outcome each means. */
export const TOOL_END_EVENTS = {
  PostToolUse: 'executed',
  PostToolUseFailure: 'failed',
  PermissionDenied: 'denied',
  ToolSkipped: 'skipped',
} as const satisfies Record<string, ToolOutcome>;

export const METRIC = {
  hookRuns: 'hookpilot.hook.runs',
  hookFailures: 'hookpilot.hook.failures',
  hookDuration: 'hookpilot.hook.duration',
  toolCalls: 'hookpilot.tool.calls',
  permissionDecisions: 'hookpilot.permission.decisions',
} as const;

export interface TelemetryInstruments {
  hookRuns: Counter;
  hookFailures: Counter;
  hookDuration: Histogram;
  toolCalls: Counter;
  permissionDecisions: Counter;
}

export function createInstruments(meter: Meter): TelemetryInstruments {
  return {
    hookRuns: meter.createCounter(METRIC.hookRuns, { description: 'Hook runs by hook, event, handler, status, decision', unit: '{run}' }),
    hookFailures: meter.createCounter(METRIC.hookFailures, { description: 'Hook runs that failed (error or timeout)', unit: '{run}' }),
    hookDuration: meter.createHistogram(METRIC.hookDuration, { description: 'How long a hook run took', unit: 'ms' }),
    toolCalls: meter.createCounter(METRIC.toolCalls, { description: 'Tool calls, by tool and outcome', unit: '{call}' }),
    permissionDecisions: meter.createCounter(METRIC.permissionDecisions, {
      description: 'Permission decisions, by decision and decider',
      unit: '{decision}',
    }),
  };
}
