import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../../support/model-server';
import { stub } from '../../support/vscode-stub';
import { startChat, until, type ChatHarness } from './extension-harness';

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const logHook = `const fs = require('fs');
fs.appendFileSync('start.log', fs.readFileSync(0, 'utf8') + '\\n');
`;

describe('New Chat', () => {
  it('starts the next session with SessionStart source "clear", as Claude Code does', async () => {
    const hooks = { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'node hooks/start.js' }] }] } };
    const chat = await startChat({ 'hooks/start.js': logHook, '.vscode/hooks.json': JSON.stringify(hooks) }, [
      text('first'),
      text('second'),
    ]);
    h = chat;
    await chat.prompt('one');
    await stub.state.commands.get('hookpilot.newChat')?.();
    await chat.prompt('two');
    const sources = () =>
      readFileSync(chat.workspace.file('start.log'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { source: string }).source);
    await until(() => sources().length === 2, 'the second SessionStart');
    expect(sources()).toEqual(['startup', 'clear']);
  });
});

describe('asyncRewake', () => {
  it('wakes the chat agent when the hook reports after the turn ended: a notice, then a turn with its words', async () => {
    // A background test run that ends once told to, after the turn is over; it fails only once.
    const tests = `cat > /dev/null; until [ -e release ]; do sleep 0.02; done; [ -e reported ] && exit 0; touch reported; echo 'BACKGROUND TESTS FAILED' >&2; exit 2`;
    const hooks = { hooks: { TurnEnd: [{ hooks: [{ type: 'command', command: tests, asyncRewake: true, name: 'bg-tests' }] }] } };
    const chat = await startChat({ '.vscode/hooks.json': JSON.stringify(hooks) }, [text('done'), text('fixing the tests')]);
    h = chat;
    await chat.prompt('write it');
    writeFileSync(chat.workspace.file('release'), '');
    await until(() => chat.items().filter((i) => i.kind === 'turn-end').length === 2, 'the woken turn to end');
    expect(chat.items()).toContainEqual(
      expect.objectContaining({ kind: 'notice', message: expect.stringContaining('Hook "bg-tests" woke the agent') }),
    );
    expect(chat.items().filter((i) => i.kind === 'user')).toHaveLength(1);
    expect(JSON.stringify(chat.server.requests.at(-1)!.body.messages)).toContain('BACKGROUND TESTS FAILED');
  });
});
