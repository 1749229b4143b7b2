import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/agent/agent-events';
import { tokenUsageSchema } from '../../src/shared/wire-common';
import { ChatProjector } from '../../src/shared/chat-projector';
import { hostToChatSchema, type ChatStreamMessage } from '../../src/shared/chat-protocol';
import { applyChatMessage, initialChatState } from '../../src/shared/chat-reducer';

function projectAll(projector: ChatProjector, events: AgentEvent[]): ChatStreamMessage[] {
  return events.flatMap((e) => projector.project(e));
}

const blockedTurn: AgentEvent[] = [
  { type: 'session_started', sessionId: 's1', source: 'startup', model: 'gpt-4.1' },
  { type: 'turn_started', turn: 0, prompt: 'clean the build' },
  { type: 'text_delta', text: 'I will ' },
  { type: 'text_delta', text: 'remove it.' },
  { type: 'usage', promptTokens: 100, completionTokens: 20, totalTokens: 120 },
  {
    type: 'assistant_message',
    content: 'I will remove it.',
    toolCalls: [{ id: 'call_1', name: 'Bash', input: { command: 'rm -rf build' } }],
  },
  { type: 'tool_started', id: 'call_1', name: 'Bash', input: { command: 'rm -rf build' } },
  { type: 'hook_started', hookId: 'h1', hookName: 'guard', event: 'PreToolUse' },
  {
    type: 'tool_finished',
    id: 'call_1',
    name: 'Bash',
    input: { command: 'rm -rf build' },
    outcome: 'blocked',
    output: 'PreToolUse hook "guard" blocked this call: no rm -rf',
    hooks: [{ hookName: 'guard', event: 'PreToolUse', kind: 'blocked', detail: 'no rm -rf' }],
    durationMs: 12.6,
  },
  { type: 'text_delta', text: 'Blocked.' },
  { type: 'usage', promptTokens: 150, completionTokens: 5, totalTokens: 155 },
  { type: 'assistant_message', content: 'The guard hook blocked it.', toolCalls: [] },
  { type: 'turn_ended', reason: 'completed', result: 'The guard hook blocked it.' },
];

