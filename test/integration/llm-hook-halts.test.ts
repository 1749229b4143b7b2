import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { text } from '../support/model-server';
import { hooksJson } from '../support/workspace';

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** An agent whose one `event` hook, named "guard", runs `command`. */
async function agentWith(event: 'BeforeLLM' | 'AfterLLM', command: string) {
  const cfg = hooksJson({ [event]: [{ hooks: [{ type: 'command', command, name: 'guard' }] }] });
  h = await startAgent({ '.vscode/hooks.json': cfg }, [text('the answer')]);
  return h;
}

/** A command that prints this hook output (`specific` under hookSpecificOutput, `top` beside it). */
const say = (event: string, specific: Record<string, unknown>, top: Record<string, unknown>) =>
  `echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: event, ...specific }, ...top })}'`;

describe.each([
  // BeforeLLM halts before the model is asked; AfterLLM after it answered, before its answer joins the conversation.
  { event: 'BeforeLLM' as const, modelRequests: 0 },
  { event: 'AfterLLM' as const, modelRequests: 1 },
])('$event ends the turn', ({ event, modelRequests }) => {
  it('abort "turn": aborted, naming the hook and its reason; the session goes on', async () => {
    const agent = await agentWith(event, say(event, { abort: 'turn' }, { reason: 'budget' }));
    const outcome = await agent.session.prompt('go');
    expect(outcome).toMatchObject({ reason: 'aborted', error: `${event} hook "guard" aborted the turn: budget` });
    expect(outcome.stopSession).toBeUndefined();
    expect(agent.server.requests).toHaveLength(modelRequests);
    expect(agent.events.some((e) => e.type === 'assistant_message')).toBe(false);
  });

  it('abort "hard": aborted, and the session is to end', async () => {
    const agent = await agentWith(event, say(event, { abort: 'hard' }, { reason: 'kill switch' }));
    const outcome = await agent.session.prompt('go');
    expect(outcome).toMatchObject({ reason: 'aborted', error: `${event} hook "guard" aborted the turn: kill switch` });
    expect(outcome.stopSession).toEqual({ reason: 'kill switch', hookName: 'guard' });
    expect(agent.server.requests).toHaveLength(modelRequests);
  });

  it("a block (exit 2) aborts the turn with the hook's stderr", async () => {
    const agent = await agentWith(event, 'echo not now >&2; exit 2');
    const outcome = await agent.session.prompt('go');
    expect(outcome).toMatchObject({ reason: 'aborted', error: `${event} hook "guard" aborted the turn: not now` });
    expect(outcome.stopSession).toBeUndefined();
    expect(agent.events.some((e) => e.type === 'assistant_message')).toBe(false);
  });

  it('continue: false stops the turn and ends the session', async () => {
    const agent = await agentWith(event, say(event, {}, { continue: false, stopReason: 'enough' }));
    const outcome = await agent.session.prompt('go');
    expect(outcome.reason).toBe('stopped');
    expect(outcome.stopSession).toEqual({ reason: 'enough', hookName: 'guard' });
    expect(outcome.error).toBeUndefined();
    expect(agent.server.requests).toHaveLength(modelRequests);
  });
});
