import type { PermissionDecider } from '../audit/permission-text';
import type { AuditSink } from '../audit/records';
import type { DispatchResult, TaggedContext } from '../hooks/dispatch-result';
import { formatTaggedContext } from '../hooks/dispatch-result';
import type { EventFields } from '../hooks/payloads';
import type { PermissionUpdate } from '../hooks/types';
import type { PermissionResolution, PermissionSignal, PrecedenceLevel } from '../permissions/precedence';
import type { AgentEvent, HookAnnotation, ToolOutcome } from './agent-events';
import { rewriteToolOutput } from './tool-output-rewrite';
import type { ToolCallRequest } from './llm/chat-model';
import type { GateContext, PermissionGate } from './permissions/permission-gate';
import { suggestedRule } from './permissions/permission-gate';
import type { ApprovalAnswer, ApprovalChoice, Approver } from './permissions/permission-settings';
import type { SessionHooks } from './session-hooks';
import { summarizeToolCall } from './tool-summary';
import type { Tool, ToolContext, ToolResult } from './tools/tool';
import { errorMessage } from '../error-message';

export interface ToolCallOutcome {
  id: string;
  name: string;
  input: Record<string, unknown>;
  outcome: ToolOutcome;
  /** The tool message the model gets. */
  content: string;
  hooks: HookAnnotation[];
  /** A hook said `continue: false`: the session ends after this call. */
  stop?: { reason?: string; hookName: string };
  /** A hook decided `abort` (the turn ends after this call) or `hard_abort` (the session ends too). */
  abort?: { kind: 'turn' | 'hard'; reason?: string; hookName: string };
  durationMs: number;
}

export interface ToolExecutorDeps {
  tools: ReadonlyMap<string, Tool>;
  hooks: SessionHooks;
  gate: PermissionGate;
  approver: Approver;
  gateContext: () => GateContext;
  toolContext: (signal: AbortSignal) => ToolContext;
  emit: (event: AgentEvent) => void;
  /** "Always allow in this workspace": the host writes the rule to its settings. */
  persistAllowRule?: (rule: string) => Promise<void>;
  approvalTimeoutMs: number;
  /** Every permission decision is audited, with the level or actor that made it. */
  audit?: AuditSink;
}

type DenialSource = 'Rule' | 'Hook' | 'User' | 'Timeout' | 'Mode';

/** What asking (PermissionRequest hooks, then a person) decided. */
interface AskAnswer {
  decision: 'allow' | 'deny';
  reason: string;
  by: string;
  source: DenialSource;
  audit: Decision;
  updatedInput?: Record<string, unknown>;
  stop?: { reason?: string; hookName: string };
}

/** Who made a permission decision, as the audit log records it. */
interface Decision {
  by: PermissionDecider;
  source: string;
  level?: PrecedenceLevel;
  answer?: 'once' | 'session' | 'always' | 'deny' | 'deny-session';
}

/**
 * One tool call through the whole gate: PreToolUse hooks, permission precedence,
 * PermissionRequest hooks, a person if still needed, the tool, then PostToolUse or
 * PostToolUseFailure. Every step leaves a trace on the tool card.
 */
export class ToolExecutor {
  constructor(private readonly deps: ToolExecutorDeps) {}

  /** A call the model asked for that never runs still gets its tool message: the API wants one per call. */
  skip(call: ToolCallRequest, reason: string): ToolCallOutcome {
    const input = call.arguments ?? {};
    const content = `Not run: ${reason}`;
    this.deps.emit({ type: 'tool_started', id: call.id, name: call.name, input });
    this.deps.emit({ type: 'tool_finished', id: call.id, name: call.name, input, outcome: 'skipped', output: content, hooks: [], durationMs: 0 });
    this.deps.hooks.emit('ToolSkipped', { tool_name: call.name, tool_input: input, tool_use_id: call.id, reason });
    return { id: call.id, name: call.name, input, outcome: 'skipped', content, hooks: [], durationMs: 0 };
  }

