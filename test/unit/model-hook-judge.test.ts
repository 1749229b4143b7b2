import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatModel, ModelResponse } from '../../src/core/agent/llm/chat-model';
import { ModelHookJudge } from '../../src/core/agent/model-hook-judge';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A model answering with `replies` in turn, whatever it is asked. */
function judgeOver(replies: ModelResponse[]): ModelHookJudge {
  const workspace = mkdtempSync(path.join(tmpdir(), 'judge-'));
  dirs.push(workspace);
  const model: ChatModel = {
    complete: () => Promise.resolve(replies.shift() ?? { content: '{"ok": true}', toolCalls: [], finishReason: 'stop' }),
  };
  return new ModelHookJudge({
    model,
    modelName: () => 'm',
    workspaceRoot: () => workspace,
    permissions: () => ({ mode: 'default', allow: [], deny: [], ask: [], additionalDirectories: [] }),
    protectedPaths: () => [],
    env: {},
  });
}

const glob = { id: 'g', name: 'Glob', argumentsText: '{"pattern":"*"}', arguments: { pattern: '*' } };

describe('ModelHookJudge', () => {
  it("sums only the replies' token counts: a reply whose usage is not counts adds nothing", async () => {
    const judge = judgeOver([
      { content: '', toolCalls: [glob], finishReason: 'tool_calls', usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 } },
      {
        content: '',
        toolCalls: [glob],
        finishReason: 'tool_calls',
        usage: { promptTokens: '5', completionTokens: 3, totalTokens: 8 } as never,
      },
      { content: '', toolCalls: [glob], finishReason: 'tool_calls', usage: { promptTokens: -7, completionTokens: 1, totalTokens: -6 } },
      { content: '{"ok": true}', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 20, completionTokens: 4, totalTokens: 24 } },
    ]);
    const answer = await judge.evaluate({ system: 's', user: 'u', investigate: true, signal: new AbortController().signal });
    expect(answer.usage).toEqual({ prompt: 30, completion: 6, total: 36 });
  });
});
