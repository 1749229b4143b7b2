import type { AuditSink } from '../../audit/records';
import type { AgentHook } from '../agent-hook';
import type { PayloadOf } from '../payloads';

const PREVIEW = 200;

/** AstroResearch's AuditLogHook: a one-line record per tool result and per stop, fire-and-forget. */
export class AuditLogHook implements AgentHook {
  readonly name = 'AuditLog';
  readonly description = 'Writes a short audit note for every tool result and stop.';

  constructor(private readonly sink: AuditSink) {}

  postToolUse(p: PayloadOf<'PostToolUse'>) {
    this.note(p.session_id, `OK ${p.tool_name}`, { tool_use_id: p.tool_use_id, output_preview: preview(p.tool_response) });
  }

  postToolUseFailure(p: PayloadOf<'PostToolUseFailure'>) {
    this.note(p.session_id, `FAIL ${p.tool_name}`, { tool_use_id: p.tool_use_id, error: p.error.slice(0, PREVIEW) });
  }

  onStop(p: PayloadOf<'Stop'>) {
    this.note(p.session_id, 'SESSION_STOP', { last_message_preview: p.last_assistant_message.slice(0, PREVIEW) });
  }

  private note(sessionId: string, message: string, data: Record<string, unknown>): void {
    this.sink.append({ type: 'note', session_id: sessionId, level: 'info', message, data });
  }
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
}
