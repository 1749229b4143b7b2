import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostToChat } from '../../../src/shared/chat-protocol';
import { text, type ScriptedReply } from '../../support/model-server';
import { stub } from '../../support/vscode-stub';
import { startChat, until, type ChatHarness } from './extension-harness';

// When an asyncRewake hook may wake the chat's agent: never while the person's Stop holds, never
// before a resumed session's SessionStart has answered, and past 8 wakes in a row the chat rests.

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Resolves once the hook named `name` has run to its end and been recorded. */
function ranToEnd(chat: ChatHarness, name: string): Promise<void> {
  return new Promise((resolve) => {
    const listening = chat.root.engineHost.engine.dispatcher.onDidRunHook((run) => {
      if (run.hook.name !== name) return;
      listening.dispose();
      resolve();
    });
  });
}

const busyPosts = (chat: ChatHarness) =>
  chat.webview.ofType<Extract<HostToChat, { type: 'status' }>>('status').filter((s) => s.busy).length;

describe('asyncRewake in the chat', () => {
  it('does not restart the agent the person stopped: what the hook reports waits for the next prompt', async () => {
    const bg = `cat > /dev/null; until [ -e release ]; do sleep 0.02; done; echo 'BACKGROUND CHECK FAILED' >&2; exit 2`;
    const hooks = { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: bg, asyncRewake: true, name: 'bg' }] }] } };
    let answerFirst: (reply: ScriptedReply) => void = () => undefined;
    const first = new Promise<ScriptedReply>((resolve) => (answerFirst = resolve));
    const chat = await startChat({ '.vscode/hooks.json': JSON.stringify(hooks) }, (_req, index) =>
      index === 0 ? first : text('next answer'),
    );
    h = chat;
    chat.webview.send({ type: 'send', text: 'do something' });
    await until(() => chat.server.requests.length === 1, 'the first model call');
    chat.webview.send({ type: 'cancel' });
    await until(() => chat.items().some((i) => i.kind === 'turn-end') && !chat.root.chat.busy, 'the cancelled turn to end');
    answerFirst(text('too late'));
    const reported = ranToEnd(chat, 'bg');
    writeFileSync(chat.workspace.file('release'), '');
    await reported;
    // A wake would have claimed the chat by the time the audit log has taken the run's record.
    await chat.root.engineHost.engine.audit.flush();
    expect(chat.root.chat.busy).toBe(false);
    expect(chat.server.requests).toHaveLength(1);
    await chat.prompt('go on');
    expect(chat.server.requests).toHaveLength(2);
    const sent = JSON.stringify(chat.server.requests[1].body.messages);
    expect(sent).toContain('go on');
    expect(sent).toContain('BACKGROUND CHECK FAILED');
  }, 30_000);

  it('rests once the 8 wakes in a row are used up: no further attempts until the person prompts', async () => {
    const nag = `cat > /dev/null; echo 'still failing' >&2; exit 2`;
    const hooks = { hooks: { TurnEnd: [{ hooks: [{ type: 'command', command: nag, asyncRewake: true, name: 'nag' }] }] } };
    const chat = await startChat({ '.vscode/hooks.json': JSON.stringify(hooks) }, () => text('ok'));
    h = chat;
    await chat.prompt('hi');
    await until(
      () => chat.items().some((i) => i.kind === 'notice' && String((i as { message?: string }).message).includes('8 times in a row')),
      'the wake cap notice',
      30_000,
    );
    await until(() => !chat.root.chat.busy, 'the chat to be idle');
    const atRest = busyPosts(chat);
    // Work that goes round the event loop many times: a chat still trying to wake would flip to busy meanwhile.
    await chat.root.engineHost.engine.audit.flush();
    await chat.root.engineHost.engine.audit.flush();
    expect(busyPosts(chat)).toBe(atRest);
    expect(chat.server.requests).toHaveLength(9);
  }, 60_000);

  it('starts no woken turn before a resumed session’s SessionStart has answered (here: continue false)', async () => {
    const gate = `cat > /dev/null; until [ -e release ]; do sleep 0.02; done; echo '{"continue":false,"stopReason":"maintenance"}'`;
    const early = `cat > /dev/null; echo 'WAKE FROM SESSIONSTART' >&2; exit 2`;
    const hooks = {
      hooks: {
        SessionStart: [
          {
            matcher: 'resume',
            hooks: [
              { type: 'command', command: gate, name: 'gate' },
              { type: 'command', command: early, asyncRewake: true, name: 'early' },
            ],
          },
        ],
      },
    };
    const chat = await startChat({ '.vscode/hooks.json': JSON.stringify(hooks) }, () => text('model ran'));
    h = chat;
    await chat.prompt('first');
    const first = chat.root.chat.currentSessionId!;
    await stub.state.commands.get('hookpilot.newChat')?.();
    const before = chat.server.requests.length;
    const reported = ranToEnd(chat, 'early');
    chat.webview.send({ type: 'resume', sessionId: first });
    await reported;
    await chat.root.engineHost.engine.audit.flush();
    writeFileSync(chat.workspace.file('release'), '');
    await until(() => chat.root.chat.currentSessionId === first && !chat.root.chat.busy, 'the resumed session, idle', 15_000);
    // SessionStart said continue: false: the woken turn stops before any model call.
    expect(chat.server.requests).toHaveLength(before);
  }, 40_000);
});