describe('ChatProjector', () => {
  it('turns a turn into appends and small patches with consecutive seqs', () => {
    const projector = new ChatProjector();
    const messages = projectAll(projector, blockedTurn);
    expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i + 1));
    for (const m of messages) expect(hostToChatSchema.safeParse(m).success).toBe(true);
    expect(messages.map((m) => (m.type === 'append' ? `+${m.item.kind}` : m.type === 'patch' ? `~${m.changes.kind}` : m.type))).toEqual([
      '+user',
      '+assistant',
      '~assistant',
      '~assistant',
      '+tool',
      '~tool',
      '+assistant',
      '~assistant',
      '+turn-end',
    ]);
    // Deltas are sent as deltas, never the whole text again.
    expect(messages[2]).toMatchObject({ type: 'patch', changes: { kind: 'assistant', appendText: 'remove it.' } });
    expect(messages[3]).toEqual({
      type: 'patch',
      seq: 4,
      id: messages[1].type === 'append' ? messages[1].item.id : '',
      changes: { kind: 'assistant', streaming: false },
    });
    // The final content replaces the deltas when a hook changed the response.
    expect(messages[7]).toMatchObject({ changes: { kind: 'assistant', streaming: false, text: 'The guard hook blocked it.' } });
    expect(projector.usage).toEqual({ promptTokens: 250, completionTokens: 25, totalTokens: 275 });
  });

  it('sums only token counts: a usage event with text, a negative or an infinite count leaves the totals as they were', () => {
    const projector = new ChatProjector();
    const usage = (promptTokens: unknown): AgentEvent =>
      ({ type: 'usage', promptTokens, completionTokens: 3, totalTokens: 8 }) as AgentEvent;
    projectAll(projector, [usage(5), usage('5'), usage(-5), usage(Infinity), usage(Number.NaN)]);
    expect(projector.usage).toEqual({ promptTokens: 5, completionTokens: 3, totalTokens: 8 });
  });

  it('totals of counts each valid stop at the largest safe integer, so they stay counts the webview accepts', () => {
    const projector = new ChatProjector();
    const big = Number.MAX_SAFE_INTEGER;
    projectAll(projector, [
      { type: 'usage', promptTokens: big, completionTokens: 1, totalTokens: big },
      { type: 'usage', promptTokens: big, completionTokens: 1, totalTokens: big },
    ]);
    expect(projector.usage).toEqual({ promptTokens: big, completionTokens: 2, totalTokens: big });
    expect(tokenUsageSchema.safeParse(projector.usage).success).toBe(true);
  });

  it('records which hook blocked a tool call, and its outcome', () => {
    const projector = new ChatProjector();
    projectAll(projector, blockedTurn);
    const reset = projector.snapshot();
    if (reset.type !== 'reset') throw new Error('snapshot is a reset');
    const card = reset.state.items.find((i) => i.kind === 'tool');
    expect(card).toMatchObject({
      kind: 'tool',
      id: 'call_1',
      callId: 'call_1',
      summary: 'Run: rm -rf build',
      status: 'blocked',
      durationMs: 13,
      diffAvailable: false,
      hooks: [{ hookName: 'guard', kind: 'blocked', detail: 'no rm -rf' }],
    });
  });

  it('snapshot equals what a webview builds from the messages', () => {
    const projector = new ChatProjector();
    const messages = projectAll(projector, blockedTurn);
    const built = messages.reduce(applyChatMessage, initialChatState());
    const reset = projector.snapshot();
    expect(reset.seq).toBe(messages.length);
    if (reset.type === 'reset') expect(reset.state.items).toEqual(built.items);
    // A webview that joins late catches up from the snapshot and continues with the next message.
    const joined = applyChatMessage(initialChatState(), reset);
    const next = projector.project({ type: 'notice', level: 'warning', message: 'hook slow' });
    expect(applyChatMessage(joined, next[0]).items).toHaveLength(built.items.length + 1);
  });

  it('keeps the state a webview builds, message by message, over reused ids, patches and a clear', () => {
    const projector = new ChatProjector();
    let webview = initialChatState();
    const check = (messages: ChatStreamMessage[]) => {
      for (const message of messages) webview = applyChatMessage(webview, message);
      const reset = projector.snapshot();
      expect(webview.outOfSync).toBe(false);
      expect(reset.type === 'reset' && reset.state.items).toEqual(webview.items);
    };
    check(projectAll(projector, blockedTurn));
    const reused: AgentEvent[] = [
      { type: 'tool_started', id: 'call_1', name: 'Read', input: { file_path: 'a' } },
      {
        type: 'tool_finished',
        id: 'call_1',
        name: 'Read',
        input: { file_path: 'a' },
        outcome: 'executed',
        output: 'x',
        hooks: [],
        durationMs: 1,
      },
      { type: 'notice', level: 'warning', message: 'hook slow' },
    ];
    check(projectAll(projector, reused));
    check([projector.clear()]);
    check(projectAll(projector, [...blockedTurn, ...reused]));
  });

  it('shows a sent prompt at once and marks it blocked when UserPromptSubmit blocks it', () => {
    const projector = new ChatProjector();
    const sent = projector.userPrompt('deploy to prod');
    expect(sent[0]).toMatchObject({ type: 'append', item: { kind: 'user', text: 'deploy to prod' } });
    const userId = sent[0].type === 'append' ? sent[0].item.id : '';
    const out = projectAll(projector, [
      { type: 'prompt_blocked', reason: 'deploys need a ticket', hookName: 'policy' },
      { type: 'turn_ended', reason: 'blocked', result: '', error: 'deploys need a ticket' },
    ]);
    expect(out[0]).toMatchObject({ type: 'patch', id: userId, changes: { kind: 'user', blocked: true } });
    expect(out[1]).toMatchObject({ type: 'append', item: { kind: 'prompt-blocked', reason: 'deploys need a ticket', hookName: 'policy' } });
    expect(out[2]).toMatchObject({ type: 'append', item: { kind: 'turn-end', reason: 'blocked', error: 'deploys need a ticket' } });
    // A prompt sent through userPrompt is not repeated by turn_started.
    projector.userPrompt('next');
    expect(projector.project({ type: 'turn_started', turn: 1, prompt: 'next' })).toEqual([]);
  });

  it('puts approvals inline on the card and offers a diff for executed edits', () => {
    const projector = new ChatProjector({ outputPreviewChars: 10 });
    const input = { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' };
    const out = projectAll(projector, [
      { type: 'tool_started', id: 'c1', name: 'Edit', input },
      {
        type: 'approval_requested',
        id: 'c1',
        askId: 'ask-c1',
        toolName: 'Edit',
        input,
        reason: 'edits need approval',
        askedBy: 'default mode',
        suggestedRule: 'Edit',
        choices: ['allow-once', 'deny'],
      },
    ]);
    expect(out[1]).toMatchObject({
      changes: {
        kind: 'tool',
        status: 'awaiting-approval',
        approval: {
          subject: 'Edit src/a.ts',
          reason: 'edits need approval',
          askedBy: 'default mode',
          choices: ['allow-once', 'deny'],
          rule: 'Edit',
          proposedDiff: true,
        },
      },
    });
    const done = projectAll(projector, [
      { type: 'approval_resolved', id: 'c1', decision: 'allow', by: 'user' },
      {
        type: 'tool_finished',
        id: 'c1',
        name: 'Edit',
        input,
        outcome: 'executed',
        output: 'The file src/a.ts has been updated.',
        hooks: [],
        durationMs: 3,
      },
    ]);
    expect(done[0]).toMatchObject({ changes: { approval: null, approvalOutcome: { decision: 'allow', by: 'user' } } });
    expect(done[1]).toMatchObject({
      changes: { status: 'executed', diffAvailable: true, outputPreview: 'The file s', outputTruncated: true },
    });
  });

  it('names on the approval the file a link leads to', () => {
    const projector = new ChatProjector({ outputPreviewChars: 10 });
    const input = { file_path: '/ws/notes.txt', content: 'todo\n' };
    const out = projectAll(projector, [
      { type: 'tool_started', id: 'c1', name: 'Write', input },
      {
        type: 'approval_requested',
        id: 'c1',
        askId: 'ask-c1',
        toolName: 'Write',
        input,
        linkedTarget: { path: '/ws/config/prod.env' },
        reason: 'file edits need approval in default mode',
        askedBy: 'default mode',
        suggestedRule: 'Write',
        choices: ['allow-once', 'deny'],
      },
    ]);
    expect(out[1]).toMatchObject({
      changes: { approval: { subject: 'Write /ws/notes.txt (2 lines) → /ws/config/prod.env (through a link)' } },
    });
  });

  it("escapes the card's head line and the rule its wider answers add, so no bidi override reorders them", () => {
    const projector = new ChatProjector();
    const command = 'echo ok \u202e"; lmth.xedni > tuo- lruc';
    const approval = projectAll(projector, [
      { type: 'tool_started', id: 'c1', name: 'Bash', input: { command } },
      {
        type: 'approval_requested',
        id: 'c1',
        askId: 'ask-c1',
        toolName: 'Bash',
        input: { command },
        reason: 'commands need approval in default mode',
        askedBy: 'default mode',
        suggestedRule: `Bash(${command})`,
        choices: ['allow-once', 'allow-session', 'allow-always', 'deny-session', 'deny'],
      },
    ]);
    const finished = projector.project({
      type: 'tool_finished',
      id: 'c1',
      name: 'Bash',
      input: { command },
      outcome: 'denied',
      output: 'denied',
      hooks: [],
      durationMs: 1,
    });
    const shown = 'echo ok \\u202e"; lmth.xedni > tuo- lruc';
    expect(approval[0]).toMatchObject({ item: { summary: `Run: ${shown}` } });
    expect(approval[1]).toMatchObject({ changes: { approval: { rule: `Bash(${shown})`, proposedDiff: false } } });
    expect(finished[0]).toMatchObject({ changes: { summary: `Run: ${shown}` } });
  });

  it('offers a diff only for the tools that write a file, not for names Hookpilot has no tool for', () => {
    const finished = (name: string): AgentEvent => ({
      type: 'tool_finished',
      id: `c-${name}`,
      name,
      input: { file_path: 'a' },
      outcome: 'executed',
      output: 'ok',
      hooks: [],
      durationMs: 1,
    });
    const diffs = (name: string) => {
      const projector = new ChatProjector();
      projector.project({ type: 'tool_started', id: `c-${name}`, name, input: { file_path: 'a' } });
      return projector.project(finished(name)).map((m) => (m.type === 'patch' ? m.changes : undefined));
    };
    for (const name of ['Write', 'Edit']) expect(diffs(name)).toMatchObject([{ diffAvailable: true }]);
    for (const name of ['Read', 'MultiEdit', 'NotebookEdit', 'constructor', 'mcp__fs__write_file']) {
      expect(diffs(name)).toMatchObject([{ diffAvailable: false }]);
    }
  });

  it('gives a reused tool_use_id a new card id and patches the newest card', () => {
    const projector = new ChatProjector();
    const finish = (id: string): AgentEvent => ({
      type: 'tool_finished',
      id,
      name: 'Read',
      input: { file_path: 'a' },
      outcome: 'executed',
      output: 'x',
      hooks: [],
      durationMs: 1,
    });
    const out = projectAll(projector, [
      { type: 'tool_started', id: 'call_0', name: 'Read', input: { file_path: 'a' } },
      finish('call_0'),
      { type: 'tool_started', id: 'call_0', name: 'Read', input: { file_path: 'a' } },
      finish('call_0'),
    ]);
    const ids = out.filter((m) => m.type === 'append').map((m) => (m.type === 'append' ? m.item.id : ''));
    expect(new Set(ids).size).toBe(2);
    expect(out[3]).toMatchObject({ type: 'patch', id: ids[1] });
    const reset = projector.snapshot();
    if (reset.type === 'reset')
      expect(reset.state.items.every((i) => i.kind !== 'tool' || (i.callId === 'call_0' && i.status === 'executed'))).toBe(true);
  });

  it('clear starts an empty chat with a reset that keeps seq increasing', () => {
    const projector = new ChatProjector();
    projectAll(projector, blockedTurn);
    const before = projector.lastSeq;
    const reset = projector.clear();
    expect(reset).toEqual({ type: 'reset', seq: before + 1, state: { items: [] } });
    expect(projector.usage.totalTokens).toBe(0);
    const next = projector.project({ type: 'turn_started', turn: 0, prompt: 'again' });
    expect(next[0].seq).toBe(before + 2);
  });
});
