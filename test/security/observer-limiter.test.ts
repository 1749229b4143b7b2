import { describe, expect, it, vi } from 'vitest';
import type { AgentHook } from '../../src/core/hooks/agent-hook';
import { MAX_RUNNING_OBSERVERS, MAX_WAITING_OBSERVERS } from '../../src/core/hooks/dispatcher';
import { makeEngine, payload } from '../support/hook-fixtures';

const hook = (name: string, impl: Partial<AgentHook>): AgentHook => ({ name, ...impl }) as AgentHook;

describe('observer dispatch limiter', () => {
  it("one session's flood of ToolSkipped (one model reply after a stop) does not cost another session its SessionEnd hook", async () => {
    const { add, dispatcher } = makeEngine();
    // A ToolSkipped logger that takes a while (a network call; bounded by its timeout in real life).
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    add(hook('skip-log', { onToolSkipped: () => slow }));
    const ended: string[] = [];
    add(hook('end-log', { onSessionEnd: (p) => void ended.push(p.session_id) }));

    // Session A's model wrote many calls in one reply; a stop skipped them all.
    for (let i = 0; i < MAX_RUNNING_OBSERVERS + MAX_WAITING_OBSERVERS + 10; i++) {
      dispatcher.emit(
        payload('ToolSkipped', { session_id: 'A', tool_name: 'Glob', tool_input: {}, tool_use_id: `g${i}`, reason: 'stopped' }),
      );
    }
    // Meanwhile session B (another chat, a CLI run served by the same host) ends.
    dispatcher.emit(payload('SessionEnd', { session_id: 'B', reason: 'other' }));
    release();
    await dispatcher.drain(10_000);
    // A's flood holds back only its own ToolSkipped dispatches, never another event's.
    await vi.waitFor(() => expect(ended).toEqual(['B']), { timeout: 5_000 });
  });

  it("the flooding session's own TurnEnd/SessionEnd hooks run after its ToolSkipped flood", async () => {
    const { add, dispatcher } = makeEngine();
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    add(hook('skip-log', { onToolSkipped: () => slow }));
    const seen: string[] = [];
    add(hook('turn-log', { onTurnEnd: () => void seen.push('TurnEnd') }));
    for (let i = 0; i < MAX_RUNNING_OBSERVERS + MAX_WAITING_OBSERVERS + 10; i++) {
      dispatcher.emit(payload('ToolSkipped', { tool_name: 'Glob', tool_input: {}, tool_use_id: `g${i}`, reason: 'stopped' }));
    }
    dispatcher.emit(payload('TurnEnd', { turn_index: 0, reason: 'completed' }));
    release();
    await dispatcher.drain(10_000);
    await vi.waitFor(() => expect(seen).toEqual(['TurnEnd']), { timeout: 5_000 });
  });
});
