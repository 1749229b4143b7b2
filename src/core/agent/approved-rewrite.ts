import type { HookAnnotation } from './agent-events';
import type { ToolCallRequest } from './llm/chat-model';
import type { GateContext, PermissionGate } from './permissions/permission-gate';
import type { SessionHooks } from './session-hooks';
import type { ToolApproval } from './tool-approval';
import type { ToolCallOutcome } from './tool-call-outcome';
import { annotate, policyVeto } from './tool-hook-results';
import { denialSource, gateDecision, type ToolPermissionAudit } from './tool-permission-audit';
import type { Tool } from './tools/tool';

type Input = Record<string, unknown>;

/** The input a call runs with after a rewrite, or why it does not run (`content` is the model's tool message). */
export type RewriteVerdict =
  | { ok: true; input: Input; checkedTarget?: string }
  | { ok: false; outcome: 'failed' | 'denied'; content: string; input: Input; halt?: Partial<ToolCallOutcome> };

export interface ApprovedRewriteDeps {
  hooks: SessionHooks;
  gate: PermissionGate;
  gateContext: () => GateContext;
}

/**
 * A PermissionRequest hook's `allow` with an `updatedInput`: the hook allowed what it wrote,
 * unchecked. The input must fit the tool, system and rule denials apply to it (a system ask
 * needs a person, never a hook), and the managed policy's PreToolUse guards, which judged only
 * the model's input, judge it too: anything but an allow denies, and their own rewrite is
 * checked the same way.
 */
export class ApprovedRewrite {
  constructor(
    private readonly deps: ApprovedRewriteDeps,
    private readonly permissions: ToolPermissionAudit,
    private readonly approval: ToolApproval,
  ) {}

  /** `judged`: the hooks that judged this call's PreToolUse (a `once` policy guard among them judges again). */
  async check(
    tool: Tool,
    call: ToolCallRequest,
    original: Input,
    updatedInput: unknown,
    judged: ReadonlySet<string>,
    annotations: HookAnnotation[],
    signal: AbortSignal,
  ): Promise<RewriteVerdict> {
    const rewritten = await this.checked(tool, call, original, updatedInput, 'a PermissionRequest hook', signal);
    if (!rewritten.ok) return rewritten;
    const fields = { tool_name: call.name, tool_input: rewritten.input, tool_use_id: call.id };
    const policy = await this.deps.hooks.dispatchPolicy('PreToolUse', fields, signal, judged);
    if (!policy) return rewritten;
    annotate(annotations, policy);
    const veto = policyVeto(policy);
    if (veto) {
      const reason = `${veto.reason} (the input a PermissionRequest hook rewrote)`;
      this.permissions.decision(call, 'deny', { by: 'hook', source: `hook ${veto.hookName}`, level: 'P3' }, reason);
      const halt = policy.abort ? { abort: policy.abort } : policy.stop ? { stop: policy.stop } : undefined;
      const retry = halt ? '' : await this.approval.denied(call, rewritten.input, reason, 'Hook', signal);
      return {
        ok: false,
        outcome: 'denied',
        content: `Permission denied (hook ${veto.hookName}): ${reason}${retry}`,
        input: rewritten.input,
        halt,
      };
    }
    if (policy.updatedInput === undefined) return rewritten;
    return this.checked(tool, call, rewritten.input, policy.updatedInput, 'the managed policy', signal);
  }

  /** `raw`, as `who` rewrote `before`: valid for the tool and through the gate's system checks and rules. */
  private async checked(
    tool: Tool,
    call: ToolCallRequest,
    before: Input,
    raw: unknown,
    who: string,
    signal: AbortSignal,
  ): Promise<RewriteVerdict> {
    const parsed = tool.inputSchema.safeParse(raw);
    if (!parsed.success) {
      const content = `Error: ${who} rewrote the input of ${call.name} into something invalid: ${parsed.error.issues[0]?.message}`;
      return { ok: false, outcome: 'failed', content, input: before };
    }
    const input = parsed.data as Input;
    const check = this.deps.gate.evaluate(tool, input, undefined, this.deps.gateContext());
    if (check.verdict === 'deny' || (check.verdict === 'ask' && check.system)) {
      const reason = `${check.reason} (the input ${who} rewrote${check.verdict === 'ask' ? ' needs a person to approve it' : ''})`;
      this.permissions.decision(call, 'deny', gateDecision(check), reason);
      const retry = await this.approval.denied(call, input, reason, denialSource(check), signal);
      return { ok: false, outcome: 'denied', content: `Permission denied (${check.source}): ${reason}${retry}`, input };
    }
    return { ok: true, input, checkedTarget: check.checkedTarget };
  }
}
