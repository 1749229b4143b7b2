import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatItem } from '../../src/shared/chat-items';
import type { HostToChat } from '../../src/shared/chat-protocol';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';
import type { PageFixtures } from './harness/page-fixtures';

/**
 * Model text the chat cannot parse as markdown, or should not parse on every frame: nesting
 * deep enough to overflow marked's stack, replies past the size limit, and long streams. The
 * chat shows such text as plain text, keeps the rows after it working, and, while a reply
 * streams, parses only its changed tail.
 */
let view: WebviewPage;
let closeView: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('chat'));
});
afterAll(() => closeView?.());

beforeEach(async () => {
  await view.host({
    type: 'status',
    model: { configured: true, name: 'm', endpoint: 'http://x' },
    busy: true,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  });
});

let expectedProblems: RegExp[] = [];
afterEach(() => {
  const unexpected = view.problems.filter((p) => !expectedProblems.some((re) => re.test(p)));
  view.problems.length = 0;
  expectedProblems = [];
  expect(unexpected).toEqual([]);
});

const reply = (text: string, streaming: boolean): ChatItem => ({ kind: 'assistant', id: 'a1', text, streaming });

async function start(...items: ChatItem[]): Promise<number> {
  await view.host({ type: 'reset', seq: 0, state: { items: [{ kind: 'user', id: 'u1', text: 'hi' }] } });
  let seq = 1;
  for (const item of items) await view.host({ type: 'append', seq: seq++, item } satisfies HostToChat);
  return seq;
}

const plainReply = () => view.page.locator('.chat-row-assistant .markdown pre.markdown-plain');

describe('markdown the chat cannot parse', () => {
  it('a reply nested 10,000 block quotes deep shows as plain text, and the approval card and notice after it appear', async () => {
    const text = `${'>'.repeat(10_000)} deep`;
    await start(
      reply(text, false),
      {
        kind: 'tool',
        id: 'c1',
        callId: 'c1',
        name: 'Bash',
        summary: 'Run: npm test',
        status: 'awaiting-approval',
        hooks: [],
        diffAvailable: false,
        approval: {
          askId: 'ask-1',
          subject: 'Run: npm test',
          reason: 'default mode',
          askedBy: 'default mode',
          choices: ['allow-once', 'deny'],
          rule: 'Bash(npm test)',
          proposedDiff: false,
        },
      },
      { kind: 'notice', id: 'n1', level: 'info', message: 'after the deep reply' },
    );
    await view.page.getByTestId('approval').waitFor();
    await view.page.getByText('after the deep reply').waitFor();
    expect(await plainReply().textContent()).toBe(text);
  });

  it('a list nested 400 levels deep shows as plain text', async () => {
    const text = Array.from({ length: 400 }, (_, i) => `${' '.repeat(i * 2)}- a`).join('\n');
    await start(reply(text, false), { kind: 'notice', id: 'n1', level: 'info', message: 'after the list' });
    await view.page.getByText('after the list').waitFor();
    expect(await plainReply().textContent()).toBe(text);
    expect(await view.page.locator('.chat-row-assistant .markdown ul').count()).toBe(0);
  });

  it('a reply whose inline emphasis overflows the parser shows as plain text instead of breaking the chat', async () => {
    // No block nesting for the depth check to see: marked itself throws (RangeError) on it.
    const text = `${'*'.repeat(20_000)}x${'*'.repeat(20_000)}`;
    await start(reply(text, false), { kind: 'notice', id: 'n1', level: 'info', message: 'after the emphasis' });
    await view.page.getByText('after the emphasis').waitFor();
    expect(await plainReply().textContent()).toBe(text);
  });

  it('nesting within the limit is still markdown', async () => {
    await start(reply('> > > quoted\n\n- a\n  - b\n    - c', false));
    await view.page.locator('.chat-row-assistant .markdown blockquote blockquote blockquote').waitFor();
    expect(await view.page.locator('.chat-row-assistant .markdown ul ul ul').count()).toBe(1);
    expect(await plainReply().count()).toBe(0);
  });
});

