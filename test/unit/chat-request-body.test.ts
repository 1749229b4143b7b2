import { describe, expect, it } from 'vitest';
import { ChatRequestBody } from '../../src/core/agent/llm/chat-request-body';

const tool = { type: 'function', function: { name: 'Bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } };

function conversation(steps: number): object[] {
  const messages: object[] = [
    { role: 'system', content: 'You are a test. "quotes", \\ backslashes, \n newlines, \u2028, é, 😀, \ud800 alone' },
  ];
  for (let i = 0; i < steps; i++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'Bash', arguments: '{"command":"true"}' } }],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `exit ${i}`, ignored: undefined });
  }
  return messages;
}

describe('ChatRequestBody', () => {
  it('writes exactly what JSON.stringify writes, with and without the optional fields', () => {
    const body = new ChatRequestBody();
    const messages = conversation(3);
    const cases = [
      { model: 'm', messages, stream: true, stream_options: { include_usage: true }, tools: [tool], temperature: 0.2, max_tokens: 5 },
      { model: 'm', messages, stream: true },
      { model: 'm', messages: [] },
      { model: 'a "quoted" model', messages: messages.slice(0, 1), stream: true, tools: undefined },
    ];
    for (const params of cases) expect(body.encode(params).toString('utf8')).toBe(JSON.stringify(params));
  });

  it('stays exact as the conversation grows, and when a message is replaced by a changed copy', () => {
    const body = new ChatRequestBody();
    const messages = conversation(2);
    for (let step = 0; step < 4; step++) {
      const params = { model: 'm', messages: [...messages], stream: true };
      expect(body.encode(params).toString('utf8')).toBe(JSON.stringify(params));
      messages.push({ role: 'user', content: `step ${step}` });
    }
    messages[1] = { role: 'user', content: 'a redacted copy: [REDACTED]' };
    const params = { model: 'm', messages, stream: true };
    expect(body.encode(params).toString('utf8')).toBe(JSON.stringify(params));
  });

  it('stays exact when the conversation gets shorter (a compaction), repeats itself, or the model changes', () => {
    const body = new ChatRequestBody();
    const messages = conversation(5);
    const cases = [
      { model: 'm', messages },
      { model: 'm', messages },
      { model: 'other "model"', messages },
      { model: 'other "model"', messages: [messages[0], { role: 'user', content: 'summary' }, ...messages.slice(8)] },
      { model: 'other "model"', messages: messages.slice(0, 3) },
      { model: 'other "model"', messages: [] },
      { model: 'other "model"', messages: messages.slice(0, 1) },
    ];
    for (const params of cases) expect(body.encode(params).toString('utf8')).toBe(JSON.stringify(params));
  });

  it('serializes fields in their own order when model and messages do not come first', () => {
    const params = { stream: true, model: 'm', messages: conversation(1) };
    expect(new ChatRequestBody().encode(params).toString('utf8')).toBe(JSON.stringify(params));
  });

  it('a body never shares memory with other buffers, however small', () => {
    for (const params of [
      { model: 'm', messages: [] },
      { model: 'm', messages: conversation(50), stream: true },
    ]) {
      const bytes = new ChatRequestBody().encode(params);
      expect(bytes.byteOffset).toBe(0);
      expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
    }
  });
});
