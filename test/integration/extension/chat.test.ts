import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { receiveHostToChat, type HostToChat } from '../../../src/shared/chat-protocol';
import type { HostToManager } from '../../../src/shared/manager-protocol';
import { stall, text, toolCalls } from '../../support/model-server';
import { commands, stub } from '../../support/vscode-stub';
import { postedText, startChat, startHost, until, type ChatHarness, type HostHarness } from './extension-harness';

type Status = Extract<HostToChat, { type: 'status' }>;
type Sessions = Extract<HostToChat, { type: 'sessions' }>;
type StreamMessage = Extract<HostToChat, { type: 'reset' | 'append' | 'patch' }>;

const KEY = 'sk-test-0123456789abcdefSECRET';

/** A hook command that runs until the test writes `file` in the workspace: no race with a sleep. */
const untilReleased = (file: string) => `while [ ! -f ${file} ]; do sleep 0.05; done`;

let h: ChatHarness | HostHarness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('chat stream', () => {
  it('sends append/patch with consecutive seq numbers, answers resync with a reset, and shows usage', async () => {
    const chat = await startChat({}, [
      text('Hello there, how can I help?', { chunks: 4, usage: { promptTokens: 11, completionTokens: 7 } }),
    ]);
    h = chat;
    await chat.prompt('hi');
    const stream = chat.webview.posted.filter((m): m is StreamMessage =>
      ['reset', 'append', 'patch'].includes((m as { type: string }).type),
    );
    expect(stream[0].type).toBe('reset');
    for (let i = 1; i < stream.length; i++) expect(stream[i].seq).toBe(stream[i - 1].seq + 1);
    expect(stream.filter((m) => m.type === 'patch').length).toBeGreaterThan(0);
    expect(chat.items().map((i) => i.kind)).toEqual(['user', 'assistant', 'turn-end']);
    expect(chat.items()[1]).toMatchObject({ kind: 'assistant', text: 'Hello there, how can I help?', streaming: false });
    expect(chat.webview.ofType<Status>('status').at(-1)).toMatchObject({
      busy: false,
      model: { configured: true, name: 'scripted-model' },
      usage: { promptTokens: 11, completionTokens: 7, totalTokens: 18 },
    });

    const before = chat.webview.posted.length;
    chat.webview.send({ type: 'resync', lastSeq: 1 });
    const reset = await until(
      () =>
        chat.webview.posted
          .slice(before)
          .find((m): m is Extract<HostToChat, { type: 'reset' }> => (m as { type: string }).type === 'reset'),
      'the resync reset',
    );
    expect(reset.seq).toBe(stream.at(-1)?.seq);
    expect(reset.state.items).toEqual(chat.items());
  });

  it('a reply whose token counts are not counts leaves the totals as they were, is logged, and the chat still learns the turn ended', async () => {
    const chat = await startChat({}, [
      text('first', { usage: { promptTokens: 11, completionTokens: 7 } }),
      text('second', { usage: { wire: { prompt_tokens: -1_000_000, completion_tokens: 3, total_tokens: -999_997 } } }),
    ]);
    h = chat;
    await chat.prompt('one');
    await chat.prompt('two');
    const last = chat.webview.ofType<Status>('status').at(-1);
    // What the webview itself checks on receipt: a status it refused would leave it "Working…".
    const received = receiveHostToChat(last);
    expect(received.ok ? received.message : received.error).toMatchObject({
      busy: false,
      usage: { promptTokens: 11, completionTokens: 7, totalTokens: 18 },
    });
    expect(stub.state.logLines).toContainEqual({
      level: 'warn',
      message: expect.stringMatching(/^the model at .*: a reply's token usage is not counted \(prompt_tokens: /),
    });
  });

  it('drops invalid webview messages without acting on them', async () => {
    const chat = await startChat({}, [text('never')]);
    h = chat;
    const before = chat.webview.posted.length;
    chat.webview.send({ type: 'send', text: '' });
    chat.webview.send({ type: 'answerApproval', id: 'x', askId: 'a', choice: 'allow-forever' });
    chat.webview.send('not even an object');
    await until(
      () => stub.state.logLines.filter((l) => l.message.startsWith('chat webview: invalid message')).length === 3,
      'three warnings',
    );
    expect(chat.webview.posted.length).toBe(before);
    expect(chat.server.requests).toHaveLength(0);
  });

  it('Open Chat with a prompt sends it; a malformed argument or a busy chat is an error, not a silent drop', async () => {
    const chat = await startChat({}, [text('first answer'), stall(2, text('slow', { chunks: 3 }))]);
    h = chat;
    await commands.executeCommand('hookpilot.openChat', 'from a keybinding');
    expect(chat.server.requests[0].body.messages.at(-1)).toMatchObject({ role: 'user', content: 'from a keybinding' });
    expect(chat.items().map((i) => i.kind)).toEqual(['user', 'assistant', 'turn-end']);

    await commands.executeCommand('hookpilot.openChat', { prompt: 42 });
    expect(stub.state.messages.at(-1)).toMatchObject({
      level: 'error',
      message: expect.stringContaining('hookpilot.openChat takes a prompt'),
    });

    const slow = commands.executeCommand('hookpilot.openChat', { prompt: 'second' });
    await until(() => chat.webview.ofType<Status>('status').at(-1)?.busy, 'the second turn to start');
    await commands.executeCommand('hookpilot.openChat', 'third');
    expect(stub.state.messages.at(-1)).toMatchObject({ level: 'error', message: expect.stringContaining('a chat turn is running') });
    await commands.executeCommand('hookpilot.cancel');
    await slow;
    expect(chat.server.requests.map((r) => r.body.messages.at(-1))).toEqual([
      expect.objectContaining({ content: 'from a keybinding' }),
      expect.objectContaining({ content: 'second' }),
    ]);
  });

  it('a message sent while the agent works is shown queued, reaches the model after the step, and one sent too late is the next prompt', async () => {
    const hooks = {
      hooks: {
        PreToolUse: [{ matcher: 'Glob', hooks: [{ type: 'command', command: untilReleased('release-tool') }] }],
        Stop: [{ hooks: [{ type: 'command', command: untilReleased('release-stop'), statusMessage: 'Final checks…' }] }],
      },
    };
    const chat = await startChat({ '.vscode/hooks.json': JSON.stringify(hooks) }, [
      toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]),
      text('Listed the ts files.'),
      text('Summary: none.'),
    ]);
    h = chat;
    const lastStatus = () => chat.webview.ofType<Status>('status').at(-1);
    chat.webview.send({ type: 'send', text: 'list files' });
    await until(() => chat.items().some((i) => i.kind === 'tool'), 'the tool call to start');
    chat.webview.send({ type: 'send', text: 'only ts files' });
    await until(() => chat.items().some((i) => i.kind === 'user' && i.text === 'only ts files' && i.queued === true), 'the queued message');
    writeFileSync(chat.workspace.file('release-tool'), '');
    // Sent while the Stop hook runs, after the last step: it waits for the turn to end.
    await until(() => lastStatus()?.activity === 'Final checks…', 'the Stop hook');
    chat.webview.send({ type: 'send', text: 'and a summary' });
    await until(
      () => chat.items().some((i) => i.kind === 'user' && i.text === 'and a summary' && i.queued === true),
      'the message queued behind Stop',
    );
    writeFileSync(chat.workspace.file('release-stop'), '');
    await until(() => chat.items().filter((i) => i.kind === 'turn-end').length === 2, 'the follow-up turn to end');
    await until(() => lastStatus()?.busy === false, 'the chat to be idle');

    expect(chat.server.requests).toHaveLength(3);
    expect(chat.server.requests[1].body.messages.at(-1)).toMatchObject({ role: 'user', content: 'only ts files' });
    expect(chat.server.requests[2].body.messages.at(-1)).toMatchObject({ role: 'user', content: 'and a summary' });
    const users = chat.items().filter((i) => i.kind === 'user');
    expect(users.map((u) => [u.text, u.queued ?? false])).toEqual([
      ['list files', false],
      ['only ts files', false],
      ['and a summary', false],
    ]);
    // Each message shows where it was sent; the follow-up's turn does not repeat it.
    expect(chat.items().map((i) => i.kind)).toEqual(['user', 'tool', 'user', 'assistant', 'user', 'turn-end', 'assistant', 'turn-end']);
  });

  it('a hook\'s abort "hard" ends the session: a message queued meanwhile goes back to the composer, and the next prompt starts a new session', async () => {
    const guard = `${untilReleased('release')}; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","abort":"hard"},"reason":"dangerous state"}'`;
    const hooks = { hooks: { PreToolUse: [{ matcher: 'Glob', hooks: [{ type: 'command', command: guard, name: 'state-guard' }] }] } };
    const chat = await startChat({ '.vscode/hooks.json': JSON.stringify(hooks) }, [
      toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]),
      text('a new session'),
    ]);
    h = chat;
    chat.webview.send({ type: 'send', text: 'list files' });
    await until(() => chat.items().some((i) => i.kind === 'tool'), 'the tool call to start');
    const first = chat.root.chat.currentSessionId;
    chat.webview.send({ type: 'send', text: 'queued while the guard ran' });
    await until(() => chat.items().some((i) => i.kind === 'user' && i.queued === true), 'the message to be queued');
    writeFileSync(chat.workspace.file('release'), '');
    await until(
      () => chat.webview.ofType<Extract<HostToChat, { type: 'restoreDraft' }>>('restoreDraft').length > 0,
      'the queued text back',
    );
    expect(chat.webview.ofType<Extract<HostToChat, { type: 'restoreDraft' }>>('restoreDraft')[0]?.text).toBe('queued while the guard ran');
    expect(chat.items().find((i) => i.kind === 'turn-end')).toMatchObject({ reason: 'aborted' });
    await until(() => chat.items().some((i) => i.kind === 'notice' && i.message.includes('"state-guard" ended the session')), 'the notice');
    expect(chat.server.requests).toHaveLength(1);
    expect(chat.root.chat.currentSessionId).toBeUndefined();

    await chat.prompt('start again');
    expect(chat.root.chat.currentSessionId).not.toBe(first);
    expect(chat.server.requests).toHaveLength(2);
  });

  it('while a hook with a statusMessage runs, the status carries it; afterwards it is gone', async () => {
    const hooks = {
      hooks: {
        PreToolUse: [
          { matcher: 'Glob', hooks: [{ type: 'command', command: untilReleased('release'), statusMessage: 'Checking the pattern…' }] },
        ],
      },
    };
    const chat = await startChat({ '.vscode/hooks.json': JSON.stringify(hooks) }, [
      toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]),
      text('found'),
    ]);
    h = chat;
    const lastStatus = () => chat.webview.ofType<Status>('status').at(-1);
    chat.webview.send({ type: 'send', text: 'list files' });
    await until(() => lastStatus()?.activity === 'Checking the pattern…', "the hook's status message");
    writeFileSync(chat.workspace.file('release'), '');
    await until(() => chat.items().some((i) => i.kind === 'turn-end'), 'the turn to end');
    await until(() => lastStatus()?.busy === false, 'the chat to be idle');
    expect(lastStatus()?.activity).toBeUndefined();
  });

  it('/compact in the composer (and Compact Conversation) compacts with PreCompact trigger "manual"; too early says so', async () => {
    const hooks = { hooks: { PreCompact: [{ matcher: 'manual', hooks: [{ type: 'command', command: 'cat > precompact.json' }] }] } };
    const chat = await startChat({ '.vscode/hooks.json': JSON.stringify(hooks) }, (req) => {
      const messages = req.body.messages as Array<{ content?: unknown }>;
      return String(messages[0].content).startsWith('You compact') ? text('SUMMARY of the chat') : text(`answer ${req.index}`);
    });
    h = chat;
    // A compaction is no turn: it ends with a notice.
    const compactWith = async (text: string) => {
      const notices = chat.items().filter((i) => i.kind === 'notice').length;
      chat.webview.send({ type: 'send', text });
      await until(() => chat.items().filter((i) => i.kind === 'notice').length > notices, `the notice after "${text}"`);
      await until(() => chat.webview.ofType<Status>('status').at(-1)?.busy === false, 'the chat to be idle');
    };
    await compactWith('/compact');
    expect(chat.items().at(-1)).toMatchObject({ kind: 'notice', message: expect.stringContaining('Nothing to compact yet') });
    for (let i = 0; i < 5; i++) await chat.prompt(`question ${i}`);
    await compactWith('/compact keep the answers');
    expect(chat.items().at(-1)).toMatchObject({ kind: 'notice', message: expect.stringMatching(/^Older turns were compacted/) });
    expect(JSON.parse(readFileSync(join(chat.workspace.dir, 'precompact.json'), 'utf8'))).toMatchObject({
      trigger: 'manual',
      custom_instructions: 'keep the answers',
    });
    expect(
      chat
        .items()
        .filter((i) => i.kind === 'user')
        .map((i) => i.kind === 'user' && i.text),
    ).not.toContain('/compact keep the answers');

    stub.state.answerInputBox = () => '';
    await commands.executeCommand('hookpilot.compactChat');
    expect(chat.items().at(-1)).toMatchObject({
      kind: 'notice',
      message: expect.stringMatching(/^Nothing was compacted: too little conversation/),
    });
  });

  it('cancel stops a running turn', async () => {
    const chat = await startChat({}, [stall(2, text('a long answer that never ends', { chunks: 5 }))]);
    h = chat;
    chat.webview.send({ type: 'send', text: 'take your time' });
    await until(
      () => chat.webview.ofType<Status>('status').at(-1)?.busy && chat.items().some((i) => i.kind === 'assistant'),
      'the answer to start',
    );
    await stub.state.commands.get('hookpilot.cancel')?.();
    await until(() => chat.items().find((i) => i.kind === 'turn-end'), 'the turn to end');
    expect(chat.items().find((i) => i.kind === 'turn-end')).toMatchObject({ reason: 'cancelled' });
  });

  it('cancel with messages queued: none is sent, they go back to the composer and the chat says so; /compact waits for the turn', async () => {
    const chat = await startChat({}, [stall(2, text('a long answer that never ends', { chunks: 5 })), text('fresh answer')]);
    h = chat;
    chat.webview.send({ type: 'send', text: 'take your time' });
    await until(
      () => chat.webview.ofType<Status>('status').at(-1)?.busy && chat.items().some((i) => i.kind === 'assistant'),
      'the answer to start',
    );
    chat.webview.send({ type: 'send', text: '/compact keep the decisions' });
    await until(
      () => chat.webview.ofType<Extract<HostToChat, { type: 'restoreDraft' }>>('restoreDraft').length === 1,
      'the /compact to come back',
    );
    expect(chat.items().at(-1)).toMatchObject({ kind: 'notice', message: expect.stringContaining('only between turns') });
    chat.webview.send({ type: 'send', text: 'first note' });
    chat.webview.send({ type: 'send', text: 'second note' });
    await until(() => chat.items().filter((i) => i.kind === 'user' && i.queued).length === 2, 'two queued messages');
    await stub.state.commands.get('hookpilot.cancel')?.();
    await until(
      () => chat.webview.ofType<Status>('status').at(-1)?.busy === false && chat.items().some((i) => i.kind === 'turn-end'),
      'the turn to end',
    );
    await until(
      () => chat.webview.ofType<Extract<HostToChat, { type: 'restoreDraft' }>>('restoreDraft').length === 2,
      'the notes to come back',
    );

    const drafts = () => chat.webview.ofType<Extract<HostToChat, { type: 'restoreDraft' }>>('restoreDraft');
    expect(drafts().map((m) => m.text)).toEqual(['/compact keep the decisions', 'first note\n\nsecond note']);
    const notes = chat.items().filter((i) => i.kind === 'user' && i.text.endsWith('note'));
    expect(notes.map((n) => n.kind === 'user' && [n.queued, n.withdrawn])).toEqual([
      [false, true],
      [false, true],
    ]);
    // The next request carries whatever the chat still held: only the new prompt.
    chat.webview.send({ type: 'send', text: 'fresh start' });
    await until(() => chat.items().some((i) => i.kind === 'assistant' && i.text === 'fresh answer'), 'the next prompt to be answered');
    expect(chat.server.requests).toHaveLength(2);
    expect(JSON.stringify(chat.server.requests[1].body.messages)).toContain('fresh start');
    expect(JSON.stringify(chat.server.requests[1].body.messages)).not.toContain('note');

    // A page that was not there (a hidden view) gets them when it loads, until it confirms one.
    chat.webview.send({ type: 'draftRestored', id: drafts()[0].id });
    chat.webview.send({ type: 'ready', lastSeq: 0 });
    await until(() => drafts().length === 3, 'the unconfirmed draft again');
    expect(drafts()[2]).toEqual(drafts()[1]);
  });

  it('a hook stopping the agent on a queued message sends back what was queued behind it', async () => {
    const halt = `#!/usr/bin/env node
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (/halt/.test(input.prompt)) process.stdout.write(JSON.stringify({ continue: false, stopReason: 'halted' }));
`;
    const hooks = {
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/halt.js' }] }],
        PreToolUse: [{ matcher: 'Glob', hooks: [{ type: 'command', command: untilReleased('release') }] }],
      },
    };
    const chat = await startChat({ 'hooks/halt.js': halt, '.vscode/hooks.json': JSON.stringify(hooks) }, [
      toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]),
      text('after the stop'),
    ]);
    h = chat;
    chat.webview.send({ type: 'send', text: 'list files' });
    await until(() => chat.items().some((i) => i.kind === 'tool'), 'the tool call to start');
    chat.webview.send({ type: 'send', text: 'halt please' });
    chat.webview.send({ type: 'send', text: 'and more' });
    await until(() => chat.items().filter((i) => i.kind === 'user' && i.queued === true).length === 2, 'both messages to be queued');
    writeFileSync(chat.workspace.file('release'), '');
    await until(
      () => chat.webview.ofType<Extract<HostToChat, { type: 'restoreDraft' }>>('restoreDraft').length === 1,
      'the rest to come back',
    );
    expect(chat.webview.ofType<Extract<HostToChat, { type: 'restoreDraft' }>>('restoreDraft')[0].text).toBe('and more');
    expect(chat.items().find((i) => i.kind === 'turn-end')).toMatchObject({ reason: 'stopped' });
    // The next request carries whatever the chat still held: only the new prompt.
    chat.webview.send({ type: 'send', text: 'next prompt' });
    await until(() => chat.items().some((i) => i.kind === 'assistant' && i.text === 'after the stop'), 'the next prompt to be answered');
    expect(chat.server.requests).toHaveLength(2);
    expect(JSON.stringify(chat.server.requests[1].body.messages)).toContain('next prompt');
    expect(JSON.stringify(chat.server.requests[1].body.messages)).not.toContain('and more');
  });

  it('a prompt sent while New Chat is still ending the old session goes to the new chat', async () => {
    // The SessionEnd hook runs until the test has sent the prompt: no race with a sleep.
    const hooks = {
      hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: 'touch ending; while [ ! -f release ]; do sleep 0.05; done' }] }] },
    };
    const chat = await startChat({ '.vscode/hooks.json': JSON.stringify(hooks) }, [text('first'), text('second')]);
    h = chat;
    await chat.prompt('one');
    const ending = commands.executeCommand('hookpilot.newChat');
    await until(() => existsSync(chat.workspace.file('ending')), 'the SessionEnd hook to run');
    chat.webview.send({ type: 'send', text: 'two' });
    writeFileSync(chat.workspace.file('release'), '');
    await ending;
    await until(() => chat.items().some((i) => i.kind === 'turn-end'), 'the new chat to answer');
    expect(chat.items().map((i) => (i.kind === 'user' || i.kind === 'assistant' ? `${i.kind}: ${i.text}` : i.kind))).toEqual([
      'user: two',
      'assistant: second',
      'turn-end',
    ]);
    expect(chat.root.chat.currentSessionId).toBeDefined();
  });

  it('New Chat starts empty; the earlier chat is listed and resumes with its transcript', async () => {
    const chat = await startChat({}, [text('Paris.'), text('About 2 million.')]);
    h = chat;
    await chat.prompt('What is the capital of France?');
    const firstSession = chat.root.chat.currentSessionId;
    await stub.state.commands.get('hookpilot.newChat')?.();
    expect(chat.items()).toEqual([]);
    const listed = await until(
      () =>
        chat.webview
          .ofType<Sessions>('sessions')
          .at(-1)
          ?.list.find((s) => s.id === firstSession),
      'the earlier session',
    );
    expect(listed).toMatchObject({ title: 'What is the capital of France?', turns: 1 });

    chat.webview.send({ type: 'resume', sessionId: firstSession ?? '' });
    await until(
      () => chat.root.chat.currentSessionId === firstSession && chat.items().some((i) => i.kind === 'notice'),
      'the resumed session',
    );
    expect(chat.items().slice(0, 2)).toMatchObject([
      { kind: 'user', text: 'What is the capital of France?' },
      { kind: 'assistant', text: 'Paris.' },
    ]);
    await chat.prompt('And its population?');
    const sent = chat.server.requests.at(-1)?.body.messages.map((m) => m.content);
    expect(sent).toEqual(expect.arrayContaining(['What is the capital of France?', 'Paris.', 'And its population?']));
  });
});