describe('a streaming reply', () => {
  it('past 64 KB shows as plain text while it streams and once it is done', async () => {
    const text = '- item with **bold**\n'.repeat(3_300); // 69 KB
    const seq = await start(reply(text.slice(0, 60_000), true));
    await view.page.locator('.chat-row-assistant.is-streaming .markdown ul').first().waitFor();
    await view.host({ type: 'patch', seq, id: 'a1', changes: { kind: 'assistant', appendText: text.slice(60_000) } });
    await plainReply().waitFor();
    expect(await view.page.locator('.chat-row-assistant .markdown ul').count()).toBe(0);
    await view.host({ type: 'patch', seq: seq + 1, id: 'a1', changes: { kind: 'assistant', streaming: false } });
    await view.page.locator('.chat-row-assistant:not(.is-streaming)').waitFor();
    expect(await plainReply().textContent()).toBe(text);
  });

  it('keeps the nodes of the blocks already shown: a delta re-renders only the block it extends', async () => {
    const seq = await start(reply('First paragraph.\n\n- one\n- two\n\nThird', true));
    const body = view.page.locator('.chat-row-assistant .markdown');
    await body.locator('p', { hasText: 'Third' }).waitFor();
    await view.page.evaluate(() => {
      const w = window as unknown as { __kept: Element[] };
      w.__kept = [...document.querySelectorAll('.chat-row-assistant .markdown > *')];
    });
    for (const [i, delta] of [' paragraph', ' grows.', '\n\nFourth.'].entries())
      await view.host({ type: 'patch', seq: seq + i, id: 'a1', changes: { kind: 'assistant', appendText: delta } });
    await body.locator('p', { hasText: 'Fourth.' }).waitFor();
    const nodes = await view.page.evaluate(() => {
      const w = window as unknown as { __kept: Element[] };
      const now = [...document.querySelectorAll('.chat-row-assistant .markdown > *')];
      return { now: now.map((el) => el.outerHTML), kept: w.__kept.map((el) => now.includes(el)) };
    });
    expect(nodes.now).toEqual([
      '<p>First paragraph.</p>',
      '<ul>\n<li>one</li>\n<li>two</li>\n</ul>',
      '<p>Third paragraph grows.</p>',
      '<p>Fourth.</p>',
    ]);
    // The paragraph and list were left alone; the paragraph the deltas extended was drawn again.
    expect(nodes.kept).toEqual([true, true, false]);
  });

  it('shows the same markup in blocks while streaming as parsed whole when done', async () => {
    const text = [
      '# Plan',
      'Intro with [a link](https://example.com) and `code`.',
      '1. first\n2. second\n\n   more of second\n3. third',
      '```ts\nconst a = 1;\n\nconst b = 2;\n```',
      '> quoted\n> still quoted',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      'Done.',
    ].join('\n\n');
    const seq = await start(reply('', true));
    for (let i = 0; i < text.length; i += 7)
      await view.host({ type: 'patch', seq: seq + i / 7, id: 'a1', changes: { kind: 'assistant', appendText: text.slice(i, i + 7) } });
    const body = view.page.locator('.chat-row-assistant .markdown');
    await body.locator('p', { hasText: 'Done.' }).waitFor();
    const streamed = await body.innerHTML();
    await view.host({ type: 'patch', seq: seq + Math.ceil(text.length / 7), id: 'a1', changes: { kind: 'assistant', streaming: false } });
    await view.page.locator('.chat-row-assistant:not(.is-streaming)').waitFor();
    expect(streamed).toBe(await body.innerHTML());
  });
});

describe('a chat row whose render throws', () => {
  it('shows an error in its own row; the rows around it still render', async () => {
    expectedProblems = [/A list row could not be shown/];
    const shown = await view.page.evaluate(() =>
      (window as unknown as { __fixtures: PageFixtures }).__fixtures.listWithFailingRows(['first', 'broken', 'last'], ['broken']),
    );
    expect(shown).toEqual(['first', 'This item could not be shown (cannot draw broken).', 'last']);
  });
});
