import type { DispatchResult } from '../hooks/dispatch-result';
import { emptyResult } from '../hooks/dispatch-result';
import type { HookDispatcher } from '../hooks/dispatcher';
import type { HookEventName } from '../hooks/events';
import type { EventFields } from '../hooks/payloads';
import { isPolicyJudge } from '../hooks/policy-recheck';
import type { HookDefinition, HookPayload } from '../hooks/types';

export interface SessionIdentity {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  permissionMode: () => string;
  /** Set inside a subagent (Claude Code adds agent_id / agent_type to its payloads). */
  agent?: { id: string; type: string };
}

const SUBAGENT_EVENTS: ReadonlySet<HookEventName> = new Set<HookEventName>([
  'BeforeLLM',
  'AfterLLM',
  'PreCompact',
  'PostCompact',
  'PreToolUse',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolUse',
  'PostToolUseFailure',
]);

/**
 * The agent's view of the hook engine for one session: it fills in the common payload
 * fields. A subagent gets a subset view (the SubsetHooks of a Go coding agent's hooks): only some events pass.
 */
export class SessionHooks {
  constructor(
    private readonly dispatcher: HookDispatcher,
    readonly identity: SessionIdentity,
    private readonly only?: ReadonlySet<HookEventName>,
  ) {}

  payload<E extends HookEventName>(event: E, fields: EventFields<E>): HookPayload {
    const id = this.identity;
    return {
      session_id: id.sessionId,
      transcript_path: id.transcriptPath,
      cwd: id.cwd,
      permission_mode: id.permissionMode(),
      // Inside a subagent every payload says so (AstroResearch's is_subagent), with the agent's identity.
      ...(id.agent ? { agent_id: id.agent.id, agent_type: id.agent.type, is_subagent: true } : {}),
      ...fields,
      hook_event_name: event,
    };
  }

  /** `env`: variables for this dispatch's command hooks (SessionStart's CLAUDE_ENV_FILE). */
  async dispatch<E extends HookEventName>(
    event: E,
    fields: EventFields<E>,
    signal?: AbortSignal,
    env?: Readonly<Record<string, string>>,
  ): Promise<DispatchResult> {
    if (this.only && !this.only.has(event)) return emptyResult(event, '');
    return this.dispatcher.dispatch(this.payload(event, fields), { signal, env });
  }

  /**
   * PermissionRequest for a call the gate allowed without asking: only hooks registered as
   * `approve_tool` see it. Undefined when none applies to this call (nothing is dispatched or audited).
   */
  async approveEveryCall(fields: EventFields<'PermissionRequest'>, signal?: AbortSignal): Promise<DispatchResult | undefined> {
    if (this.only && !this.only.has('PermissionRequest')) return undefined;
    const payload = this.payload('PermissionRequest', fields);
    const only = (hook: HookDefinition) => hook.everyCall === true && this.dispatcher.selects(hook, payload);
    if (!this.dispatcher.hasSubscribers('PermissionRequest', this.identity.sessionId, only)) return undefined;
    return this.dispatcher.dispatch(payload, { signal, only });
  }

  /**
   * The managed policy's hooks of `event` only: they judge the input a call runs with, also one
   * a PermissionRequest hook of another source rewrote after the PreToolUse guards had judged it.
   */
  async dispatchPolicy<E extends HookEventName>(
    event: E,
    fields: EventFields<E>,
    signal?: AbortSignal,
    rejudge?: ReadonlySet<string>,
  ): Promise<DispatchResult | undefined> {
    if (this.only && !this.only.has(event)) return undefined;
    // As the dispatcher's own re-check: async hooks decide nothing and are not run again.
    const only = isPolicyJudge;
    if (!this.dispatcher.hasSubscribers(event, this.identity.sessionId, only)) return undefined;
    return this.dispatcher.dispatch(this.payload(event, fields), { signal, only, rejudge });
  }

  /** The session's active hooks of `event`, before their matchers are tested. */
  subscribers(event: HookEventName): readonly HookDefinition[] {
    if (this.only && !this.only.has(event)) return [];
    return this.dispatcher.subscribers(event, this.identity.sessionId);
  }

  emit<E extends HookEventName>(event: E, fields: EventFields<E>): void {
    if (this.only && !this.only.has(event)) return;
    this.dispatcher.emit(this.payload(event, fields));
  }

  /** What async hooks reported since the last step, for the main agent only: a subagent leaves it for its next step. */
  takeAsyncContexts() {
    return this.identity.agent ? [] : this.dispatcher.takeAsyncContexts(this.identity.sessionId);
  }

  /**
   * The view a subagent gets: its model requests and tool calls pass the same gates as the
   * parent's (BeforeLLM, AfterLLM, PreCompact/PostCompact, PreToolUse, PermissionRequest,
   * PermissionDenied, PostToolUse, PostToolUseFailure); no other event is inherited.
   */
  forSubagent(agent: { id: string; type: string }): SessionHooks {
    return new SessionHooks(this.dispatcher, { ...this.identity, agent }, SUBAGENT_EVENTS);
  }
}