  async execute(call: ToolCallRequest, signal: AbortSignal, seenContexts: Set<string>): Promise<ToolCallOutcome> {
    const started = performance.now();
    const annotations: HookAnnotation[] = [];
    const finish = (outcome: ToolOutcome, content: string, input: Record<string, unknown>, extra: Partial<ToolCallOutcome> = {}): ToolCallOutcome => {
      const result: ToolCallOutcome = { id: call.id, name: call.name, input, outcome, content, hooks: annotations, durationMs: performance.now() - started, ...extra };
      this.deps.emit({ type: 'tool_finished', id: call.id, name: call.name, input, outcome, output: content, hooks: annotations, durationMs: result.durationMs });
      return result;
    };
    const tool = this.deps.tools.get(call.name);
    const rawInput = call.arguments ?? {};
    this.deps.emit({ type: 'tool_started', id: call.id, name: call.name, input: rawInput });
    if (!tool) return finish('failed', `Error: there is no tool named "${call.name}". Available tools: ${[...this.deps.tools.keys()].join(', ')}.`, rawInput);
    if (call.argumentsError) return finish('failed', `Error: the arguments for ${call.name} were not valid JSON (${call.argumentsError}). Send the call again with a JSON object.`, rawInput);
    const parsed = tool.inputSchema.safeParse(rawInput);
    if (!parsed.success) return finish('failed', `Error: invalid input for ${call.name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`, rawInput);
    const ctx = this.deps.toolContext(signal);
    let input = (tool.normalizeInput ? tool.normalizeInput(parsed.data, ctx) : parsed.data) as Record<string, unknown>;

    const pre = await this.deps.hooks.dispatch('PreToolUse', { tool_name: call.name, tool_input: input, tool_use_id: call.id }, signal);
    const contexts = [...pre.contexts];
    annotate(annotations, pre);
    if (pre.stop) {
      const why = pre.stop.reason ?? 'continue: false';
      this.auditPermission(call, 'deny', { by: 'hook', source: `hook ${pre.stop.hookName}`, level: 'P3' }, why);
      return finish('blocked', `Stopped by hook "${pre.stop.hookName}": ${why}`, input, { stop: pre.stop });
    }
    if (pre.abort) {
      this.auditPermission(call, 'deny', { by: 'hook', source: `hook ${pre.abort.hookName}`, level: 'P3' }, pre.abort.reason ?? 'abort');
      return finish('blocked', `Aborted by hook "${pre.abort.hookName}": ${pre.abort.reason ?? 'abort'}`, input, { abort: pre.abort });
    }
    if (pre.decision === 'deny' || pre.blocked) {
      const reason = pre.blockReason ?? 'denied by a PreToolUse hook';
      const decider = pre.runs.find((r) => r.decision === 'deny' || r.decision === 'block')?.hookName ?? pre.blockingErrors[0]?.hookName;
      this.auditPermission(call, 'deny', { by: 'hook', source: `hook ${decider ?? 'unknown'}`, level: 'P3' }, reason);
      const retry = await this.denied(call, input, reason, 'Hook', signal);
      return finish('blocked', withContexts(`PreToolUse hook "${pre.blockingErrors[0]?.hookName ?? 'hook'}" blocked this call: ${reason}${retry}`, contexts, seenContexts), input);
    }
    if (pre.updatedInput) {
      const revalidated = tool.inputSchema.safeParse(pre.updatedInput);
      if (!revalidated.success) return finish('failed', `Error: a PreToolUse hook rewrote the input of ${call.name} into something invalid: ${revalidated.error.issues[0]?.message}`, input);
      input = revalidated.data as Record<string, unknown>;
    }
    const hookSignal = hookVerdict(pre);
    const resolution = this.deps.gate.evaluate(tool, input, hookSignal, this.deps.gateContext());
    this.auditPermission(call, resolution.verdict, gateDecision(resolution), resolution.reason);
    if (resolution.verdict === 'deny') {
      const retry = await this.denied(call, input, resolution.reason, denialSource(resolution), signal);
      return finish('denied', withContexts(`Permission denied (${resolution.source}): ${resolution.reason}${retry}`, contexts, seenContexts), input);
    }
    if (resolution.verdict === 'allow') {
      const veto = await this.approveEveryCall(call, input, resolution.reason, signal, annotations, contexts);
      if (veto) {
        this.auditPermission(call, 'deny', { by: 'hook', source: `hook ${veto.hookName}` }, veto.reason);
        const retry = await this.denied(call, input, veto.reason, 'Hook', signal);
        const halt = veto.abort ? { abort: veto.abort } : veto.stop ? { stop: veto.stop } : {};
        const content = withContexts(`Permission denied (hook ${veto.hookName}): ${veto.reason}${retry}`, contexts, seenContexts);
        return finish('denied', content, input, halt);
      }
    }
    if (resolution.verdict === 'ask') {
      const answer = await this.ask(call, input, resolution.reason, resolution.source, resolution.system, signal, annotations, contexts);
      this.auditPermission(call, answer.decision, answer.audit, answer.reason);
      if (answer.updatedInput && answer.decision === 'allow') {
        const revalidated = tool.inputSchema.safeParse(answer.updatedInput);
        if (!revalidated.success) return finish('failed', `Error: a PermissionRequest hook rewrote the input of ${call.name} into something invalid: ${revalidated.error.issues[0]?.message}`, input);
        const rewritten = revalidated.data as Record<string, unknown>;
        // The hook allowed what it wrote, unchecked: system and rule denials still apply to it,
        // and a system ask (a protected file) needs a person, never a hook.
        const recheck = this.deps.gate.evaluate(tool, rewritten, undefined, this.deps.gateContext());
        if (recheck.verdict === 'deny' || (recheck.verdict === 'ask' && recheck.system)) {
          const reason = `${recheck.reason} (the input a PermissionRequest hook rewrote${recheck.verdict === 'ask' ? ' needs a person to approve it' : ''})`;
          this.auditPermission(call, 'deny', gateDecision(recheck), reason);
          const retry = await this.denied(call, rewritten, reason, denialSource(recheck), signal);
          return finish('denied', withContexts(`Permission denied (${recheck.source}): ${reason}${retry}`, contexts, seenContexts), rewritten);
        }
        input = rewritten;
      }
      if (answer.stop) return finish('denied', `Permission denied and the turn was interrupted by hook "${answer.stop.hookName}": ${answer.stop.reason ?? ''}`, input, { stop: answer.stop });
      if (answer.decision === 'deny') {
        const retry = await this.denied(call, input, answer.reason, answer.source, signal);
        return finish('denied', withContexts(`Permission denied (${answer.by}): ${answer.reason}${retry}`, contexts, seenContexts), input);
      }
    }

    const result = await this.run(tool, input, ctx);
    if (result.ok) {
      const post = await this.deps.hooks.dispatch('PostToolUse', { tool_name: call.name, tool_input: input, tool_response: result.response, tool_use_id: call.id, duration_ms: Math.round(performance.now() - started) }, signal);
      annotate(annotations, post);
      this.auditPermissionsRequired(call, post);
      contexts.push(...post.contexts);
      return finish('executed', withContexts(rewriteToolOutput(result.content, post), contexts, seenContexts), input, halts(post));
    }
    const failure = await this.deps.hooks.dispatch(
      'PostToolUseFailure',
      { tool_name: call.name, tool_input: input, tool_use_id: call.id, error: result.error, is_interrupt: result.interrupted ?? false, duration_ms: Math.round(performance.now() - started) },
      signal.aborted ? undefined : signal,
    );
    annotate(annotations, failure);
    contexts.push(...failure.contexts);
    // AstroResearch's FailHooks: a hook may replace (or shorten) the error text the model sees.
    return finish('failed', withContexts(rewriteToolOutput(result.error, failure), contexts, seenContexts), input, halts(failure));
  }

