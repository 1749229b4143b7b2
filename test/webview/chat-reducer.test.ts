import { describe, expect, it } from 'vitest';
import type { ChatItem } from '../../src/shared/chat-items';
import { receiveChatToHost, receiveHostToChat, type HostToChat } from '../../src/shared/chat-protocol';
import { applyChatMessage, initialChatState, type ChatViewState } from '../../src/shared/chat-reducer';
import { MODEL_PRESETS } from '../../src/shared/model-presets';

const tool = (id: string): ChatItem => ({
  kind: 'tool',
  id,
  callId: id,
  name: 'Bash',
  summary: 'Run: ls',
  status: 'running',
  hooks: [],
  diffAvailable: false,
});

function run(messages: HostToChat[], state: ChatViewState = initialChatState()): ChatViewState {
  return messages.reduce(applyChatMessage, state);
}

describe('applyChatMessage', () => {
  it('applies appends and patches in seq order, streaming text by appendText', () => {
    const state = run([
      { type: 'reset', seq: 4, state: { items: [] } },
      { type: 'append', seq: 5, item: { kind: 'assistant', id: 'a1', text: 'Hel', streaming: true } },
      { type: 'patch', seq: 6, id: 'a1', changes: { kind: 'assistant', appendText: 'lo' } },
      { type: 'patch', seq: 7, id: 'a1', changes: { kind: 'assistant', streaming: false } },
    ]);
    expect(state.lastSeq).toBe(7);
    expect(state.outOfSync).toBe(false);
    expect(state.items).toEqual([{ kind: 'assistant', id: 'a1', text: 'Hello', streaming: false }]);
  });

  it('never mutates the previous state', () => {
    const before = run([{ type: 'reset', seq: 0, state: { items: [tool('t1')] } }]);
    const frozen = JSON.stringify(before);
    const after = applyChatMessage(before, {
      type: 'patch',
      seq: 1,
      id: 't1',
      changes: { kind: 'tool', status: 'executed', outputPreview: 'ok' },
    });
    expect(JSON.stringify(before)).toBe(frozen);
    expect(after.items[0]).toMatchObject({ status: 'executed', outputPreview: 'ok' });
    expect(after.items).not.toBe(before.items);
  });

  it('drops duplicates and marks a gap as out of sync until a reset', () => {
    let state = run([
      { type: 'reset', seq: 0, state: { items: [] } },
      { type: 'append', seq: 1, item: tool('t1') },
      { type: 'append', seq: 1, item: tool('t1') },
    ]);
    expect(state.items).toHaveLength(1);
    state = applyChatMessage(state, { type: 'append', seq: 3, item: tool('t3') });
    expect(state.outOfSync).toBe(true);
    expect(state.lastSeq).toBe(1);
    // Later messages wait for the reset too, even one that would follow seq 1.
    state = applyChatMessage(state, { type: 'append', seq: 2, item: tool('t2') });
    expect(state.items.map((i) => i.id)).toEqual(['t1']);
    state = applyChatMessage(state, { type: 'reset', seq: 3, state: { items: [tool('t1'), tool('t2'), tool('t3')] } });
    expect(state).toMatchObject({ outOfSync: false, lastSeq: 3 });
    expect(state.items).toHaveLength(3);
  });

  it('treats a patch of an unknown item or of the wrong kind as out of sync', () => {
    const base = run([{ type: 'reset', seq: 0, state: { items: [tool('t1')] } }]);
    expect(applyChatMessage(base, { type: 'patch', seq: 1, id: 'nope', changes: { kind: 'tool', status: 'failed' } }).outOfSync).toBe(true);
    expect(applyChatMessage(base, { type: 'patch', seq: 1, id: 't1', changes: { kind: 'assistant', appendText: 'x' } }).outOfSync).toBe(
      true,
    );
    expect(applyChatMessage(base, { type: 'append', seq: 1, item: tool('t1') }).outOfSync).toBe(true);
  });

  it('sets and clears the inline approval of a tool card', () => {
    const state = run([
      { type: 'reset', seq: 0, state: { items: [tool('t1')] } },
      {
        type: 'patch',
        seq: 1,
        id: 't1',
        changes: {
          kind: 'tool',
          status: 'awaiting-approval',
          approval: {
            askId: 'ask-1',
            subject: 'Run: npm test',
            reason: 'ask rule Bash',
            askedBy: 'rule',
            choices: ['allow-once', 'deny'],
            rule: 'Bash(npm test)',
            proposedDiff: false,
          },
        },
      },
    ]);
    expect(state.items[0]).toMatchObject({ status: 'awaiting-approval', approval: { askedBy: 'rule' } });
    const answered = applyChatMessage(state, {
      type: 'patch',
      seq: 2,
      id: 't1',
      changes: { kind: 'tool', status: 'running', approval: null, approvalOutcome: { decision: 'allow', by: 'user' } },
    });
    expect(answered.items[0]).not.toHaveProperty('approval');
    expect(answered.items[0]).toMatchObject({ approvalOutcome: { decision: 'allow', by: 'user' } });
  });

  it('keeps status and sessions as the latest snapshot', () => {
    const state = run([
      {
        type: 'status',
        model: { configured: false, problem: 'No model is configured', presets: [...MODEL_PRESETS] },
        busy: false,
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      },
      {
        type: 'status',
        model: { configured: true, name: 'gpt-4.1' },
        busy: true,
        usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      },
      { type: 'sessions', list: [{ id: 's1', title: 'Fix the parser', startedAt: '2025-01-01T00:00:00.000Z' }], currentId: 's1' },
    ]);
    expect(state.status).toEqual({
      model: { configured: true, name: 'gpt-4.1' },
      busy: true,
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    });
    expect(state.currentSessionId).toBe('s1');
    expect(state.sessions).toHaveLength(1);
  });
});

