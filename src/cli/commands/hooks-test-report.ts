import { clip } from '../../core/agent/tool-summary';
import type { Redactor } from '../../core/audit/redactor';
import { formatTaggedContext, type DispatchResult } from '../../core/hooks/dispatch-result';
import type { HookRunEvent } from '../../core/hooks/dispatcher';

const EXCERPT = 400;

/** Redacted before it is cut: the start of a secret cut in two is no value the redactor knows. */
function excerpt(text: string | undefined, redactor: Redactor): string | undefined {
  const trimmed = text?.trim();
  return trimmed ? clip(redactor.redactText(trimmed), EXCERPT).replace(/\n/g, '\n    ') : undefined;
}

/** One hook's run, for people: decision, status, latency, then its output. */
export function describeRun(run: HookRunEvent, where: string, redactor: Redactor): string {
  const { trace } = run.outcome;
  const lines = [`\n${run.hook.name} [${run.hook.spec.type}] ${where}`];
  const exit = trace.exitCode !== undefined && trace.exitCode !== null ? `  exit code: ${trace.exitCode}` : '';
  lines.push(`  decision: ${run.summary.decision}  status: ${run.outcome.status}${exit}  latency: ${Math.round(trace.durationMs)} ms`);
  if (run.summary.reason) lines.push(`  reason: ${run.summary.reason}`);
  if (run.summary.error) lines.push(`  error: ${run.summary.error}`);
  const stdout = excerpt(trace.stdout, redactor);
  const stderr = excerpt(trace.stderr, redactor);
  if (stdout) lines.push(`  stdout: ${stdout}`);
  if (stderr) lines.push(`  stderr: ${stderr}`);
  return `${lines.join('\n')}\n`;
}

export function runToJson(run: HookRunEvent, where: string): Record<string, unknown> {
  const { trace } = run.outcome;
  return {
    id: run.hook.id,
    name: run.hook.name,
    type: run.hook.spec.type,
    source: where,
    status: run.outcome.status,
    decision: run.summary.decision,
    reason: run.summary.reason ?? null,
    error: run.summary.error ?? null,
    exit_code: trace.exitCode ?? null,
    stdout: trace.stdout ?? '',
    stderr: trace.stderr ?? '',
    latency_ms: Math.round(trace.durationMs * 10) / 10,
  };
}

/** The merged outcome of all hooks, as the agent would act on it. */
export function describeMergedResult(result: DispatchResult): string {
  const decision = result.decision ?? (result.blocked ? 'block' : (result.permission?.behavior ?? 'none'));
  const verdict = result.blocked
    ? `${decision} (blocked)`
    : decision === 'none'
      ? 'no decision: nothing blocked, the action goes on'
      : decision;
  const lines = [`\nResult: ${verdict}`];
  if (result.blockReason) lines.push(`  reason: ${result.blockReason}`);
  if (result.permission?.message)
    lines.push(`  permission: ${result.permission.behavior} by ${result.permission.hookName}: ${result.permission.message}`);
  if (result.stop)
    lines.push(`  stop: hook "${result.stop.hookName}" ends the session${result.stop.reason ? `: ${result.stop.reason}` : ''}`);
  if (result.updatedInput) lines.push(`  updated input: ${JSON.stringify(result.updatedInput)}`);
  for (const ctx of result.contexts) lines.push(`  context: ${formatTaggedContext(ctx)}`);
  for (const message of result.systemMessages) lines.push(`  system message: ${message}`);
  for (const warning of result.warnings) lines.push(`  warning: ${warning}`);
  return `${lines.join('\n')}\n`;
}
