import type { PermissionDecider } from '../audit/permission-text';
import type { AuditSink } from '../audit/records';
import type { DispatchResult } from '../hooks/dispatch-result';
import type { PermissionResolution, PrecedenceLevel } from '../permissions/precedence';
import type { ToolCallRequest } from './llm/chat-model';
import type { ApprovalAnswer, ApprovalChoice } from './permissions/permission-settings';
import type { SessionHooks } from './session-hooks';

/** Who denied a call, in PermissionDenied's terms. */
export type DenialSource = 'Rule' | 'Hook' | 'User' | 'Timeout' | 'Mode';

/** Who made a permission decision, as the audit log records it. */
export interface Decision {
  by: PermissionDecider;
  source: string;
  level?: PrecedenceLevel;
  answer?: 'once' | 'session' | 'always' | 'deny' | 'deny-session';
}

/** Every permission decision of a tool call is audited, with the level or actor that made it. */
export class ToolPermissionAudit {
  constructor(private readonly deps: { hooks: SessionHooks; audit?: AuditSink }) {}

  decision(call: ToolCallRequest, decision: 'allow' | 'deny' | 'ask', who: Decision, reason: string): void {
    const { sessionId, agent } = this.deps.hooks.identity;
    const record = { type: 'permission', session_id: sessionId, tool_name: call.name, tool_use_id: call.id, decision, ...who } as const;
    this.deps.audit?.append({ ...record, agent_id: agent?.id, reason: reason || undefined });
  }

  /** AstroResearch's PermissionRequired: advisory, so it only leaves a record (the timeline shows it). */
  permissionsRequired(call: ToolCallRequest, post: DispatchResult): void {
    const { sessionId, agent } = this.deps.hooks.identity;
    for (const required of post.permissionsRequired) {
      this.deps.audit?.append({
        type: 'permission_required',
        session_id: sessionId,
        tool_name: required.toolName ?? call.name,
        tool_use_id: call.id,
        permission: required.permission,
        hook_name: required.hookName,
        agent_id: agent?.id,
      });
    }
  }
}

/** Who denied, in PermissionDenied's terms. */
export function denialSource(resolution: PermissionResolution): DenialSource {
  if (resolution.level === 'P3') return 'Hook';
  return resolution.source.includes('mode') ? 'Mode' : 'Rule';
}

/** The gate's decider, from the signal that won (see permission-gate.ts for the source texts). */
export function gateDecision(resolution: PermissionResolution): Decision {
  const { level, source } = resolution;
  // P1 and P2 denials are final too (`system`), but a rule decided them.
  const by: PermissionDecider =
    level === 'P0' || (level === 'P4' && resolution.system)
      ? 'system'
      : source.startsWith('session rule ')
        ? 'session-rule'
        : source.startsWith('rule ')
          ? 'rule'
          : source.startsWith('hook ')
            ? 'hook'
            : 'mode';
  return { by, source, level };
}

const ANSWERS: Record<ApprovalChoice, NonNullable<Decision['answer']>> = {
  'allow-once': 'once',
  'allow-session': 'session',
  'allow-always': 'always',
  deny: 'deny',
  'deny-session': 'deny-session',
};

/** A person's answer, or what stood in for one (the approval timeout, a cancelled turn). */
export function personDecision(answer: ApprovalAnswer): Decision {
  if (answer.timedOut) return { by: 'timeout', source: answer.by };
  if (answer.by === 'cancel') return { by: 'cancel', source: answer.by };
  return { by: 'person', source: answer.by, answer: ANSWERS[answer.choice] };
}
