import { describe, expect, it } from 'vitest';
import { MetricsHook } from '../../src/core/hooks/builtins/metrics-hook';
import { TurnStatsHook } from '../../src/core/hooks/builtins/turn-stats-hook';
import type { PayloadOf } from '../../src/core/hooks/payloads';

const common = { session_id: 's1', transcript_path: '/t.jsonl', cwd: '/w' };
const step = (n: number, toolCalls = 1) =>
  ({
    ...common,
    hook_event_name: 'StepComplete',
    step: n,
    max_steps: 50,
    messages_count: 3,
    estimated_tokens: 100 * n,
    token_limit: 1000,
    tool_calls: toolCalls,
  }) as PayloadOf<'StepComplete'>;
const tool = (name: string) =>
  ({
    ...common,
    hook_event_name: 'PostToolUse',
    tool_name: name,
    tool_input: {},
    tool_response: {},
    tool_use_id: 'c',
  }) as unknown as PayloadOf<'PostToolUse'>;
const failure = (name: string) =>
  ({
    ...common,
    hook_event_name: 'PostToolUseFailure',
    tool_name: name,
    tool_input: {},
    tool_use_id: 'c',
    error: 'x',
  }) as unknown as PayloadOf<'PostToolUseFailure'>;
const sessionEnd = { ...common, hook_event_name: 'SessionEnd', reason: 'clear' } as PayloadOf<'SessionEnd'>;
const turnStart = (n: number) =>
  ({ ...common, hook_event_name: 'TurnStart', turn_index: n, prompt: 'p' }) as unknown as PayloadOf<'TurnStart'>;

describe('the Metrics built-in', () => {
  it('counts across turns, reports every third step and the final counts at SessionEnd, then forgets the session', () => {
    const hook = new MetricsHook();
    hook.onSessionStart({ ...common, hook_event_name: 'SessionStart', source: 'startup' } as PayloadOf<'SessionStart'>);
    hook.postToolUse(tool('Bash'));
    hook.postToolUse(tool('Bash'));
    hook.postToolUseFailure(failure('Read'));
    // Two turns: `step` starts again at 1 in the second.
    expect(hook.onStepComplete(step(1))).toBeUndefined();
    expect(hook.onStepComplete(step(2))).toBeUndefined();
    expect(hook.onStepComplete(step(1))).toEqual({
      metadata: {
        metrics: expect.objectContaining({
          steps: 3,
          toolCalls: 3,
          toolFailures: 1,
          toolsByName: { Bash: 2, Read: 1 },
          estimatedTokens: 100,
        }),
      },
    });
    const live = hook.metrics('s1');
    live!.toolCalls = 99;
    expect(hook.metrics('s1')?.toolCalls).toBe(3);

    expect(hook.onSessionEnd(sessionEnd)).toEqual({
      metadata: { metrics: expect.objectContaining({ steps: 3, toolCalls: 3, stopReason: 'clear' }) },
    });
    expect(hook.metrics('s1')).toBeUndefined();
    expect(hook.onSessionEnd(sessionEnd)).toBeUndefined();
  });
});

describe('the TurnStats built-in', () => {
  it('keeps per-turn stats for a live session and drops them at SessionEnd', () => {
    let now = 1_000;
    const hook = new TurnStatsHook(() => now);
    hook.onTurnStart(turnStart(0));
    now += 50;
    expect(hook.onStepComplete(step(1, 2))).toEqual({
      metadata: { turn_stats: { turn: 0, startedAt: 1_000, steps: 1, toolCalls: 2, durationMs: 50 } },
    });
    now += 25;
    const turnEnd = {
      ...common,
      hook_event_name: 'TurnEnd',
      turn_index: 0,
      reason: 'completed',
      steps: 1,
      tool_calls: 2,
      last_assistant_message: 'done',
    } as PayloadOf<'TurnEnd'>;
    expect(hook.onTurnEnd(turnEnd)).toEqual({
      metadata: { turn_stats: { turn: 0, startedAt: 1_000, steps: 1, toolCalls: 2, durationMs: 75, reason: 'completed' } },
    });
    expect(hook.onTurnEnd(turnEnd)).toBeUndefined();
    hook.onTurnStart(turnStart(1));
    hook.onStepComplete(step(1, 1));
    expect(hook.stats('s1').map((t) => [t.turn, t.steps, t.toolCalls])).toEqual([
      [0, 1, 2],
      [1, 1, 1],
    ]);
    hook.onSessionEnd(sessionEnd);
    expect(hook.stats('s1')).toEqual([]);
    expect(hook.onStepComplete(step(2))).toBeUndefined();
  });
});
