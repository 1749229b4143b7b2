import { describe, expect, it } from 'vitest';
import type { ChatModel, ModelRequest } from '../../src/core/agent/llm/chat-model';
import { RedactingChatModel } from '../../src/core/agent/llm/redacting-chat-model';
import { Redactor } from '../../src/core/audit/redactor';

const SECRET = 'registered-secret-4f5g6h';

function recording(): { model: ChatModel; seen: ModelRequest[] } {
  const seen: ModelRequest[] = [];
  return {
    seen,
    model: { complete: (request) => (seen.push(request), Promise.resolve({ content: 'ok', toolCalls: [], finishReason: 'stop' })) },
  };
}

describe('RedactingChatModel', () => {
  it('sends messages and tools without secrets, and leaves the conversation itself as it is', async () => {
    const { model, seen } = recording();
    const request: ModelRequest = {
      model: 'm',
      messages: [
        { role: 'system', content: `context from a hook: ${SECRET}` },
        { role: 'user', content: [{ type: 'text', text: `pasted ${SECRET}` }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'Bash', arguments: `{"command":"echo ${SECRET}"}` } }],
        },
        { role: 'tool', tool_call_id: 'c', content: `${SECRET}\nghp_1234567890abcdefghijABCDEFGHIJ123456` },
      ],
      tools: [{ type: 'function', function: { name: 'T', description: `a BeforeLLM hook wrote ${SECRET}`, parameters: {} } }],
    };
    const before = JSON.stringify(request);
    await new RedactingChatModel(model, new Redactor({ secretValues: [SECRET] })).complete(request, {
      signal: new AbortController().signal,
    });
    expect(JSON.stringify(request)).toBe(before);
    const sent = JSON.stringify(seen[0]);
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain('ghp_');
    expect(seen[0].messages[3]).toEqual({ role: 'tool', tool_call_id: 'c', content: '[REDACTED:secret_value]\n[REDACTED:github_token]' });
    expect(JSON.stringify(seen[0].tools)).toContain('a BeforeLLM hook wrote [REDACTED:secret_value]');
  });

  it('sends a request with nothing to redact as it is', async () => {
    const { model, seen } = recording();
    const request: ModelRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    await new RedactingChatModel(model, new Redactor({ secretValues: [SECRET] })).complete(request, {
      signal: new AbortController().signal,
    });
    expect(seen[0].messages).toBe(request.messages);
    expect(seen[0].tools).toBeUndefined();
  });

  it('scans each message once as the conversation grows, and all of them again once a secret is registered', async () => {
    const { model, seen } = recording();
    const redactor = new Redactor();
    let scanned = 0;
    const counting = {
      redactForModel: <T>(value: T): T => (scanned++, redactor.redactForModel(value)),
      get secretValueCount() {
        return redactor.secretValueCount;
      },
    };
    const boundary = new RedactingChatModel(model, counting);
    const messages: ModelRequest['messages'] = [{ role: 'user', content: `pasted ${SECRET}` }];
    const signal = new AbortController().signal;
    for (let i = 0; i < 5; i++) {
      messages.push({ role: 'assistant', content: `answer ${i}` });
      await boundary.complete({ model: 'm', messages }, { signal });
    }
    expect(scanned).toBe(6);
    expect(JSON.stringify(seen[4].messages)).toContain(SECRET);
    // Registered later (a .env read at reload): removed from the earlier messages too.
    redactor.addSecretValue(SECRET);
    await boundary.complete({ model: 'm', messages }, { signal });
    expect(JSON.stringify(seen[5].messages)).not.toContain(SECRET);
  });

  it('redacts one tools list once while it is sent unchanged, and anew once a secret is registered', async () => {
    const { model, seen } = recording();
    const redactor = new Redactor();
    const scannedTools: unknown[] = [];
    const counting = {
      redactForModel: <T>(value: T): T => (
        Array.isArray(value) && value[0]?.type === 'function' && scannedTools.push(value),
        redactor.redactForModel(value)
      ),
      get secretValueCount() {
        return redactor.secretValueCount;
      },
    };
    const boundary = new RedactingChatModel(model, counting);
    const tools: ModelRequest['tools'] = [{ type: 'function', function: { name: 'T', description: `uses ${SECRET}`, parameters: {} } }];
    const signal = new AbortController().signal;
    for (let i = 0; i < 3; i++) await boundary.complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools }, { signal });
    expect(scannedTools).toHaveLength(1);
    // A different list (a BeforeLLM rewrite) is its own.
    await boundary.complete({ model: 'm', messages: [], tools: [...tools] }, { signal });
    expect(scannedTools).toHaveLength(2);
    redactor.addSecretValue(SECRET);
    await boundary.complete({ model: 'm', messages: [], tools }, { signal });
    expect(scannedTools).toHaveLength(3);
    expect(JSON.stringify(seen[4].tools)).not.toContain(SECRET);
    expect(JSON.stringify(seen[0].tools)).toContain(SECRET);
  });
});