describe('chat message schemas', () => {
  it('accept well-formed messages and reject malformed ones with a readable error', () => {
    expect(receiveHostToChat({ type: 'append', seq: 1, item: tool('t1') }).ok).toBe(true);
    const bad = receiveHostToChat({ type: 'append', seq: -1, item: { kind: 'tool', id: 't1' } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/append/);
    expect(
      receiveHostToChat({ type: 'patch', seq: 2, id: 'a', changes: { kind: 'assistant', appendText: 'x', status: 'executed' } }),
    ).toMatchObject({ ok: true });
    expect(receiveHostToChat({ type: 'nope' }).ok).toBe(false);
    expect(receiveHostToChat('append').ok).toBe(false);
  });

  it('validates chat intents: empty prompts, unknown presets and choices are refused', () => {
    expect(receiveChatToHost({ type: 'send', text: '  hi  ' })).toEqual({ ok: true, message: { type: 'send', text: 'hi' } });
    expect(receiveChatToHost({ type: 'send', text: '   ' }).ok).toBe(false);
    expect(receiveChatToHost({ type: 'configureModel', preset: 'ollama' }).ok).toBe(true);
    expect(receiveChatToHost({ type: 'configureModel', preset: 'acme' }).ok).toBe(false);
    expect(receiveChatToHost({ type: 'answerApproval', id: 't1', askId: 'a1', choice: 'allow-session' }).ok).toBe(true);
    expect(receiveChatToHost({ type: 'answerApproval', id: 't1', askId: 'a1', choice: 'maybe' }).ok).toBe(false);
    // The card's ask says which ask it answers: without it, an answer could reach a later ask under the same id.
    expect(receiveChatToHost({ type: 'answerApproval', id: 't1', choice: 'allow-session' }).ok).toBe(false);
    expect(receiveChatToHost({ type: 'resync', lastSeq: 7 }).ok).toBe(true);
  });
});
