import { offeredChoices } from '../core/agent/permissions/approval-choices';
import type { ApprovalRequest } from '../core/agent/permissions/permission-settings';
import { isReplaySession } from '../core/audit/session-kinds';
import type { AuditRecord } from '../core/audit/records';
import { outcomeDecisionLabel } from '../core/hooks/dispatch-result';
import type { ConfigProblem } from '../core/hooks/config/config-problems';
import type { HookState, InactiveReason } from '../core/hooks/registry';
import type { HandlerSpec, HookOutcome } from '../core/hooks/types';
import type { ApprovalView, HookLastResult, HookView, PendingConfigView, ProblemView, TestResultView } from './manager-views';
import { approvalSubject, visibleRule, visibleText } from '../core/agent/permissions/approval-text';
import { isFileEditTool } from '../core/agent/tools/tool-catalog';
import { diffLineViews } from './diff-lines';

/** Host-side builders of the Hook Manager's views; pure, no VS Code. */

const INACTIVE_TEXT: Record<InactiveReason, string> = {
  untrusted: "Restricted Mode: workspace hooks don't run until you trust this folder.",
  'all-disabled': 'disableAllHooks is set in the configuration: every configured hook is off.',
  disabled: 'Turned off. Use the toggle or the "Enable Hook…" command to turn it on.',
  'managed-only': "The machine's managed policy sets allowManagedHooksOnly: only its hooks run.",
};

export function explainInactiveReason(reason: InactiveReason): string {
  return INACTIVE_TEXT[reason];
}

export function handlerTarget(spec: HandlerSpec): string {
  switch (spec.type) {
    case 'command':
      return spec.args && spec.args.length > 0 ? [spec.command, ...spec.args].join(' ') : spec.command;
    case 'http':
      return spec.url;
    case 'rpc':
      return `${spec.server} (${spec.provisional ? 'until its handshake' : spec.mode})`;
    case 'builtin':
      return spec.builtin;
    case 'prompt':
    case 'agent':
      return spec.model ? `${spec.prompt} (${spec.model})` : spec.prompt;
    case 'mcp_tool':
      return `${spec.server} → ${spec.tool}`;
  }
}

export interface HookRunStat {
  runCount: number;
  errorCount: number;
  lastResult?: HookLastResult;
}

/** Run counts, failures and the last result per hook id, folded from `hook_run` audit records. */
export class HookRunStats {
  private readonly byId = new Map<string, HookRunStat>();

  /** Returns true when the record was a hook run (the hooks view may need a refresh). */
  record(record: AuditRecord): boolean {
    if (record.type !== 'hook_run') return false;
    const stat = this.byId.get(record.hook_id) ?? { runCount: 0, errorCount: 0 };
    stat.runCount++;
    if (record.status === 'error' || record.status === 'timeout') stat.errorCount++;
    stat.lastResult = { status: record.status, decision: record.decision, durationMs: Math.max(0, record.duration_ms), at: record.ts };
    this.byId.set(record.hook_id, stat);
    return true;
  }

  get(id: string): HookRunStat | undefined {
    const stat = this.byId.get(id);
    return stat && { ...stat };
  }
}

export function toHookView(state: HookState, stat?: HookRunStat): HookView {
  const { hook } = state;
  return {
    id: hook.id,
    name: hook.name,
    description: hook.description,
    event: hook.event,
    sourceKind: hook.source.kind,
    file: hook.source.file,
    line: hook.source.line,
    matcher: hook.matcher,
    handlerType: hook.spec.type,
    target: handlerTarget(hook.spec),
    priority: hook.priority,
    enabled: state.enabled,
    trusted: state.trusted,
    active: state.active,
    inactiveReason: state.inactiveReason && explainInactiveReason(state.inactiveReason),
    lastResult: stat?.lastResult,
    errorCount: stat?.errorCount ?? 0,
    runCount: stat?.runCount ?? 0,
  };
}

export function toProblemView(problem: ConfigProblem, id: string): ProblemView {
  return {
    id,
    severity: problem.severity,
    code: problem.code,
    message: problem.message,
    path: problem.path,
    sourceKind: problem.sourceKind,
    file: problem.file,
    line: problem.line,
    column: problem.column,
  };
}

export function toApprovalView(request: ApprovalRequest, createdAt: Date): ApprovalView {
  return {
    id: request.id,
    key: request.askId,
    sessionId: request.sessionId,
    toolName: request.toolName,
    subject: approvalSubject(request),
    reason: visibleText(request.reason),
    askedBy: visibleText(request.askedBy),
    createdAt: createdAt.toISOString(),
    suggestedRule: visibleRule(request.suggestedRule),
    proposedDiff: isFileEditTool(request.toolName),
    system: request.system,
    replay: isReplaySession(request.sessionId),
    choices: [...offeredChoices(request)],
  };
}

/** A test-fire's outcome as the manager shows it. */
export function toTestResultView(outcome: HookOutcome): TestResultView {
  const trace = {
    stdout: outcome.trace.stdout,
    stderr: outcome.trace.stderr,
    exitCode: outcome.trace.exitCode,
    durationMs: Math.max(0, outcome.trace.durationMs),
  };
  const decision = outcomeDecisionLabel(outcome);
  switch (outcome.status) {
    case 'success':
      return { status: 'success', decision, reason: outcome.effects.reason, effects: outcome.effects, ...trace };
    case 'blocking-error':
      return { status: 'blocking-error', decision, reason: outcome.reason, effects: outcome.effects, ...trace };
    case 'error':
    case 'timeout':
      return { status: outcome.status, decision, error: outcome.error, ...trace };
    case 'cancelled':
      return { status: 'cancelled', decision, ...trace };
  }
}

/** A row names this many changed script files, then counts the rest. */
export const MAX_LISTED_SCRIPT_CHANGES = 10;

/** A hook's changed scripts as its row lists them: file names escaped (the agent may name a file anything). */
export function toScriptChangeView(review: { files: readonly string[]; fingerprint: string }): NonNullable<HookView['scriptChanged']> {
  return {
    files: review.files.slice(0, MAX_LISTED_SCRIPT_CHANGES).map(visibleText),
    more: Math.max(0, review.files.length - MAX_LISTED_SCRIPT_CHANGES),
    fingerprint: review.fingerprint,
  };
}

/** The answer to a testFire whose payload was not a JSON object. */
export function invalidPayloadResult(error: string): TestResultView {
  return { status: 'invalid-payload', decision: 'none', error, durationMs: 0 };
}

/** Past this many characters a held change's diff is cut: the page stays responsive whatever was written. */
export const MAX_PENDING_DIFF_CHARS = 100_000;

export function toPendingConfigView(change: {
  id: string;
  label: string;
  diff: string;
  governs: PendingConfigView['governs'];
  blockedBy?: PendingConfigView['blockedBy'];
}): PendingConfigView {
  const truncated = change.diff.length > MAX_PENDING_DIFF_CHARS;
  const lines = diffLineViews(truncated ? change.diff.slice(0, MAX_PENDING_DIFF_CHARS) : change.diff);
  return {
    id: change.id,
    label: change.label,
    governs: change.governs,
    lines,
    truncated,
    ...(change.blockedBy ? { blockedBy: change.blockedBy } : {}),
  };
}
