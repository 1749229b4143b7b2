import type { AuditRecord } from '../../../src/core/audit/records';

const STEPS_PER_TURN = 10;
const TOOLS = [
  { name: 'Bash', input: (n: number) => ({ command: `npm run step-${n}` }) },
  { name: 'Edit', input: (n: number) => ({ file_path: `/ws/src/file-${n}.ts` }) },
  { name: 'Read', input: (n: number) => ({ file_path: `/ws/README-${n}.md` }) },
] as const;

/**
 * A deterministic session log shaped like a real one, `steps` model steps long: turns of
 * ten steps (UserPromptSubmit with a context hook, TurnStart, Stop with a check, TurnEnd),
 * each step a model request (BeforeLLM logged as a delta, with a budget hook; AfterLLM) and
 * one tool call (PreToolUse with a guard, a permission, PostToolUse with a formatter).
 * Every 37th guard run fails, every 53rd times out, every 29th denies (its call then ends
 * with PermissionDenied); the formatter of every 41st call is slow. About 12 records a step.
 */
export function makeTraceSession(steps: number, sessionId = 'trace-1', startMs = Date.UTC(2025, 4, 1, 9, 0, 0)): AuditRecord[] {
  const records: AuditRecord[] = [];
  let seq = 0;
  let at = startMs;
  let dispatches = 0;
  const common = { session_id: sessionId };
  const push = (record: Record<string, unknown>) =>
    records.push({ seq: seq++, ts: new Date(at).toISOString(), ...common, ...record } as AuditRecord);
  const dispatch = (
    event: string,
    payload: Record<string, unknown>,
    hooks: Array<{ name: string; decision: string; ms: number; reason?: string; stderr?: string }>,
  ) => {
    const id = `d${dispatches++}`;
    push({ type: 'event', dispatch_id: id, event, payload: { hook_event_name: event, session_id: sessionId, ...payload } });
    const started = at;
    let decision = 'none';
    for (const hook of hooks) {
      at = started + hook.ms;
      const status = hook.decision === 'error' || hook.decision === 'timeout' ? hook.decision : 'success';
      if (hook.decision !== 'none') decision = hook.decision;
      push({
        type: 'hook_run',
        dispatch_id: id,
        event,
        hook_id: `hook-${hook.name}`,
        hook_name: hook.name,
        handler: 'command',
        source: 'hooksJson',
        status,
        decision: hook.decision,
        reason: hook.reason,
        stdout: status === 'success' ? `{"decision":"${hook.decision}"}` : '',
        stderr: hook.stderr ?? '',
        exit_code: status === 'success' ? 0 : 1,
        duration_ms: hook.ms,
        error: status === 'success' ? undefined : `${hook.name} ${status}`,
      });
    }
    if (hooks.length > 0)
      push({
        type: 'dispatch',
        dispatch_id: id,
        event,
        decision,
        hooks_run: hooks.length,
        duration_ms: Math.max(...hooks.map((h) => h.ms)),
      });
    at += 1;
  };
  for (let step = 0; step < steps; step++) {
    const turn = Math.floor(step / STEPS_PER_TURN);
    const stepInTurn = (step % STEPS_PER_TURN) + 1;
    if (stepInTurn === 1) {
      const prompt = `task ${turn + 1}: make check ${turn + 1} pass`;
      dispatch('UserPromptSubmit', { prompt }, [{ name: 'audit-context', decision: 'context', ms: 6 }]);
      dispatch('TurnStart', { turn_index: turn, prompt }, []);
    }
    const added =
      stepInTurn === 1
        ? [{ role: 'user', content: `task ${turn + 1}` }]
        : [
            { role: 'assistant', content: `step ${step - 1}` },
            { role: 'tool', content: `output ${step - 1}` },
          ];
    const delta = { base_count: stepInTurn === 1 ? 0 : stepInTurn * 2 - 1, base_sha256: `sha-${step}`, added, total: stepInTurn * 2 + 1 };
    dispatch('BeforeLLM', { step: stepInTurn, llm_request: { model: 'gpt-test', messages_delta: delta, tools_sha256: 'tools-sha' } }, [
      { name: 'budget', decision: 'allow', ms: 2 },
    ]);
    at += 300 + (step % 7) * 40;
    const tool = TOOLS[step % TOOLS.length];
    const callId = `call_${step}`;
    dispatch(
      'AfterLLM',
      { step: stepInTurn, llm_response: { content: '', tool_calls: [{ id: callId }], finish_reason: 'tool_calls' } },
      [],
    );
    const guard = step % 53 === 52 ? 'timeout' : step % 37 === 36 ? 'error' : step % 29 === 28 ? 'deny' : 'allow';
    const toolPayload = { tool_name: tool.name, tool_use_id: callId, tool_input: tool.input(step) };
    dispatch('PreToolUse', toolPayload, [
      {
        name: 'guard',
        decision: guard,
        ms: guard === 'timeout' ? 5000 : 4 + (step % 11),
        reason: guard === 'deny' ? `step ${step}: ${tool.name} is not allowed here` : undefined,
        stderr: guard === 'error' ? `Traceback: guard failed at step ${step}` : undefined,
      },
    ]);
    if (guard === 'deny') {
      push({
        type: 'permission',
        tool_name: tool.name,
        tool_use_id: callId,
        decision: 'deny',
        source: 'guard',
        by: 'hook',
        reason: `step ${step}: ${tool.name} is not allowed here`,
      });
      dispatch('PermissionDenied', { ...toolPayload, reason: 'denied by guard', source: 'Hook' }, []);
    } else {
      push({ type: 'permission', tool_name: tool.name, tool_use_id: callId, decision: 'allow', source: 'rule', by: 'rule' });
      at += 20 + (step % 5) * 30;
      dispatch('PostToolUse', { ...toolPayload, tool_response: 'ok' }, [
        { name: 'format', decision: 'none', ms: step % 41 === 40 ? 900 : 15 },
      ]);
    }
    dispatch(
      'StepComplete',
      { step: stepInTurn, max_steps: 50, messages_count: stepInTurn * 2 + 1, estimated_tokens: 1000, token_limit: 100000, tool_calls: 1 },
      [],
    );
    if (stepInTurn === STEPS_PER_TURN || step === steps - 1) {
      dispatch('Stop', { stop_hook_active: false, last_assistant_message: 'done' }, [{ name: 'stop-check', decision: 'none', ms: 25 }]);
      dispatch(
        'TurnEnd',
        { turn_index: turn, reason: 'completed', steps: stepInTurn, tool_calls: stepInTurn, last_assistant_message: 'done' },
        [],
      );
      at += 2000;
    }
  }
  return records;
}
