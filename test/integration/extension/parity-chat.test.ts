import { readFileSync } from 'node:fs';
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
