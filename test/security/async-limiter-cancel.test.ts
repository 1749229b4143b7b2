import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHook } from '../../src/core/hooks/agent-hook';
import { MAX_RUNNING_ASYNC_HOOKS } from '../../src/core/hooks/async-hook-runs';
import { makeEngine, toolPayload } from '../support/hook-fixtures';

const hook = (name: string, impl: Partial<AgentHook>): AgentHook => ({ name, ...impl }) as AgentHook;

afterEach(() => vi.useRealTimers());

describe('async hook runs waiting for a slot', () => {
  it("ending a session whose async runs only wait for a slot does not wait for other sessions' runs", async () => {
    const { add, dispatcher, audit } = makeEngine();
    let release!: () => void;
    const busy = new Promise<void>((r) => (release = r));
    // Session A's async PostToolUse hook (a test run after each edit): long, but within its timeout.
    add(hook('bg-tests', { async: true, postToolUse: (p) => (p.session_id === 'A' ? busy : undefined) }));
    for (let i = 0; i < MAX_RUNNING_ASYNC_HOOKS; i++)
      await dispatcher.dispatch(toolPayload('PostToolUse', 'Edit', {}, { session_id: 'A', tool_use_id: `a${i}`, tool_response: {} }));
    // Session B's run waits for a slot; then B ends.
    await dispatcher.dispatch(toolPayload('PostToolUse', 'Edit', {}, { session_id: 'B', tool_use_id: 'b0', tool_response: {} }));
    // The clock stands still: only a cancel that needs no timer (a run that never started has
    // nothing to wait for) ends; one that waits CANCEL_WAIT_MS (3 s) for a report does not.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let cancelled = false;
    const cancelling = dispatcher.cancelAsync('session ended', 'B').then(() => (cancelled = true));
    await vi.advanceTimersByTimeAsync(100);
    expect(cancelled).toBe(true);
    expect(audit.entries.some((e) => e.type === 'hook_run' && e.session_id === 'B' && e.status === 'cancelled')).toBe(true);
    vi.useRealTimers();
    await cancelling;
    release();
  }, 20_000);
});
