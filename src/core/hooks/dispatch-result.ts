import { EVENT_INFO, type HookEventName } from './events';
import type { HandlerType, HookDefinition, HookEffects, HookOutcome } from './types';

/** A context a hook injected, tagged with where it came from (AstroResearch's TaggedContext). */
export interface TaggedContext {
  hookName: string;
  event: HookEventName;
  content: string;
}

export function formatTaggedContext(ctx: TaggedContext): string {
  return `[Hook: ${ctx.hookName} | ${ctx.event}] ${ctx.content}`;
}

export type RunStatus = HookOutcome['status'] | 'skipped';

export interface HookRunSummary {
  hookId: string;
  hookName: string;
  handler: HandlerType;
  status: RunStatus;
  /** allow | deny | ask | defer | block | context | none | error | timeout | cancelled | skipped */
  decision: string;
  reason?: string;
  error?: string;
  durationMs: number;
  /** This failure was turned into a block by the hook's failure policy. */
  failedClosed?: boolean;
}

export interface DispatchResult {
  event: HookEventName;
  dispatchId: string;
  /** PreToolUse: the merged decision (deny > defer > ask > allow), if any hook decided. */
  decision?: 'allow' | 'deny' | 'ask' | 'defer';
  /** A hook blocked (exit 2, `decision: block`, deny, or a fail-closed failure). */
  blocked: boolean;
  blockReason?: string;
  blockingErrors: Array<{ hookName: string; reason: string }>;
  contexts: TaggedContext[];
  systemMessages: string[];
  warnings: string[];
  metadata: Record<string, unknown>;
  updatedInput?: Record<string, unknown>;
  updatedToolOutput?: unknown;
  llmRequest?: Record<string, unknown>;
  llmResponse?: Record<string, unknown>;
  /** PermissionRequest: the strictest answer wins, deny > ask > allow, the first of equals (docs/hooks.md#dispatch-order-and-aggregation). */
  permission?: NonNullable<HookEffects['permission']> & { hookName: string };
  /** `continue: false` from a hook: end the session. */
  stop?: { reason?: string; hookName: string };
  abort?: { kind: 'turn' | 'hard'; hookName: string; reason?: string };
  retry?: boolean;
  /** The first hook that asked for the tool output to be shortened. */
  truncateOutputBy?: string;
  /** PostToolUse: permissions hooks say the call needed (advisory, audited). */
  permissionsRequired: Array<{ hookName: string; permission: string; toolName?: string }>;
  /** SessionStart / FileChanged: every hook's watchPaths, in order; undefined when no hook gave any (the list stays). */
  watchPaths?: string[];
  /** Elicitation / ElicitationResult: the strictest action a hook gave (cancel > decline > accept), with its content. */
  elicitation?: NonNullable<HookEffects['elicitation']> & { hookName: string };
  runs: HookRunSummary[];
}

const DECISION_RANK = { allow: 1, ask: 2, defer: 3, deny: 4 } as const;
const PERMISSION_RANK = { allow: 1, ask: 2, deny: 3 } as const;
const ELICITATION_RANK = { none: 0, accept: 1, decline: 2, cancel: 3 } as const;

export function emptyResult(event: HookEventName, dispatchId: string): DispatchResult {
  return {
    event,
    dispatchId,
    blocked: false,
    blockingErrors: [],
    contexts: [],
    systemMessages: [],
    warnings: [],
    metadata: {},
    permissionsRequired: [],
    runs: [],
  };
}

export function outcomeDecisionLabel(outcome: HookOutcome): string {
  switch (outcome.status) {
    case 'success': {
      const e = outcome.effects;
      if (e.decision) return e.decision;
      if (e.permission) return e.permission.behavior;
      if (e.stop) return 'stop';
      if (e.additionalContext) return 'context';
      if (e.updatedInput || e.updatedToolOutput || e.llmRequest || e.llmResponse) return 'modify';
      return 'none';
    }
    case 'blocking-error':
      return 'block';
    default:
      return outcome.status;
  }
}

/** Folds hook outcomes into one dispatch result, keeping everything (docs/design.md#dispatch-order-and-aggregation). */
export class ResultAggregator {
  private readonly seenContexts = new Set<string>();
  private updatedInputBy?: string;
  /** The policy's hooks are judging a rewritten input again: a rewrite of their own stands. */
  rejudging = false;

  constructor(readonly result: DispatchResult) {}

  add(hook: HookDefinition, outcome: HookOutcome, failClosed: boolean): HookRunSummary {
    const summary: HookRunSummary = {
      hookId: hook.id,
      hookName: hook.name,
      handler: hook.spec.type,
      status: outcome.status,
      decision: outcomeDecisionLabel(outcome),
      durationMs: outcome.trace.durationMs,
    };
    this.result.runs.push(summary);
    switch (outcome.status) {
      case 'success':
        this.applyEffects(hook, outcome.effects);
        summary.reason = outcome.effects.reason;
        break;
      case 'blocking-error':
        this.applyEffects(hook, { ...outcome.effects, decision: undefined });
        this.block(hook.name, outcome.reason);
        summary.reason = outcome.reason;
        break;
      case 'error':
      case 'timeout':
      case 'cancelled': {
        const error = outcome.status === 'cancelled' ? 'cancelled' : outcome.error;
        summary.error = error;
        if (failClosed && outcome.status !== 'cancelled') {
          summary.failedClosed = true;
          this.block(hook.name, `hook "${hook.name}" failed (${outcome.status}): ${error}`);
        } else if (outcome.status !== 'cancelled') {
          this.result.warnings.push(`hook "${hook.name}" ${outcome.status === 'timeout' ? 'timed out' : 'failed'}: ${error}`);
        }
        break;
      }
    }
    return summary;
  }

