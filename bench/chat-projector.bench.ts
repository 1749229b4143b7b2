import type { AgentEvent } from '../src/core/agent/agent-events';
import { ChatProjector } from '../src/shared/chat-projector';
import type { BenchRow, BenchSuite } from './types';

/**
 * The chat's host-side state under a model that makes 1,000 cheap calls a reply: one reply's
 * cost in a new chat and after 12,000 cards. The host keeps its items in place (an index by
 * id), so the two stay close; a copy of the list per card would make the second grow with it.
 */
const CALLS = 1000;
const LONG_CHAT_REPLIES = 12;

function reply(projector: ChatProjector, base: number): void {
  for (let i = 0; i < CALLS; i++) {
    const id = `c${base + i}`;
    projector.project({ type: 'tool_started', id, name: 'Glob', input: {} });
    const output = 'Error: invalid input for Glob: pattern: Required';
    projector.project({
      type: 'tool_finished',
      id,
      name: 'Glob',
      input: {},
      outcome: 'failed',
      output,
      hooks: [],
      durationMs: 0,
    } as AgentEvent);
  }
}

function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

const suite: BenchSuite = {
  title: 'chat',
  async run(): Promise<BenchRow[]> {
    const projector = new ChatProjector();
    reply(projector, 0);
    const early = timed(() => reply(projector, CALLS));
    for (let r = 2; r < LONG_CHAT_REPLIES; r++) reply(projector, r * CALLS);
    const late = timed(() => reply(projector, LONG_CHAT_REPLIES * CALLS));
    return [
      { name: `host chat state, a ${CALLS.toLocaleString('en-US')}-call reply in a new chat`, unit: 'ms', value: early },
      {
        name: `host chat state, the same reply after ${(LONG_CHAT_REPLIES * CALLS).toLocaleString('en-US')} cards`,
        unit: 'ms',
        value: late,
        target: '<= 4x the new chat',
        ok: late <= early * 4,
      },
    ];
  },
};

export default suite;
