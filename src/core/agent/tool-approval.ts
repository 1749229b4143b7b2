import { randomUUID } from 'node:crypto';
import { join, relative } from 'node:path';
import { errorMessage } from '../error-message';
import type { TaggedContext } from '../hooks/dispatch-result';
import type { EventFields } from '../hooks/payloads';
import type { PermissionUpdate } from '../hooks/types';
import type { AgentEvent, HookAnnotation } from './agent-events';
import type { ToolCallRequest } from './llm/chat-model';
import { offeredChoice, offeredChoices } from './permissions/approval-choices';
import type { PermissionGate } from './permissions/permission-gate';
import { suggestedRule } from './permissions/permission-gate';
import type { ApprovalAnswer, ApprovalRequest, Approver, LinkedTarget } from './permissions/permission-settings';
import type { SessionHooks } from './session-hooks';
import type { ToolCallOutcome } from './tool-call-outcome';
import { annotate } from './tool-hook-results';
import { personDecision, type Decision, type DenialSource } from './tool-permission-audit';
import { summarizeToolCall } from './tool-summary';
import type { Tool } from './tools/tool';
import { allowedRoots, isWithin, physicalPathOf, rootPlaces, toAbsolutePath, type WorkspaceScope } from './tools/workspace-paths';
import { showHookMessages } from './hook-notices';

export interface ToolApprovalDeps {
  hooks: SessionHooks;
  gate: PermissionGate;
  approver: Approver;
  /** A file tool's path, for the approval to name the file it leads to. */
  tools: ReadonlyMap<string, Tool>;
  toolContext: (signal: AbortSignal) => WorkspaceScope;
  emit: (event: AgentEvent) => void;
  /** "Always allow in this workspace": the host writes the rule to its settings. */
  persistAllowRule?: (rule: string) => Promise<void>;
  approvalTimeoutMs: number;
}

/** What asking (PermissionRequest hooks, then a person) decided. */
export interface AskAnswer {
  decision: 'allow' | 'deny';
  reason: string;
  by: string;
  source: DenialSource;
  audit: Decision;
  updatedInput?: Record<string, unknown>;
  stop?: { reason?: string; hookName: string };
}

/** An `approve_tool` hook's veto of a call the gate allowed. */
export interface Veto {
  hookName: string;
  reason: string;
  stop?: ToolCallOutcome['stop'];
  abort?: ToolCallOutcome['abort'];
}

/**
 * The permission hooks around a tool call and the person behind them: PermissionRequest hooks
 * and the approver when the gate asks, `approve_tool` hooks when it allows, PermissionDenied
 * when a call is refused.
 */
export class ToolApproval {
  constructor(private readonly deps: ToolApprovalDeps) {}

  async ask(
    call: ToolCallRequest,
    input: Record<string, unknown>,
    reason: string,
    askedBy: string,
    system: boolean,
    signal: AbortSignal,
    annotations: HookAnnotation[],
    contexts: TaggedContext[],
  ): Promise<AskAnswer> {
    const request = await this.deps.hooks.dispatch('PermissionRequest', this.permissionRequest(call, input, 'ask', reason), signal);
    annotate(annotations, request);
    showHookMessages(this.deps.emit, request.systemMessages);
    // AstroResearch's InjectContext: what a PermissionRequest hook adds reaches the model too.
    contexts.push(...request.contexts);
    const override = request.permission;
    const byHook = (decision: 'allow' | 'deny', hookName: string, why: string, extra: Partial<AskAnswer> = {}): AskAnswer => ({
      decision,
      reason: why,
      by: `hook ${hookName}`,
      source: 'Hook',
      audit: { by: 'hook', source: `hook ${hookName}` },
      ...extra,
    });
    if (request.stop) {
      return byHook('deny', request.stop.hookName, request.stop.reason ?? 'stopped by a PermissionRequest hook', { stop: request.stop });
    }
    if (override && override.behavior !== 'ask') await this.applyPermissionUpdates(override.updatedPermissions ?? [], override.hookName);
    if (override?.behavior === 'deny') {
      const stop = override.interrupt ? { stop: { reason: override.message, hookName: override.hookName } } : {};
      return byHook('deny', override.hookName, override.message ?? `denied by hook "${override.hookName}"`, stop);
    }
    // A hook may answer allow, except for a system ask: that one needs a person.
    if (override && override.behavior === 'allow' && !system) {
      return byHook('allow', override.hookName, override.message ?? '', { updatedInput: override.updatedInput });
    }

    this.deps.hooks.emit('Notification', {
      message: `Hookpilot needs your permission to use ${call.name}`,
      title: 'Permission needed',
      notification_type: 'permission_prompt',
    });
    const answer = await this.askPerson(
      call,
      input,
      reason,
      override?.behavior === 'ask' ? `hook ${override.hookName}` : askedBy,
      system,
      signal,
    );
    this.deps.emit({
      type: 'approval_resolved',
      id: call.id,
      decision: answer.choice === 'deny' || answer.choice === 'deny-session' ? 'deny' : 'allow',
      by: answer.by,
    });
    const rule = suggestedRule(call.name, input);
    if (answer.choice === 'deny-session') this.deps.gate.denyForSession(rule);
    const audit = personDecision(answer);
    if (answer.choice === 'deny' || answer.choice === 'deny-session') {
      const source = answer.timedOut ? 'Timeout' : 'User';
      return { decision: 'deny', reason: answer.reason ?? 'the user denied this call', by: answer.by, source, audit };
    }
    if (answer.choice === 'allow-session' || answer.choice === 'allow-always') this.deps.gate.allowForSession(rule);
    if (answer.choice === 'allow-always') await this.deps.persistAllowRule?.(rule);
    return { decision: 'allow', reason: '', by: answer.by, source: 'User', audit };
  }