describe('resuming a chat another process works on', () => {
  it('says why it cannot be resumed, keeps no half-started session, and resumes once the other process is gone', async () => {
    const chat = await startChat({}, [text('Paris.'), text('About 2 million.')]);
    h = chat;
    await chat.prompt('What is the capital of France?');
    const first = chat.root.chat.currentSessionId as string;
    await stub.state.commands.get('hookpilot.newChat')?.();
    // Another live process holds the transcript's lock, as a `hookpilot run --resume` would.
    const other = spawn(process.execPath, ['-e', 'process.stdin.resume()'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const lock = join(chat.storageDir, 'transcripts', `${first}.jsonl.lock`);
    writeFileSync(lock, `${other.pid}\n`);
    try {
      chat.webview.send({ type: 'resume', sessionId: first });
      const refused = await until(() => chat.items().find((i) => i.kind === 'notice' && i.level === 'error'), 'the refusal');
      expect(refused).toMatchObject({ message: expect.stringContaining('This earlier chat could not be resumed') });
      expect(chat.root.chat.currentSessionId).toBeUndefined();
      // Its conversation is not shown as if the next prompt continued it.
      expect(chat.items().map((i) => i.kind)).toEqual(['notice']);
    } finally {
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
    }

    chat.webview.send({ type: 'resume', sessionId: first });
    await until(
      () =>
        chat.root.chat.currentSessionId === first &&
        chat.items().some((i) => i.kind === 'notice' && i.message === 'Resumed an earlier chat.'),
      'the resumed session',
    );
    await chat.prompt('And its population?');
    const sent = chat.server.requests.at(-1)?.body.messages.map((m) => m.content);
    expect(sent).toEqual(expect.arrayContaining(['What is the capital of France?', 'Paris.', 'And its population?']));
  });
});

describe('resuming a chat whose transcript cannot be read', () => {
  it('says why in the chat instead of resuming it empty', async () => {
    const chat = await startChat({}, [text('never sent')]);
    h = chat;
    mkdirSync(join(chat.storageDir, 'transcripts', 'unreadable.jsonl'), { recursive: true });
    chat.webview.send({ type: 'resume', sessionId: 'unreadable' });
    const refused = await until(() => chat.items().find((i) => i.kind === 'notice' && i.level === 'error'), 'the refusal');
    expect(refused).toMatchObject({
      message: expect.stringContaining('This earlier chat could not be resumed: cannot read the transcript'),
    });
    expect(chat.root.chat.currentSessionId).toBeUndefined();
  });
});

describe('a chat whose session cannot start', () => {
  it('says why and gives the prompt back to the composer', async () => {
    const chat = await startChat({}, [text('never sent')]);
    h = chat;
    // Where transcripts go is a file: no session can start.
    writeFileSync(join(chat.storageDir, 'transcripts'), 'not a folder');
    chat.webview.send({ type: 'send', text: 'keep this prompt' });
    const failure = await until(() => chat.items().find((i) => i.kind === 'notice' && i.level === 'error'), 'the failure');
    expect(failure).toMatchObject({ message: expect.stringContaining('transcripts') });
    const restored = await until(
      () => chat.webview.ofType<Extract<HostToChat, { type: 'restoreDraft' }>>('restoreDraft').at(-1),
      'the prompt back in the composer',
    );
    expect(restored.text).toBe('keep this prompt');
    expect(chat.server.requests).toHaveLength(0);
  });
});

describe('a prompt sent while the first session starts', () => {
  it('goes back to the composer instead of being lost; the first prompt is answered', async () => {
    // An MCP server that holds the chat's first start (the chat waits for its servers) until released, then fails.
    const slow = (dir: string) => `const fs = require('fs');
fs.writeFileSync(${JSON.stringify(join(dir, 'started'))}, '');
setInterval(() => { if (fs.existsSync(${JSON.stringify(join(dir, 'release'))})) process.exit(3); }, 20);`;
    const markers = mkdtempSync(join(tmpdir(), 'hookpilot-slow-mcp-'));
    cleanups.push(() => rmSync(markers, { recursive: true, force: true }));
    const chat = await startChat({}, [text('first answer')], {
      setup: () =>
        stub.setConfig('hookpilot.mcpServers', { slow: { command: process.execPath, args: ['-e', slow(markers)] } }, 'globalValue'),
    });
    h = chat;
    chat.webview.send({ type: 'send', text: 'first prompt' });
    await until(() => existsSync(join(markers, 'started')), 'the session to be starting');
    chat.webview.send({ type: 'send', text: 'second prompt' });
    const restored = await until(
      () => chat.webview.ofType<Extract<HostToChat, { type: 'restoreDraft' }>>('restoreDraft').at(-1),
      'the second prompt back in the composer',
    );
    expect(restored.text).toBe('second prompt');
    writeFileSync(join(markers, 'release'), '');
    await until(() => chat.items().some((i) => i.kind === 'assistant' && i.text === 'first answer'), 'the first answer');
    expect(JSON.stringify(chat.server.requests.map((r) => r.body.messages))).not.toContain('second prompt');
  });
});

describe('model setup', () => {
  it('without a model the chat gets the setup presets; a preset writes the user settings', async () => {
    h = await startHost({});
    const view = await stub.resolveView('hookpilot.chat');
    view.webview.send({ type: 'ready', lastSeq: 0 });
    const first = await until(() => view.webview.ofType<Status>('status').at(-1), 'the status');
    expect(first.model).toMatchObject({ configured: false, problem: expect.stringContaining('No model is configured') });
    expect(first.model.configured === false && first.model.presets.map((p) => p.id)).toEqual(['openai', 'ollama', 'lmstudio']);

    view.webview.send({ type: 'configureModel', preset: 'ollama' });
    await until(() => view.webview.ofType<Status>('status').at(-1)?.model.configured, 'a configured model');
    expect(stub.state.config.get('hookpilot.baseUrl')?.globalValue).toBe('http://localhost:11434/v1');
    expect(stub.state.config.get('hookpilot.model')?.globalValue).toBe('qwen2.5-coder:7b');

    let asked = 0;
    stub.state.answerInputBox = (options) => {
      asked++;
      expect(options.password).toBe(true);
      return undefined;
    };
    view.webview.send({ type: 'configureModel', preset: 'openai' });
    await until(() => asked === 1 && view.webview.ofType<Status>('status').at(-1)?.model.configured === false, 'the missing key');
    const status = view.webview.ofType<Status>('status').at(-1)?.model;
    expect(status?.configured === false && status.problem).toContain('The API key is missing');
  });

  it("Select Model lists the endpoint's models", async () => {
    const chat = await startChat({}, []);
    h = chat;
    let offered: string[] = [];
    stub.state.answerQuickPick = (items) => {
      offered = items.map((i) => i.label);
      return 'scripted-model';
    };
    stub.setConfig('hookpilot.model', 'something-else');
    await stub.state.commands.get('hookpilot.selectModel')?.();
    expect(offered).toEqual(expect.arrayContaining(['scripted-model', 'Use Ollama', 'Enter a model name…']));
    expect(stub.state.config.get('hookpilot.model')?.globalValue).toBe('scripted-model');
  });
});

describe('secrets', () => {
  it('the API key reaches the model server but never a webview message or the log', async () => {
    const chat = await startChat(
      {},
      [toolCalls([{ id: 'call_k', name: 'Bash', arguments: { command: `echo ${KEY}` } }]), text(`Your key is ${KEY}.`)],
      {
        setup: async (context) => {
          await context.secrets.store('hookpilot.apiKey', KEY);
          stub.setConfig('hookpilot.permissionMode', 'bypassPermissions');
        },
      },
    );
    h = chat;
    await stub.state.commands.get('hookpilot.openHookManager')?.();
    const manager = stub.state.panels[0].webview;
    manager.send({ type: 'ready' });
    await chat.prompt('print my key');
    await until(
      () => manager.ofType<Extract<HostToManager, { type: 'timelineAppend' | 'timelineReset' }>>('timelineAppend').length > 0,
      'the live timeline',
    );

    expect(chat.server.requests[0].authorization).toBe('present');
    const tool = chat.items().find((i) => i.kind === 'tool');
    expect(tool).toMatchObject({ status: 'executed', outputPreview: expect.stringContaining('[REDACTED]') });
    expect(postedText(chat.webview)).toContain('[REDACTED]');
    expect(postedText(chat.webview)).not.toContain(KEY);
    expect(postedText(manager)).not.toContain(KEY);
    expect(JSON.stringify(stub.state.logLines)).not.toContain(KEY);

    stub.state.answerInputBox = () => `${KEY}-NEW`;
    chat.webview.send({ type: 'setApiKey' });
    await until(() => chat.context.secrets.values.get('hookpilot.apiKey') === `${KEY}-NEW`, 'the new key in secret storage');
    expect(postedText(chat.webview)).not.toContain(`${KEY}-NEW`);
  });
});
