import type { AuditRecord } from '../../../src/core/audit/records';

const HOOKS = [
  { name: 'guard', event: 'PreToolUse' },
  { name: 'format-on-write', event: 'PostToolUse' },
  { name: 'audit-context', event: 'UserPromptSubmit' },
  { name: 'policy-server', event: 'PreToolUse' },
  { name: 'stop-check', event: 'Stop' },
] as const;

const DECISIONS = ['allow', 'allow', 'allow', 'none', 'context', 'deny', 'block', 'ask'] as const;

/**
 * A deterministic audit log of `count` records for one session: event records followed
 * by the hook runs and dispatch summary of that event, permission decisions and notes.
 * Every 97th hook run times out, every 89th fails; blocks and denies carry a reason.
 */
export function makeTimeline(count: number, sessionId = 'session-1', startMs = Date.UTC(2025, 4, 1, 9, 0, 0)): AuditRecord[] {
  const records: AuditRecord[] = [];
  let seq = 0;
  let runIndex = 0;
  const ts = () => new Date(startMs + seq * 37).toISOString();
  while (records.length < count) {
    const hook = HOOKS[seq % HOOKS.length];
    const dispatchId = `d${seq}`;
    const tool = seq % 3 === 0 ? 'Bash' : seq % 3 === 1 ? 'Edit' : 'Read';
    records.push({
      type: 'event',
      seq: seq++,
      ts: ts(),
      session_id: sessionId,
      dispatch_id: dispatchId,
      event: hook.event,
      payload: { hook_event_name: hook.event, session_id: sessionId, tool_name: tool, tool_input: { command: `npm run step-${seq}` } },
    });
    if (records.length >= count) break;
    const i = runIndex++;
    const status = i % 97 === 96 ? 'timeout' : i % 89 === 88 ? 'error' : 'success';
    const decision = status === 'timeout' ? 'timeout' : status === 'error' ? 'error' : DECISIONS[i % DECISIONS.length];
    const durationMs = status === 'timeout' ? 5000 : 2 + ((i * 7919) % 180);
    records.push({
      type: 'hook_run',
      seq: seq++,
      ts: ts(),
      session_id: sessionId,
      dispatch_id: dispatchId,
      event: hook.event,
      hook_id: `hook-${hook.name}`,
      hook_name: hook.name,
      handler: hook.name === 'policy-server' ? 'rpc' : 'command',
      source: 'hooksJson',
      status,
      decision,
      reason: decision === 'deny' || decision === 'block' ? `run ${i}: ${tool} is not allowed here` : undefined,
      stdout: `{"run": ${i}, "decision": "${decision}"}`,
      stderr: status === 'error' ? `Traceback: run ${i} failed` : '',
      exit_code: status === 'error' ? 1 : decision === 'block' ? 2 : 0,
      duration_ms: durationMs,
      effects: decision === 'context' ? { additionalContext: `context for run ${i}` } : undefined,
      error: status === 'success' ? undefined : `hook ${status} in run ${i}`,
    });
    if (records.length >= count) break;
    records.push({
      type: 'dispatch',
      seq: seq++,
      ts: ts(),
      session_id: sessionId,
      dispatch_id: dispatchId,
      event: hook.event,
      decision,
      hooks_run: 1,
      duration_ms: durationMs + 1,
    });
    if (records.length >= count) break;
    if (seq % 11 === 0)
      records.push({
        type: 'permission',
        seq: seq++,
        ts: ts(),
        session_id: sessionId,
        tool_name: tool,
        tool_use_id: `call_${seq}`,
        decision: 'ask',
        source: 'default mode',
        reason: 'commands need approval',
      });
    else if (seq % 13 === 0)
      records.push({
        type: 'note',
        seq: seq++,
        ts: ts(),
        session_id: sessionId,
        level: 'warning',
        message: `hook slow-lint took ${seq} ms`,
      });
  }
  return records;
}