  /**
   * A PermissionRequest hook's `updatedPermissions` (Claude Code): `addRules` with destination
   * `session` adds session rules; to a settings file, an allow rule is saved like "Always allow".
   * Rules only: they rank below the system checks, so no hook can open the workspace boundary.
   */
  private async applyPermissionUpdates(updates: readonly PermissionUpdate[], hookName: string): Promise<void> {
    for (const update of updates) {
      const rules = (update.rules ?? []).map((r) => (r.ruleContent ? `${r.toolName}(${r.ruleContent})` : r.toolName));
      const persisted = update.destination === 'projectSettings' || update.destination === 'localSettings';
      if (update.type !== 'addRules' || (update.destination !== 'session' && !(persisted && update.behavior === 'allow'))) {
        this.deps.emit({
          type: 'notice',
          level: 'warning',
          message: `hook "${hookName}": updatedPermissions ${update.type} to ${update.destination ?? '(none)'} is not supported; ignored`,
          source: 'hook',
        });
        continue;
      }
      for (const rule of rules) {
        if (update.behavior === 'deny') this.deps.gate.denyForSession(rule);
        else if (update.behavior === 'allow') this.deps.gate.allowForSession(rule);
        if (persisted && update.behavior === 'allow') await this.deps.persistAllowRule?.(rule);
      }
    }
  }

  /**
   * Hooks registered as `approve_tool` see every call that would run, also those a rule or the
   * mode allowed: any of them may deny it (a failing one denies too). They cannot allow more
   * than the gate did, nor rewrite the input.
   */
  async approveEveryCall(
    call: ToolCallRequest,
    input: Record<string, unknown>,
    reason: string,
    signal: AbortSignal,
    annotations: HookAnnotation[],
    contexts: TaggedContext[],
  ): Promise<Veto | undefined> {
    const result = await this.deps.hooks.approveEveryCall(this.permissionRequest(call, input, 'allow', reason), signal);
    if (!result) return undefined;
    annotate(annotations, result);
    showHookMessages(this.deps.emit, result.systemMessages);
    contexts.push(...result.contexts);
    const denier = result.runs.find((r) => r.decision === 'deny');
    const blocked = result.blockingErrors[0];
    if (result.abort) return { hookName: result.abort.hookName, reason: result.abort.reason ?? 'abort', abort: result.abort };
    if (result.stop) return { hookName: result.stop.hookName, reason: result.stop.reason ?? 'continue: false', stop: result.stop };
    if (result.permission?.behavior === 'deny') {
      const { hookName, message, interrupt } = result.permission;
      const why = message ?? `denied by hook "${hookName}"`;
      return { hookName, reason: why, stop: interrupt ? { reason: message, hookName } : undefined };
    }
    if (denier) return { hookName: denier.hookName, reason: denier.reason ?? `denied by hook "${denier.hookName}"` };
    if (blocked) return { hookName: blocked.hookName, reason: blocked.reason };
    return undefined;
  }

