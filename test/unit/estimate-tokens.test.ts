import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/core/agent/compaction';
import type { ChatMessage } from '../../src/core/agent/llm/chat-model';

describe('estimateTokens', () => {
  it('serializes each message once however often the growing conversation is measured', () => {
    let serialized = 0;
    const message = (i: number): ChatMessage => {
      const m = { role: 'user' as const, content: `message ${i} `.repeat(10) };
      return Object.assign(m, { toJSON: () => (serialized++, { role: m.role, content: m.content }) });
    };
    const messages: ChatMessage[] = [];
    let estimate = 0;
    for (let i = 0; i < 100; i++) {
      messages.push(message(i));
      estimate = estimateTokens(messages);
      estimateTokens(messages);
    }
    expect(serialized).toBe(100);
    const chars = messages.reduce((sum, m) => sum + JSON.stringify(m).length, 0);
    expect(estimate).toBe(Math.ceil(chars / 4));
  });
});
