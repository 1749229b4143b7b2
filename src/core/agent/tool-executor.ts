import type { AuditSink } from '../audit/records';
import type { AgentEvent, HookAnnotation, ToolOutcome } from './agent-events';
import { ApprovedRewrite } from './approved-rewrite';
import { rewriteToolOutput } from './tool-output-rewrite';
import type { ToolCallRequest } from './llm/chat-model';
import type { GateContext, PermissionGate } from './permissions/permission-gate';
import type { Approver } from './permissions/permission-settings';
import type { SessionHooks } from './session-hooks';
import { ToolApproval } from './tool-approval';
import { CANCELLED_BEFORE_RUN, type ToolCallOutcome } from './tool-call-outcome';
import { annotate, halts, hookVerdict, withContexts } from './tool-hook-results';
import { denialSource, gateDecision, ToolPermissionAudit } from './tool-permission-audit';
import type { Tool, ToolContext, ToolResult } from './tools/tool';
import { errorMessage } from '../error-message';
import { showHookMessages } from './hook-notices';

export type { ToolCallOutcome } from './tool-call-outcome';

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

/**
 * One tool call through the whole gate: PreToolUse hooks, permission precedence,
 * PermissionRequest hooks, a person if still needed, the tool, then PostToolUse or
 * PostToolUseFailure. Every step leaves a trace on the tool card.
 */
export class ToolExecutor {
  private readonly approval: ToolApproval;
  private readonly permissions: ToolPermissionAudit;
  private readonly rewrites: ApprovedRewrite;

  constructor(private readonly deps: ToolExecutorDeps) {
    this.approval = new ToolApproval(deps);
    this.permissions = new ToolPermissionAudit(deps);
    this.rewrites = new ApprovedRewrite(deps, this.permissions, this.approval);
  }

  /** A call the model asked for that never runs still gets its tool message: the API wants one per call. */
  skip(call: ToolCallRequest, reason: string): ToolCallOutcome {
    const input = call.arguments ?? {};
    const content = `Not run: ${reason}`;
    this.deps.emit({ type: 'tool_started', id: call.id, name: call.name, input });
    this.deps.emit({
      type: 'tool_finished',
      id: call.id,
      name: call.name,
      input,
      outcome: 'skipped',
      output: content,
      hooks: [],
      durationMs: 0,
    });
    this.deps.hooks.emit('ToolSkipped', { tool_name: call.name, tool_input: input, tool_use_id: call.id, reason });
    return { id: call.id, name: call.name, input, outcome: 'skipped', content, hooks: [], durationMs: 0 };
  }

