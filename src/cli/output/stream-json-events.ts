import type { AgentEvent } from '../../core/agent/agent-events';
import { mcpServerOf } from '../../core/mcp/mcp-names';

export interface StreamContext {
  sessionId: string;
  cwd: string;
  permissionMode: string;
}

type Line = Record<string, unknown>;

/** Claude Code's `hook_response` outcome: success, error, or cancelled (a timeout counts as cancelled). */
function hookOutcome(status: string): 'success' | 'error' | 'cancelled' {
  if (status === 'success') return 'success';
  if (status === 'timeout' || status === 'cancelled') return 'cancelled';
  return 'error';
}

/** An MCP tool's line names its server. */
function mcpServer(toolName: string): Line {
  const server = mcpServerOf(toolName);
  return server === undefined ? {} : { mcp_server: server };
}

/**
 * One agent event as one stream-json line, with Claude Code's type names where it has
 * them (system/init, assistant, user tool_result, stream_event, system/hook_started,
 * system/hook_response, system/compact_boundary) and system subtypes for the rest.
 */
export function streamJsonLine(event: AgentEvent, ctx: StreamContext): Line {
  const session = { session_id: ctx.sessionId };
  switch (event.type) {
    case 'session_started':
      return {
        type: 'system',
        subtype: 'init',
        ...session,
        model: event.model,
        source: event.source,
        cwd: ctx.cwd,
        permission_mode: ctx.permissionMode,
      };
    case 'turn_started':
      return {
        type: 'system',
        subtype: 'turn_started',
        ...session,
        turn: event.turn,
        prompt: event.prompt,
        ...(event.wokenBy === undefined ? {} : { woken_by: event.wokenBy }),
      };
    case 'rewake_requested':
      return { type: 'system', subtype: 'rewake_requested', ...session, hook_name: event.hookName };
    case 'prompt_blocked':
      return { type: 'system', subtype: 'prompt_blocked', ...session, reason: event.reason, hook_name: event.hookName };
    case 'steering_injected':
      return { type: 'system', subtype: 'steering_injected', ...session, prompt: event.text };
    case 'steering_blocked':
      return {
        type: 'system',
        subtype: 'steering_blocked',
        ...session,
        prompt: event.text,
        reason: event.reason,
        hook_name: event.hookName,
      };
    case 'text_delta':
      return {
        type: 'stream_event',
        ...session,
        event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: event.text } },
      };
    case 'assistant_message': {
      const content: Line[] = event.content ? [{ type: 'text', text: event.content }] : [];
      for (const call of event.toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
      return { type: 'assistant', ...session, message: { role: 'assistant', content } };
    }
    case 'tool_started':
      return {
        type: 'system',
        subtype: 'tool_started',
        ...session,
        tool_use_id: event.id,
        tool_name: event.name,
        ...mcpServer(event.name),
        tool_input: event.input,
      };
    case 'tool_finished':
      return {
        type: 'user',
        ...session,
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: event.id, content: event.output, is_error: event.outcome !== 'executed' }],
        },
        tool_name: event.name,
        ...mcpServer(event.name),
        tool_input: event.input,
        outcome: event.outcome,
        hooks: event.hooks.map((h) => ({ hook_name: h.hookName, event: h.event, kind: h.kind, detail: h.detail })),
        duration_ms: Math.round(event.durationMs),
      };
    case 'approval_requested':
      return {
        type: 'system',
        subtype: 'approval_requested',
        ...session,
        tool_use_id: event.id,
        tool_name: event.toolName,
        tool_input: event.input,
        reason: event.reason,
        asked_by: event.askedBy,
      };
    case 'approval_resolved':
      return { type: 'system', subtype: 'approval_resolved', ...session, tool_use_id: event.id, decision: event.decision, by: event.by };
    case 'hook_started':
      return {
        type: 'system',
        subtype: 'hook_started',
        ...session,
        hook_id: event.hookId,
        hook_name: event.hookName,
        hook_event: event.event,
        ...(event.statusMessage ? { status_message: event.statusMessage } : {}),
      };
    case 'hook_response':
      return {
        type: 'system',
        subtype: 'hook_response',
        ...session,
        hook_id: event.hookId,
        hook_name: event.hookName,
        hook_event: event.event,
        outcome: hookOutcome(event.status),
        status: event.status,
        decision: event.decision,
        exit_code: event.exitCode,
        stdout: event.stdout ?? '',
        stderr: event.stderr ?? '',
        output: `${event.stdout ?? ''}${event.stderr ?? ''}`,
        duration_ms: Math.round(event.durationMs),
        ...(event.error ? { error: event.error } : {}),
      };
    case 'notice':
      return { type: 'system', subtype: 'notice', ...session, level: event.level, message: event.message, source: event.source };
    case 'usage':
      return {
        type: 'system',
        subtype: 'usage',
        ...session,
        usage: { input_tokens: event.promptTokens, output_tokens: event.completionTokens, total_tokens: event.totalTokens },
      };
    case 'compacted':
      return {
        type: 'system',
        subtype: 'compact_boundary',
        ...session,
        messages_before: event.messagesBefore,
        messages_after: event.messagesAfter,
        summary: event.summary,
      };
    case 'turn_ended':
      return {
        type: 'system',
        subtype: 'turn_ended',
        ...session,
        reason: event.reason,
        result: event.result,
        ...(event.error ? { error: event.error } : {}),
      };
    case 'session_ended':
      return { type: 'system', subtype: 'session_ended', ...session, reason: event.reason };
  }
}
