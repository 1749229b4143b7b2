import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { StreamAssembler } from '../../src/core/agent/llm/stream-assembler';

type Delta = ChatCompletionChunk.Choice.Delta;
type ToolCallDelta = NonNullable<Delta['tool_calls']>[number];

function chunk(delta: Delta, finish: ChatCompletionChunk.Choice['finish_reason'] = null): ChatCompletionChunk {
  return { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] };
}

const call = (piece: Partial<ToolCallDelta> & { function?: { name?: string; arguments?: string } }) =>
  chunk({ tool_calls: [piece as ToolCallDelta] });

function assemble(chunks: ChatCompletionChunk[]) {
  const assembler = new StreamAssembler();
  for (const c of chunks) assembler.add(c);
  return assembler;
}

describe('StreamAssembler', () => {
  it('is unfinished until a finish_reason arrives', () => {
    const assembler = assemble([chunk({ role: 'assistant', content: 'Hel' }), chunk({ content: 'lo' })]);
    expect(assembler.finished).toBe(false);
    assembler.add(chunk({}, 'stop'));
    expect(assembler.finished).toBe(true);
    expect(assembler.result()).toEqual({ content: 'Hello', toolCalls: [], finishReason: 'stop' });
  });

  it('keeps a name that the server repeats in every chunk once', () => {
    const result = assemble([
      call({ index: 0, id: 'a', function: { name: 'Bash', arguments: '{"command":' } }),
      call({ index: 0, function: { name: 'Bash', arguments: '"ls"}' } }),
      chunk({}, 'tool_calls'),
    ]).result();
    expect(result.toolCalls).toEqual([{ id: 'a', name: 'Bash', argumentsText: '{"command":"ls"}', arguments: { command: 'ls' } }]);
  });

  it('follows calls without an index by their ids, and gives id-less calls one', () => {
    const result = assemble([
      call({ function: { name: 'Read', arguments: '{"file_path":"a"}' } }),
      call({ id: 'second', function: { name: 'Glob', arguments: '{"pattern":' } }),
      call({ function: { arguments: '"*.ts"}' } }),
      chunk({}, 'tool_calls'),
    ]).result();
    expect(result.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['call_0', 'Read', { file_path: 'a' }],
      ['second', 'Glob', { pattern: '*.ts' }],
    ]);
  });

  it('starts a new call when a server reuses index 0 with a new id', () => {
    const result = assemble([
      call({ index: 0, id: 'x', function: { name: 'Read', arguments: '{}' } }),
      call({ index: 0, id: 'y', function: { name: 'Write', arguments: '{}' } }),
      chunk({}, 'tool_calls'),
    ]).result();
    expect(result.toolCalls.map((c) => [c.id, c.name])).toEqual([
      ['x', 'Read'],
      ['y', 'Write'],
    ]);
  });

  it('reports a JSON value that is not an object as an argumentsError', () => {
    const [result] = assemble([call({ index: 0, id: 'a', function: { name: 'Bash', arguments: '"ls"' } })]).result().toolCalls;
    expect(result.arguments).toBeUndefined();
    expect(result.argumentsError).toBe('the tool arguments must be a JSON object, got a string');
  });

  it('takes usage from the trailing chunk that has no choices', () => {
    const assembler = assemble([chunk({ content: 'x' }, 'stop')]);
    assembler.add({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'm',
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    expect(assembler.result().usage).toEqual({ promptTokens: 3, completionTokens: 1, totalTokens: 4 });
  });

  describe('usage', () => {
    // JSON.parse of the wire text: `1e400` arrives as Infinity.
    const usageChunk = (usageJson: string): ChatCompletionChunk =>
      JSON.parse(
        `{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[],"usage":${usageJson}}`,
      ) as ChatCompletionChunk;
    const withUsage = (...usages: string[]) => {
      const warnings: string[] = [];
      const assembler = new StreamAssembler((message) => warnings.push(message));
      for (const c of [chunk({ content: 'x' }, 'stop'), ...usages.map(usageChunk)]) assembler.add(c);
      return { usage: assembler.result().usage, warnings };
    };

    it.each([
      ['negative', '{"prompt_tokens":-1000000,"completion_tokens":3,"total_tokens":-999997}', 'prompt_tokens'],
      ['text', '{"prompt_tokens":"5","completion_tokens":3,"total_tokens":8}', 'prompt_tokens'],
      ['past what a number holds', '{"prompt_tokens":1e400,"completion_tokens":3,"total_tokens":8}', 'prompt_tokens'],
      ['fractional', '{"prompt_tokens":5,"completion_tokens":2.5,"total_tokens":8}', 'completion_tokens'],
      ['missing', '{"completion_tokens":3,"total_tokens":8}', 'prompt_tokens'],
      ['not an object', '"lots"', 'usage'],
    ])('leaves out usage with a count that is %s, and says which field', (_what, usage, field) => {
      const { usage: kept, warnings } = withUsage(usage);
      expect(kept).toBeUndefined();
      expect(warnings).toEqual([expect.stringMatching(new RegExp(`^a reply's token usage is not counted \\(${field}: `))]);
    });

    it('takes a missing total_tokens as the sum of the other two', () => {
      expect(withUsage('{"prompt_tokens":3,"completion_tokens":1}')).toEqual({
        usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4 },
        warnings: [],
      });
    });

    it('counts the last usage sent, bad or good', () => {
      expect(withUsage('{"prompt_tokens":-1,"completion_tokens":1}', '{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}')).toEqual(
        {
          usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4 },
          warnings: [],
        },
      );
      expect(
        withUsage('{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}', '{"prompt_tokens":-1,"completion_tokens":1}').usage,
      ).toBeUndefined();
    });
  });
});
