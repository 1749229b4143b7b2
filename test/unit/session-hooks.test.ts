import { describe, expect, it } from 'vitest';
import { SessionHooks } from '../../src/core/agent/session-hooks';
import type { AgentHook } from '../../src/core/hooks/agent-hook';
import { makeEngine, toolPayload } from '../support/hook-fixtures';

describe('SessionHooks', () => {
  it("leaves what async hooks reported for the main agent's next step, not a subagent's", async () => {
    const { add, dispatcher } = makeEngine();
    add({ name: 'reporter', postToolUse: () => ({ additionalContext: 'late news' }), async: true } as AgentHook);
    const main = new SessionHooks(dispatcher, {
      sessionId: 'sess-1',
      transcriptPath: '/t.jsonl',
      cwd: '/w',
      permissionMode: () => 'default',
    });
    await dispatcher.dispatch(toolPayload('PostToolUse', 'Bash', { command: 'ls' }, { tool_response: { stdout: '' } }));
    await dispatcher.drain(1000);
    expect(main.forSubagent({ id: 'agent-1', type: 'general-purpose' }).takeAsyncContexts()).toEqual([]);
    expect(main.takeAsyncContexts().map((c) => c.content)).toEqual(['late news']);
  });
});