  /** PermissionRequest's fields: `current_decision` is what the permission check said. */
  private permissionRequest(
    call: ToolCallRequest,
    input: Record<string, unknown>,
    current: 'ask' | 'allow',
    reason: string,
  ): EventFields<'PermissionRequest'> {
    return {
      tool_name: call.name,
      tool_input: input,
      tool_use_id: call.id,
      current_decision: current,
      decision_reason: reason,
      is_subagent: this.deps.hooks.identity.agent !== undefined,
      permission_suggestions: [suggestedRule(call.name, input)],
    };
  }

  private async askPerson(
    call: ToolCallRequest,
    input: Record<string, unknown>,
    reason: string,
    askedBy: string,
    system: boolean,
    signal: AbortSignal,
  ): Promise<ApprovalAnswer> {
    // Cancelled while PermissionRequest hooks ran: nobody is asked about a call that cannot run.
    if (signal.aborted) return { choice: 'deny', by: 'cancel', reason: 'the turn was cancelled' };
    const target = this.deps.tools.get(call.name)?.target?.(input);
    const linked = target === undefined ? undefined : linkedTarget(target, this.deps.toolContext(signal));
    const request: ApprovalRequest = {
      id: call.id,
      askId: randomUUID(),
      sessionId: this.deps.hooks.identity.sessionId,
      toolName: call.name,
      input,
      summary: summarizeToolCall(call.name, input),
      linkedTarget: linked,
      reason,
      askedBy,
      suggestedRule: suggestedRule(call.name, input),
      system,
    };
    const choices = offeredChoices(request);
    this.deps.emit({
      type: 'approval_requested',
      id: call.id,
      askId: request.askId,
      toolName: call.name,
      input,
      linkedTarget: linked,
      reason,
      askedBy,
      suggestedRule: request.suggestedRule,
      choices,
    });
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ApprovalAnswer>((resolve) => {
      timer = setTimeout(() => {
        // Resolve first: the abort below would otherwise let "cancelled" win the race.
        resolve({
          choice: 'deny',
          by: 'timeout',
          reason: `no answer within ${Math.round(this.deps.approvalTimeoutMs / 1000)} s`,
          timedOut: true,
        });
        controller.abort();
      }, this.deps.approvalTimeoutMs);
    });
    const cancelled = new Promise<ApprovalAnswer>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve({ choice: 'deny', by: 'cancel', reason: 'the turn was cancelled' }), {
        once: true,
      }),
    );
    try {
      const answer = await Promise.race([this.deps.approver.request(request, controller.signal), timeout, cancelled]);
      // Whatever the host's approver is, no answer is wider than what was offered.
      return { ...answer, choice: offeredChoice(request, answer.choice) };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      controller.abort();
    }
  }

  /**
   * Fires PermissionDenied and waits for it: a hook answering `retry: true` (Claude Code's
   * hookSpecificOutput) lets the model try again. The retry goes through every check anew,
   * so it can never turn a deny into an allow. Returns the note for the model, or ''.
   */
  async denied(
    call: ToolCallRequest,
    input: Record<string, unknown>,
    reason: string,
    source: DenialSource,
    signal: AbortSignal,
  ): Promise<string> {
    const result = await this.deps.hooks.dispatch(
      'PermissionDenied',
      { tool_name: call.name, tool_input: input, tool_use_id: call.id, reason, source },
      signal,
    );
    return result.retry ? `\n\n${RETRY_NOTE}` : '';
  }
}

/**
 * Where a file tool's path leads when that is not the path as given: the gate and the tool act
 * on the file at the end of every link (`notes.txt -> config/prod.env`, `/proc/self/root/...`),
 * so the person approving must see it. A root that is itself a link (macOS's /tmp) is no news:
 * a path inside it is shown under the root as written.
 */
function linkedTarget(filePath: string, scope: WorkspaceScope): LinkedTarget | undefined {
  try {
    const physical = physicalPathOf(filePath, scope.cwd);
    const root = rootPlaces(allowedRoots(scope)).find((place) => isWithin(place.physical, physical));
    const shown = root ? join(root.written, relative(root.physical, physical)) : physical;
    const given = toAbsolutePath(filePath, scope.cwd);
    return given === physical || given === shown ? undefined : { path: shown };
  } catch (error) {
    return { unresolved: errorMessage(error) };
  }
}

const RETRY_NOTE = 'A PermissionDenied hook says you may retry this tool call; the retry is checked again like any call.';