  private async run(tool: Tool, input: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    try {
      return await tool.run(input, ctx);
    } catch (err) {
      const error = `${tool.name} failed: ${errorMessage(err)}`;
      this.deps.hooks.emit('Error', { error_type: 'tool', error, recoverable: true });
      return { ok: false, error: `Error: ${error}` };
    }
  }

  private async ask(
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

    this.deps.hooks.emit('Notification', { message: `Hookpilot needs your permission to use ${call.name}`, title: 'Permission needed', notification_type: 'permission_prompt' });
    const answer = await this.askPerson(call, input, reason, override?.behavior === 'ask' ? `hook ${override.hookName}` : askedBy, system, signal);
    this.deps.emit({ type: 'approval_resolved', id: call.id, decision: answer.choice === 'deny' || answer.choice === 'deny-session' ? 'deny' : 'allow', by: answer.by });
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
        this.deps.emit({ type: 'notice', level: 'warning', message: `hook "${hookName}": updatedPermissions ${update.type} to ${update.destination ?? '(none)'} is not supported; ignored`, source: 'hook' });
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
  private async approveEveryCall(
    call: ToolCallRequest,
    input: Record<string, unknown>,
    reason: string,
    signal: AbortSignal,
    annotations: HookAnnotation[],
    contexts: TaggedContext[],
  ): Promise<{ hookName: string; reason: string; stop?: ToolCallOutcome['stop']; abort?: ToolCallOutcome['abort'] } | undefined> {
    const result = await this.deps.hooks.approveEveryCall(this.permissionRequest(call, input, 'allow', reason), signal);
    if (!result) return undefined;
    annotate(annotations, result);
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

  private async askPerson(call: ToolCallRequest, input: Record<string, unknown>, reason: string, askedBy: string, system: boolean, signal: AbortSignal): Promise<ApprovalAnswer> {
    this.deps.emit({ type: 'approval_requested', id: call.id, toolName: call.name, input, reason, askedBy });
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ApprovalAnswer>((resolve) => {
      timer = setTimeout(() => {
        // Resolve first: the abort below would otherwise let "cancelled" win the race.
        resolve({ choice: 'deny', by: 'timeout', reason: `no answer within ${Math.round(this.deps.approvalTimeoutMs / 1000)} s`, timedOut: true });
        controller.abort();
      }, this.deps.approvalTimeoutMs);
    });
    const cancelled = new Promise<ApprovalAnswer>((resolve) => controller.signal.addEventListener('abort', () => resolve({ choice: 'deny', by: 'cancel', reason: 'the turn was cancelled' }), { once: true }));
    try {
      return await Promise.race([
        this.deps.approver.request(
          { id: call.id, sessionId: this.deps.hooks.identity.sessionId, toolName: call.name, input, summary: summarizeToolCall(call.name, input), reason, askedBy, suggestedRule: suggestedRule(call.name, input), system },
          controller.signal,
        ),
        timeout,
        cancelled,
      ]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      controller.abort();
    }
  }

  private auditPermission(call: ToolCallRequest, decision: 'allow' | 'deny' | 'ask', who: Decision, reason: string): void {
    const { sessionId, agent } = this.deps.hooks.identity;
    const record = { type: 'permission', session_id: sessionId, tool_name: call.name, tool_use_id: call.id, decision, ...who } as const;
    this.deps.audit?.append({ ...record, agent_id: agent?.id, reason: reason || undefined });
  }

  /** AstroResearch's PermissionRequired: advisory, so it only leaves a record (the timeline shows it). */
  private auditPermissionsRequired(call: ToolCallRequest, post: DispatchResult): void {
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

  /**
   * Fires PermissionDenied and waits for it: a hook answering `retry: true` (Claude Code's
   * hookSpecificOutput) lets the model try again. The retry goes through every check anew,
   * so it can never turn a deny into an allow. Returns the note for the model, or ''.
   */
  private async denied(call: ToolCallRequest, input: Record<string, unknown>, reason: string, source: DenialSource, signal: AbortSignal): Promise<string> {
    const result = await this.deps.hooks.dispatch('PermissionDenied', { tool_name: call.name, tool_input: input, tool_use_id: call.id, reason, source }, signal);
    return result.retry ? `\n\n${RETRY_NOTE}` : '';
  }
}

const RETRY_NOTE = 'A PermissionDenied hook says you may retry this tool call; the retry is checked again like any call.';

/** Who denied, in PermissionDenied's terms. */
function denialSource(resolution: PermissionResolution): DenialSource {
  if (resolution.level === 'P3') return 'Hook';
  return resolution.source.includes('mode') ? 'Mode' : 'Rule';
}

/** The gate's decider, from the signal that won (see permission-gate.ts for the source texts). */
function gateDecision(resolution: PermissionResolution): Decision {
  const { level, source } = resolution;
  // P1 and P2 denials are final too (`system`), but a rule decided them.
  const by: PermissionDecider = level === 'P0' || (level === 'P4' && resolution.system)
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
function personDecision(answer: ApprovalAnswer): Decision {
  if (answer.timedOut) return { by: 'timeout', source: answer.by };
  if (answer.by === 'cancel') return { by: 'cancel', source: answer.by };
  return { by: 'person', source: answer.by, answer: ANSWERS[answer.choice] };
}

/** A hook's `continue: false` or `abort` after the tool ran: the turn ends after this call. */
function halts(result: DispatchResult): Partial<ToolCallOutcome> {
  return { ...(result.stop ? { stop: result.stop } : {}), ...(result.abort ? { abort: result.abort } : {}) };
}

function hookVerdict(pre: DispatchResult): PermissionSignal | undefined {
  if (!pre.decision || pre.decision === 'deny') return undefined;
  const decider = pre.runs.find((r) => r.decision === pre.decision)?.hookName ?? 'hook';
  // `defer` has no meaning outside Claude Code's -p mode: it asks, as the safest reading.
  const verdict = pre.decision === 'defer' ? 'ask' : pre.decision;
  return { verdict, source: `hook ${decider}`, reason: pre.runs.find((r) => r.hookName === decider)?.reason ?? `${verdict} by hook "${decider}"` };
}

function annotate(annotations: HookAnnotation[], result: DispatchResult): void {
  for (const run of result.runs) {
    if (run.status === 'skipped') continue;
    const base = { hookName: run.hookName, event: result.event };
    if (run.status === 'error' || run.status === 'timeout') annotations.push({ ...base, kind: 'error', detail: run.error });
    else if (run.decision === 'deny' || run.decision === 'block') annotations.push({ ...base, kind: result.event === 'PreToolUse' ? 'blocked' : 'feedback', detail: run.reason });
    else if (run.decision === 'ask') annotations.push({ ...base, kind: 'asked', detail: run.reason });
    else if (run.decision === 'allow') annotations.push({ ...base, kind: 'allowed', detail: run.reason });
  }
  for (const c of result.contexts) annotations.push({ hookName: c.hookName, event: result.event, kind: 'context', detail: c.content });
  if (result.updatedInput) annotations.push({ hookName: lastModifier(result) ?? 'hook', event: result.event, kind: 'rewrote-input', detail: JSON.stringify(result.updatedInput) });
  if (result.updatedToolOutput !== undefined) annotations.push({ hookName: lastModifier(result) ?? 'hook', event: result.event, kind: 'rewrote-output' });
  for (const w of result.warnings) annotations.push({ hookName: 'hooks', event: result.event, kind: 'warning', detail: w });
  for (const r of result.permissionsRequired) annotations.push({ hookName: r.hookName, event: result.event, kind: 'warning', detail: `needed permission: ${r.permission}` });
}

function lastModifier(result: DispatchResult): string | undefined {
  return [...result.runs].reverse().find((r) => r.decision === 'modify' || r.decision === 'allow' || r.decision === 'context')?.hookName;
}

/** Hook contexts go next to the tool result, once per step (ContextDeduplicator). */
function withContexts(content: string, contexts: readonly TaggedContext[], seen: Set<string>): string {
  const fresh = contexts.filter((c) => !seen.has(c.content));
  for (const c of fresh) seen.add(c.content);
  if (fresh.length === 0) return content;
  return `${content}\n\n<system-reminder>\n${fresh.map(formatTaggedContext).join('\n')}\n</system-reminder>`;
}