  async execute(call: ToolCallRequest, signal: AbortSignal, seenContexts: Set<string>): Promise<ToolCallOutcome> {
    const started = performance.now();
    const annotations: HookAnnotation[] = [];
    const finish = (
      outcome: ToolOutcome,
      content: string,
      input: Record<string, unknown>,
      extra: Partial<ToolCallOutcome> = {},
    ): ToolCallOutcome => {
      const result: ToolCallOutcome = {
        id: call.id,
        name: call.name,
        input,
        outcome,
        content,
        hooks: annotations,
        durationMs: performance.now() - started,
        ...extra,
      };
      this.deps.emit({
        type: 'tool_finished',
        id: call.id,
        name: call.name,
        input,
        outcome,
        output: content,
        hooks: annotations,
        durationMs: result.durationMs,
      });
      return result;
    };
    // A guard the cancel killed never answered, so it allowed nothing: once the turn is
    // cancelled, whatever the hooks and the gate said, the call does not run.
    const cancelled = (input: Record<string, unknown>): ToolCallOutcome => {
      this.permissions.decision(call, 'deny', { by: 'cancel', source: 'cancel' }, 'the turn was cancelled');
      this.deps.hooks.emit('ToolSkipped', { tool_name: call.name, tool_input: input, tool_use_id: call.id, reason: CANCELLED_BEFORE_RUN });
      return finish('skipped', `Not run: ${CANCELLED_BEFORE_RUN}`, input);
    };
    const tool = this.deps.tools.get(call.name);
    const rawInput = call.arguments ?? {};
    this.deps.emit({ type: 'tool_started', id: call.id, name: call.name, input: rawInput });
    if (!tool)
      return finish(
        'failed',
        `Error: there is no tool named "${call.name}". Available tools: ${[...this.deps.tools.keys()].join(', ')}.`,
        rawInput,
      );
    if (call.argumentsError)
      return finish(
        'failed',
        `Error: the arguments for ${call.name} could not be used (${call.argumentsError}). Send the call again with a JSON object.`,
        rawInput,
      );
    const parsed = tool.inputSchema.safeParse(rawInput);
    if (!parsed.success)
      return finish(
        'failed',
        `Error: invalid input for ${call.name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`,
        rawInput,
      );
    const ctx = this.deps.toolContext(signal);
    let input = (tool.normalizeInput ? tool.normalizeInput(parsed.data, ctx) : parsed.data) as Record<string, unknown>;

    const pre = await this.deps.hooks.dispatch('PreToolUse', { tool_name: call.name, tool_input: input, tool_use_id: call.id }, signal);
    const contexts = [...pre.contexts];
    annotate(annotations, pre);
    showHookMessages(this.deps.emit, pre.systemMessages);
    if (pre.stop) {
      const why = pre.stop.reason ?? 'continue: false';
      this.permissions.decision(call, 'deny', { by: 'hook', source: `hook ${pre.stop.hookName}`, level: 'P3' }, why);
      return finish('blocked', `Stopped by hook "${pre.stop.hookName}": ${why}`, input, { stop: pre.stop });
    }
    if (pre.abort) {
      this.permissions.decision(
        call,
        'deny',
        { by: 'hook', source: `hook ${pre.abort.hookName}`, level: 'P3' },
        pre.abort.reason ?? 'abort',
      );
      return finish('blocked', `Aborted by hook "${pre.abort.hookName}": ${pre.abort.reason ?? 'abort'}`, input, { abort: pre.abort });
    }
    if (pre.decision === 'deny' || pre.blocked) {
      const reason = pre.blockReason ?? 'denied by a PreToolUse hook';
      const decider = pre.runs.find((r) => r.decision === 'deny' || r.decision === 'block')?.hookName ?? pre.blockingErrors[0]?.hookName;
      this.permissions.decision(call, 'deny', { by: 'hook', source: `hook ${decider ?? 'unknown'}`, level: 'P3' }, reason);
      const retry = await this.approval.denied(call, input, reason, 'Hook', signal);
      return finish(
        'blocked',
        withContexts(
          `PreToolUse hook "${pre.blockingErrors[0]?.hookName ?? 'hook'}" blocked this call: ${reason}${retry}`,
          contexts,
          seenContexts,
        ),
        input,
      );
    }
    if (pre.updatedInput) {
      const revalidated = tool.inputSchema.safeParse(pre.updatedInput);
      if (!revalidated.success)
        return finish(
          'failed',
          `Error: a PreToolUse hook rewrote the input of ${call.name} into something invalid: ${revalidated.error.issues[0]?.message}`,
          input,
        );
      input = revalidated.data as Record<string, unknown>;
    }
    if (signal.aborted) return cancelled(input);
    const hookSignal = hookVerdict(pre);
    const resolution = this.deps.gate.evaluate(tool, input, hookSignal, this.deps.gateContext());
    // The file the gate judged: the tool acts on it only (a link swapped later leads elsewhere).
    let checkedTarget = resolution.checkedTarget;
    this.permissions.decision(call, resolution.verdict, gateDecision(resolution), resolution.reason);
    if (resolution.verdict === 'deny') {
      const retry = await this.approval.denied(call, input, resolution.reason, denialSource(resolution), signal);
      return finish(
        'denied',
        withContexts(`Permission denied (${resolution.source}): ${resolution.reason}${retry}`, contexts, seenContexts),
        input,
      );
    }
    if (resolution.verdict === 'allow') {
      const veto = await this.approval.approveEveryCall(call, input, resolution.reason, signal, annotations, contexts);
      if (veto) {
        this.permissions.decision(call, 'deny', { by: 'hook', source: `hook ${veto.hookName}` }, veto.reason);
        const retry = await this.approval.denied(call, input, veto.reason, 'Hook', signal);
        const halt = veto.abort ? { abort: veto.abort } : veto.stop ? { stop: veto.stop } : {};
        const content = withContexts(`Permission denied (hook ${veto.hookName}): ${veto.reason}${retry}`, contexts, seenContexts);
        return finish('denied', content, input, halt);
      }
    }
    if (resolution.verdict === 'ask') {
      const answer = await this.approval.ask(
        call,
        input,
        resolution.reason,
        resolution.source,
        resolution.system,
        signal,
        annotations,
        contexts,
      );
      this.permissions.decision(call, answer.decision, answer.audit, answer.reason);
      if (answer.updatedInput && answer.decision === 'allow') {
        const judged = new Set(pre.runs.filter((run) => run.status !== 'skipped').map((run) => run.hookId));
        const rewrite = await this.rewrites.check(tool, call, input, answer.updatedInput, judged, annotations, signal);
        if (!rewrite.ok) {
          const content = rewrite.outcome === 'denied' ? withContexts(rewrite.content, contexts, seenContexts) : rewrite.content;
          return finish(rewrite.outcome, content, rewrite.input, rewrite.halt);
        }
        input = rewrite.input;
        checkedTarget = rewrite.checkedTarget;
      }
      if (answer.stop)
        return finish(
          'denied',
          `Permission denied and the turn was interrupted by hook "${answer.stop.hookName}": ${answer.stop.reason ?? ''}`,
          input,
          { stop: answer.stop },
        );
      if (answer.decision === 'deny') {
        const retry = await this.approval.denied(call, input, answer.reason, answer.source, signal);
        return finish('denied', withContexts(`Permission denied (${answer.by}): ${answer.reason}${retry}`, contexts, seenContexts), input);
      }
      // While the person read the prompt, a process the model left running may have swapped a
      // folder the call names for a link: judged again, a deny or a protected file it did not
      // touch when asked is not what the person allowed.
      const again = this.deps.gate.evaluate(tool, input, undefined, this.deps.gateContext());
      if (again.verdict === 'deny' || (again.verdict === 'ask' && again.system && !resolution.system)) {
        const reason = `what the call touches changed while it waited for approval: ${again.reason}`;
        this.permissions.decision(call, 'deny', gateDecision(again), reason);
        return finish('denied', withContexts(`Permission denied (${again.source}): ${reason}`, contexts, seenContexts), input);
      }
    }

    // An approve_tool hook the cancel cut short vetoed nothing, and a cancel after an allow still stops the call.
    if (signal.aborted) return cancelled(input);
    const result = await this.run(tool, input, { ...ctx, checkedTarget });
    if (result.ok) {
      const post = await this.deps.hooks.dispatch(
        'PostToolUse',
        {
          tool_name: call.name,
          tool_input: input,
          tool_response: result.response,
          tool_use_id: call.id,
          duration_ms: Math.round(performance.now() - started),
        },
        signal,
      );
      annotate(annotations, post);
      showHookMessages(this.deps.emit, post.systemMessages);
      this.permissions.permissionsRequired(call, post);
      contexts.push(...post.contexts);
      return finish('executed', withContexts(rewriteToolOutput(result.content, post), contexts, seenContexts), input, halts(post));
    }
    const failure = await this.deps.hooks.dispatch(
      'PostToolUseFailure',
      {
        tool_name: call.name,
        tool_input: input,
        tool_use_id: call.id,
        error: result.error,
        is_interrupt: result.interrupted ?? false,
        duration_ms: Math.round(performance.now() - started),
      },
      signal.aborted ? undefined : signal,
    );
    annotate(annotations, failure);
    showHookMessages(this.deps.emit, failure.systemMessages);
    contexts.push(...failure.contexts);
    // AstroResearch's FailHooks: a hook may replace (or shorten) the error text the model sees.
    return finish('failed', withContexts(rewriteToolOutput(result.error, failure), contexts, seenContexts), input, {
      ...halts(failure),
      ...result.halt,
    });
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
}