  skip(hook: HookDefinition, why: string): void {
    this.result.runs.push({
      hookId: hook.id,
      hookName: hook.name,
      handler: hook.spec.type,
      status: 'skipped',
      decision: 'skipped',
      reason: why,
      durationMs: 0,
    });
  }

  /** Whether later priority groups must not run. */
  get stopsLaterGroups(): boolean {
    const r = this.result;
    return r.blocked || r.decision === 'deny' || r.permission?.behavior === 'deny' || r.stop !== undefined || r.abort !== undefined;
  }

  private block(hookName: string, reason: string): void {
    const r = this.result;
    r.blockingErrors.push({ hookName, reason });
    if (r.event === 'PermissionRequest') {
      this.answer({ behavior: 'deny', message: reason }, hookName);
      return;
    }
    if (EVENT_INFO[r.event].kind === 'observe') return;
    r.blocked = true;
    r.blockReason ??= reason;
    if (r.event === 'PreToolUse') this.decide('deny');
  }

  private decide(decision: 'allow' | 'deny' | 'ask' | 'defer'): void {
    const current = this.result.decision;
    if (!current || DECISION_RANK[decision] > DECISION_RANK[current]) this.result.decision = decision;
  }

  /**
   * A PermissionRequest answer: a stricter one replaces the answer so far, so that a hook that
   * answers allow first (a lower priority, a faster script) cannot pre-empt another's deny.
   */
  private answer(permission: NonNullable<HookEffects['permission']>, hookName: string): void {
    const current = this.result.permission;
    const stricter = !current || PERMISSION_RANK[permission.behavior] > PERMISSION_RANK[current.behavior];
    const ownRewrite = this.rejudging && permission.updatedInput !== undefined && permission.behavior === current?.behavior;
    if (stricter || ownRewrite) this.result.permission = { ...permission, hookName };
  }

  private applyEffects(hook: HookDefinition, e: HookEffects): void {
    const r = this.result;
    if (e.decision) {
      if (r.event === 'PermissionRequest') {
        if (e.decision !== 'block' && e.decision !== 'defer') this.answer({ behavior: e.decision, message: e.reason }, hook.name);
      } else if (r.event === 'PreToolUse') {
        if (e.decision === 'block') this.block(hook.name, e.reason ?? `blocked by hook "${hook.name}"`);
        else {
          this.decide(e.decision);
          if (e.decision === 'deny') this.block(hook.name, e.reason ?? `denied by hook "${hook.name}"`);
        }
      } else if (e.decision === 'block' || e.decision === 'deny') {
        this.block(hook.name, e.reason ?? `blocked by hook "${hook.name}"`);
      }
    }
    if (e.permission && r.event === 'PermissionRequest') this.answer(e.permission, hook.name);
    if (e.additionalContext) this.addContext(hook.name, e.additionalContext);
    if (e.systemMessage) r.systemMessages.push(e.systemMessage);
    if (e.warnings) r.warnings.push(...e.warnings);
    if (e.metadata) Object.assign(r.metadata, e.metadata);
    if (e.updatedInput) {
      if (this.updatedInputBy)
        r.warnings.push(`hooks "${this.updatedInputBy}" and "${hook.name}" both rewrote the input; "${hook.name}" wins`);
      this.updatedInputBy = hook.name;
      r.updatedInput = e.updatedInput;
    }
    if (e.updatedToolOutput !== undefined) r.updatedToolOutput = e.updatedToolOutput;
    if (e.llmRequest) r.llmRequest = e.llmRequest;
    if (e.llmResponse) r.llmResponse = e.llmResponse;
    if (e.stop) r.stop ??= { reason: e.stop.reason, hookName: hook.name };
    if (e.abort) r.abort ??= { kind: e.abort, hookName: hook.name, reason: e.reason };
    if (e.retry) r.retry = true;
    if (e.truncateOutput) r.truncateOutputBy ??= hook.name;
    if (e.permissionRequired) r.permissionsRequired.push({ hookName: hook.name, ...e.permissionRequired });
    if (e.watchPaths) r.watchPaths = [...(r.watchPaths ?? []), ...e.watchPaths];
    if (e.elicitation) this.answerElicitation(e.elicitation, hook.name);
  }

  /** As for PermissionRequest: a hook that answers accept first cannot pre-empt another's decline. */
  private answerElicitation(answer: NonNullable<HookEffects['elicitation']>, hookName: string): void {
    const current = this.result.elicitation;
    const rank = (action: string | undefined) => ELICITATION_RANK[(action ?? 'none') as keyof typeof ELICITATION_RANK];
    if (!current || rank(answer.action) > rank(current.action)) this.result.elicitation = { ...answer, hookName };
  }

  private addContext(hookName: string, content: string): void {
    // AstroResearch's ContextDeduplicator: identical contexts within one dispatch are kept once.
    if (this.seenContexts.has(content)) return;
    this.seenContexts.add(content);
    this.result.contexts.push({ hookName, event: this.result.event, content });
  }
}
