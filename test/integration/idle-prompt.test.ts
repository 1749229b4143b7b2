import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdlePromptTimer } from '../../src/core/agent/idle-prompt';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { text } from '../support/model-server';

// Claude Code's Notification `idle_prompt`: the agent finished and the prompt has waited for the user.

const harnesses: AgentHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

/** An agent whose turn ends, idle notifications and turn starts land in one ordered log. */
async function agent(idlePromptMs: number | undefined, replies = [text('done'), text('done again', { delayMs: 300 })]) {
  const h = await startAgent({}, replies, { session: { idlePromptMs } });
  harnesses.push(h);
  const log: string[] = [];
  h.session.onEvent((e) => {
    if (e.type === 'turn_started' || e.type === 'turn_ended') log.push(e.type);
  });
  h.engine.addInProcessHook({
    name: 'idle-probe',
    matcher: 'idle_prompt',
    onNotification: (p) => {
      if (p.session_id === h.session.id) log.push(`notify:${p.notification_type}:${p.message}`);
    },
  });
  return { h, log, idles: () => log.filter((l) => l.startsWith('notify:idle_prompt')).length };
}

describe('Notification idle_prompt', () => {
  it('fires once per idle period after a turn ends, never while a turn runs', async () => {
    const { h, log, idles } = await agent(50);
    await h.session.prompt('first');
    await vi.waitFor(() => expect(idles()).toBe(1));
    // The second answer takes 300 ms, six idle delays: a timer left running would fire during it.
    await h.session.prompt('second');
    await vi.waitFor(() => expect(idles()).toBe(2));
    expect(log).toEqual([
      'turn_started',
      'turn_ended',
      'notify:idle_prompt:Hookpilot is waiting for your input',
      'turn_started',
      'turn_ended',
      'notify:idle_prompt:Hookpilot is waiting for your input',
    ]);
  });

  it('ending the session cancels it; a host that never waits for input (unset) gets none', async () => {
    const ended = await agent(20);
    const unset = await agent(undefined);
    // Timers fire in order of expiry: once the 200 ms clock's notification arrived, the 20 ms one is past due.
    const clock = await agent(200);
    await ended.h.session.prompt('first');
    await ended.h.session.end();
    await unset.h.session.prompt('first');
    await clock.h.session.prompt('first');
    await vi.waitFor(() => expect(clock.idles()).toBe(1));
    expect(ended.idles()).toBe(0);
    expect(unset.idles()).toBe(0);
  });

  it('a delay that is not a positive number is refused', () => {
    expect(() => new IdlePromptTimer(0, () => undefined)).toThrow(/positive number of milliseconds, got 0/);
    expect(() => new IdlePromptTimer(Number.NaN, () => undefined)).toThrow(/positive/);
  });
});
