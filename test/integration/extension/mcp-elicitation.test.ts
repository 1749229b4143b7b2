import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toolMessageSent } from '../../support/agent-harness';
import { text, toolCalls } from '../../support/model-server';
import { stub, type ShownInputBox, type ShownPickItem, type ShownPickOptions } from '../../support/vscode-stub';
import { modals, startChat, type ChatHarness } from './extension-harness';

// The fixture's tool asks for Environment (required, one of staging or production), a Deploy
// token, secretAccessKey, replicas, a PIN and a Backup code (optional), then answers with what it got.
const SERVER = path.resolve(__dirname, '../../fixtures/mcp/elicit-server.mjs');
const mcpJson = JSON.stringify({ mcpServers: { deploy: { command: process.execPath, args: [SERVER] } } });
const script = [toolCalls([{ id: 'd1', name: 'mcp__deploy__deploy', arguments: {} }]), text('done')];

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** What the server answered the call `id` with, as the model got it. */
function sentToModel(harness: ChatHarness, id = 'd1'): unknown {
  const sent = toolMessageSent(harness.server, id) ?? '';
  return JSON.parse(sent.slice(sent.indexOf('{'))) as unknown;
}

describe('MCP elicitation in VS Code', () => {
  it("asks the person in a modal with the server's message, then one pick or box per field; a credential's box hides what is typed", async () => {
    const boxes: Array<{ title?: string; password?: boolean }> = [];
    h = await startChat({ '.mcp.json': mcpJson }, script, {
      setup: () => {
        stub.setConfig('hookpilot.permissions', { allow: ['mcp__deploy'] }, 'globalValue');
        stub.state.answerMessage = (shown) => (shown.message.includes('asks for input') ? 'Answer…' : undefined);
        stub.state.answerQuickPick = () => 'production';
        stub.state.answerInputBox = (options) => {
          boxes.push(options);
          return options.title?.includes('Deploy token') ? 'dpl_0a1b2c3d4e5f6a7b8c9d' : '';
        };
      },
    });
    await h.prompt('deploy it');
    expect(modals().find((m) => m.message.includes('asks for input'))).toMatchObject({
      message: 'MCP server "deploy" asks for input',
      detail: 'Which environment should the release go to?',
    });
    expect(boxes.map((box) => [box.title, box.password])).toEqual([
      ['deploy: Deploy token (optional)', true],
      // A credential in the JSON spelling.
      ['deploy: secretAccessKey (optional)', true],
      ['deploy: replicas (optional)', false],
      ['deploy: PIN (optional)', true],
      // A credential that is a number.
      ['deploy: Backup code (optional)', true],
    ]);
    // The token reached the server, which echoed it; the model reads it redacted.
    const sent = sentToModel(h) as { action: string; content: Record<string, string> };
    expect(sent.action).toBe('accept');
    expect(sent.content.environment).toBe('production');
    expect(sent.content.api_token).toMatch(/REDACTED/);
    expect(JSON.stringify(h.server.requests)).not.toContain('dpl_0a1b2c3d4e5f6a7b8c9d');
  }, 60_000);

  it('Decline declines, and Escape on the modal cancels', async () => {
    const deploy = (id: string) => toolCalls([{ id, name: 'mcp__deploy__deploy', arguments: {} }]);
    const answers = ['Decline', undefined];
    h = await startChat({ '.mcp.json': mcpJson }, [deploy('d1'), deploy('d2'), text('done')], {
      setup: () => {
        stub.setConfig('hookpilot.permissions', { allow: ['mcp__deploy'] }, 'globalValue');
        stub.state.answerMessage = (shown) => (shown.message.includes('asks for input') ? answers.shift() : undefined);
      },
    });
    await h.prompt('deploy it');
    expect(sentToModel(h, 'd1')).toEqual({ action: 'decline' });
    expect(sentToModel(h, 'd2')).toEqual({ action: 'cancel' });
  }, 60_000);

  it("keeps a server's links and icons as text in every box and pick of its form, and still takes the answer picked", async () => {
    // VS Code's own syntax: `[label](command:...)` in a prompt or validation message is a link that runs
    // the command; `$(name)` in those and in a pick's label, description or detail is an icon.
    const LIVE_LINK = /\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i;
    const LIVE_ICON = /(?<!\\)\$\([\w-]+\)/;
    const plain: string[] = [];
    const drawn: string[] = [];
    const collect = (into: string[], ...texts: unknown[]) => into.push(...texts.filter((t): t is string => typeof t === 'string'));
    h = await startChat({ '.mcp.json': mcpJson }, [toolCalls([{ id: 'd1', name: 'mcp__deploy__lure', arguments: {} }]), text('done')], {
      setup: () => {
        stub.setConfig('hookpilot.permissions', { allow: ['mcp__deploy'] }, 'globalValue');
        stub.state.answerMessage = (shown) => (shown.message.includes('asks for input') ? 'Answer…' : undefined);
        stub.state.answerQuickPick = (items: ShownPickItem[], options: ShownPickOptions) => {
          collect(plain, options.title, options.placeHolder);
          for (const item of items) collect(drawn, item.label, item.description, item.detail);
          return items.find((item) => item.label.endsWith(' eu'))?.label;
        };
        stub.state.answerInputBox = (options: ShownInputBox) => {
          collect(plain, options.title, options.placeHolder);
          collect(drawn, options.prompt, options.validateInput?.('not-a-choice'));
          return options.title?.includes('targets') ? 'web' : 'hotfix';
        };
      },
    });
    await h.prompt('deploy it');
    expect(sentToModel(h)).toEqual({ action: 'accept', content: { reason: 'hotfix', region: '$(pass-filled) eu', targets: ['web'] } });
    expect([...plain, ...drawn].filter((t) => LIVE_LINK.test(t))).toEqual([]);
    expect(drawn.filter((t) => LIVE_ICON.test(t))).toEqual([]);
    // Still shown, as text: the first box's prompt, the pick's item, the second box's hint and problem (its choices).
    expect(drawn.filter((t) => t.includes('[Click here to fill this in] (command:')).length).toBeGreaterThanOrEqual(4);
  }, 60_000);
});
