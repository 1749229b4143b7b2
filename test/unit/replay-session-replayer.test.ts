import { describe, expect, it } from 'vitest';
import type { ChatModel } from '../../src/core/agent/llm/chat-model';
import type { TurnOutcome } from '../../src/core/agent/turn-loop';
import type { Recording } from '../../src/core/replay/recording';
import { replayRecording, type ReplayableSession } from '../../src/core/replay/session-replayer';

const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const reply = (content: string) => ({ content, toolCalls: [], finishReason: 'stop' });
const recording: Recording = {
  kind: 'audit',
  sessionId: 's1',
  workspaceRoot: '/recorded',
  notes: [],
  turns: [
    { prompt: 'first', responses: [reply('a'), reply('b'), reply('c')] },
    { prompt: 'second', responses: [reply('d')] },
  ],
};

/** A session whose turns ask the model `asks[i]` times, as a real turn loop would, and record what they got. */
function scriptedSession(asks: number[], log: string[]): (model: ChatModel) => ReplayableSession {
  return (model) => {
    let turn = 0;
    return {
      id: 'replay-test',
      start: async () => void log.push('start'),
      end: async (reason) => void log.push(`end ${reason}`),
      prompt: async (text, signal): Promise<TurnOutcome> => {
        log.push(`prompt ${text}`);
        const n = asks[turn++];
        for (let i = 0; i < n; i++) {
          try {
            log.push((await model.complete({ model: 'replay', messages: [] }, { signal })).content);
          } catch (error) {
            return { reason: 'error', result: '', error: (error as Error).message, toolCalls: [], steps: i, usage };
          }
        }
        return { reason: 'completed', result: '', toolCalls: [], steps: n, usage };
      },
    };
  };
}

describe('replayRecording', () => {
  it('serves each turn its own replies; a turn that ends early leaves replies unused, the next turn starts at its own', async () => {
    const log: string[] = [];
    const run = await replayRecording(recording, '/copy', scriptedSession([1, 1], log), new AbortController().signal);
    expect(log).toEqual(['start', 'prompt first', 'a', 'prompt second', 'd', 'end completed']);
    expect(run.turns).toEqual([
      { prompt: 'first', reason: 'completed', error: undefined, unusedReplies: 2 },
      { prompt: 'second', reason: 'completed', error: undefined, unusedReplies: 0 },
    ]);
  });

  it('a turn that goes further than recorded ends with an error, the replay goes on, and the session ends as failed', async () => {
    const log: string[] = [];
    const run = await replayRecording(recording, '/copy', scriptedSession([4, 1], log), new AbortController().signal);
    expect(run.turns[0]).toMatchObject({
      reason: 'error',
      error: expect.stringContaining('turn 1 asked the model for reply 4'),
      unusedReplies: 0,
    });
    expect(run.turns[1]).toMatchObject({ reason: 'completed' });
    expect(log.at(-1)).toBe('end error');
  });

  it('a cancelled replay stops before the next prompt and ends the session as cancelled', async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const session = scriptedSession([1, 1], log);
    const run = await replayRecording(
      recording,
      '/copy',
      (model) => {
        const inner = session(model);
        return { ...inner, prompt: async (text, signal) => inner.prompt(text, signal).finally(() => controller.abort()) };
      },
      controller.signal,
    );
    expect(run).toMatchObject({ cancelled: true, turns: [{ prompt: 'first' }] });
    expect(log.at(-1)).toBe('end cancelled');
  });

  it('a session whose start fails is still ended (its tools go), and the failure reaches the caller', async () => {
    const log: string[] = [];
    const session = scriptedSession([1, 1], log);
    const failing = (model: ChatModel): ReplayableSession => ({
      ...session(model),
      start: async () => {
        throw new Error('session replay-test is in use by process 42');
      },
    });
    await expect(replayRecording(recording, '/copy', failing, new AbortController().signal)).rejects.toThrow('in use by process 42');
    expect(log).toEqual(['end error']);
  });
});
