import type { DispatchResult, TaggedContext } from '../hooks/dispatch-result';
import { formatTaggedContext } from '../hooks/dispatch-result';
import type { PermissionSignal } from '../permissions/precedence';
import type { HookAnnotation } from './agent-events';
import type { ToolCallOutcome } from './tool-call-outcome';

// What the hooks of one tool call answered, turned into the card's notes, the gate's signal
// and the text the model reads.

/** A hook's `continue: false` or `abort` after the tool ran: the turn ends after this call. */
export function halts(result: DispatchResult): Partial<ToolCallOutcome> {
  return { ...(result.stop ? { stop: result.stop } : {}), ...(result.abort ? { abort: result.abort } : {}) };
}

export function hookVerdict(pre: DispatchResult): PermissionSignal | undefined {
  if (!pre.decision || pre.decision === 'deny') return undefined;
  const decider = pre.runs.find((r) => r.decision === pre.decision)?.hookName ?? 'hook';
  // `defer` has no meaning outside Claude Code's -p mode: it asks, as the safest reading.
  const verdict = pre.decision === 'defer' ? 'ask' : pre.decision;
  return {
    verdict,
    source: `hook ${decider}`,
    reason: pre.runs.find((r) => r.hookName === decider)?.reason ?? `${verdict} by hook "${decider}"`,
  };
}

/**
 * What the managed policy's PreToolUse hooks say of an input they judge again, one a
 * PermissionRequest hook of another source rewrote: anything but an allow (a block, deny, ask,
 * defer, stop or abort) keeps the call from running, as no person is asked about it.
 */
export function policyVeto(result: DispatchResult): { hookName: string; reason: string } | undefined {
  const halt = result.abort ?? result.stop;
  const vetoed = halt !== undefined || result.blocked || (result.decision !== undefined && result.decision !== 'allow');
  if (!vetoed) return undefined;
  const hookName =
    halt?.hookName ?? result.blockingErrors[0]?.hookName ?? result.runs.find((r) => r.decision === result.decision)?.hookName ?? 'hook';
  return {
    hookName,
    reason: result.blockReason ?? halt?.reason ?? `${result.decision ?? 'blocked'} by the managed policy's hook "${hookName}"`,
  };
}

export function annotate(annotations: HookAnnotation[], result: DispatchResult): void {
  for (const run of result.runs) {
    if (run.status === 'skipped') continue;
    const base = { hookName: run.hookName, event: result.event };
    if (run.status === 'error' || run.status === 'timeout') annotations.push({ ...base, kind: 'error', detail: run.error });
    else if (run.decision === 'deny' || run.decision === 'block')
      annotations.push({ ...base, kind: result.event === 'PreToolUse' ? 'blocked' : 'feedback', detail: run.reason });
    else if (run.decision === 'ask') annotations.push({ ...base, kind: 'asked', detail: run.reason });
    else if (run.decision === 'allow') annotations.push({ ...base, kind: 'allowed', detail: run.reason });
  }
  for (const c of result.contexts) annotations.push({ hookName: c.hookName, event: result.event, kind: 'context', detail: c.content });
  if (result.updatedInput)
    annotations.push({
      hookName: lastModifier(result) ?? 'hook',
      event: result.event,
      kind: 'rewrote-input',
      detail: JSON.stringify(result.updatedInput),
    });
  if (result.updatedToolOutput !== undefined)
    annotations.push({ hookName: lastModifier(result) ?? 'hook', event: result.event, kind: 'rewrote-output' });
  for (const w of result.warnings) annotations.push({ hookName: 'hooks', event: result.event, kind: 'warning', detail: w });
  for (const r of result.permissionsRequired)
    annotations.push({ hookName: r.hookName, event: result.event, kind: 'warning', detail: `needed permission: ${r.permission}` });
}

function lastModifier(result: DispatchResult): string | undefined {
  return [...result.runs].reverse().find((r) => r.decision === 'modify' || r.decision === 'allow' || r.decision === 'context')?.hookName;
}

/** Hook contexts go next to the tool result, once per step (ContextDeduplicator). */
export function withContexts(content: string, contexts: readonly TaggedContext[], seen: Set<string>): string {
  const fresh = contexts.filter((c) => !seen.has(c.content));
  for (const c of fresh) seen.add(c.content);
  if (fresh.length === 0) return content;
  return `${content}\n\n<system-reminder>\n${fresh.map(formatTaggedContext).join('\n')}\n</system-reminder>`;
}
