import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatItem } from '../../src/shared/chat-items';
import { MAX_PROMPT_CHARS, type HostToChat } from '../../src/shared/chat-protocol';
import { MODEL_PRESETS } from '../../src/shared/model-presets';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';

let view: WebviewPage;
let closeView: (() => Promise<void>) | undefined;
let firstPosted: unknown[];

const ready: HostToChat = {
  type: 'status',
  model: { configured: true, name: 'gpt-4.1', endpoint: 'https://api.openai.com/v1' },
  busy: false,
  usage: { promptTokens: 1200, completionTokens: 340, totalTokens: 1540 },
};

beforeAll(async () => {
  // One page for the file (pages are slow to open on a busy machine); each test starts with a reset.
  ({ view, close: closeView } = await openWebview('chat'));
  firstPosted = await view.posted();
});

afterAll(() => closeView?.());

beforeEach(async () => {
  await view.clearPosted();
  await view.host(ready);
});

afterEach(() => {
  expect(view.problems).toEqual([]);
});

const tool = (id: string, over: Partial<Extract<ChatItem, { kind: 'tool' }>> = {}): ChatItem => ({
  kind: 'tool',
  id,
  callId: id,
  name: 'Bash',
  summary: 'Run: rm -rf build',
  status: 'running',
  hooks: [],
  diffAvailable: false,
  ...over,
});

describe('chat webview', () => {
  it('announces itself with ready and the seq it had', async () => {
    expect(firstPosted).toEqual([{ type: 'ready', lastSeq: 0 }]);
  });

  it('renders streamed markdown, sanitized: injected scripts and handlers never run', async () => {
    await view.host({ type: 'reset', seq: 0, state: { items: [{ kind: 'user', id: 'u1', text: 'show me' }] } });
    await view.host({ type: 'append', seq: 1, item: { kind: 'assistant', id: 'a1', text: 'Here is **bold** and ', streaming: true } });
    const payload =
      '<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> [link](javascript:window.__pwned=3) <a href="#" onclick="window.__pwned=4">x</a>\n\n```ts\nconst a = 1;\n```\n';
    await view.host({ type: 'patch', seq: 2, id: 'a1', changes: { kind: 'assistant', appendText: '`code`.\n\n' } });
    await view.host({ type: 'patch', seq: 3, id: 'a1', changes: { kind: 'assistant', appendText: payload } });
    await view.page.waitForSelector('.chat-row-assistant.is-streaming .markdown pre code');
    const streaming = view.page.locator('.chat-row-assistant .markdown');
    expect(await streaming.locator('strong').textContent()).toBe('bold');
    expect(await streaming.locator('p code').first().textContent()).toBe('code');
    await view.screenshot('chat-streaming.png');
    await view.host({ type: 'patch', seq: 4, id: 'a1', changes: { kind: 'assistant', streaming: false } });
    await view.page.waitForSelector('.chat-row-assistant:not(.is-streaming)');
    // Raw HTML is shown as text; markdown links keep only safe URLs.
    expect(await streaming.textContent()).toContain('<img src=x onerror="window.__pwned=1">');
    const dangerous = await streaming.evaluate(
      (el) =>
        [...el.querySelectorAll('*')].filter(
          (n) =>
            ['SCRIPT', 'IMG', 'IFRAME', 'STYLE'].includes(n.tagName) ||
            [...n.attributes].some((a) => a.name.startsWith('on') || /^\s*javascript:/i.test(a.value)),
        ).length,
    );
    expect(dangerous).toBe(0);
    expect(await streaming.locator('a').textContent()).toBe('link');
    await streaming.locator('a').click();
    expect(await view.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('Enter sends the prompt, Shift+Enter adds a line', async () => {
    await view.host({ type: 'reset', seq: 0, state: { items: [] } });
    const input = view.page.getByTestId('composer-input');
    await input.click();
    await input.pressSequentially('line one');
    await input.press('Shift+Enter');
    await input.pressSequentially('line two');
    expect(await input.inputValue()).toBe('line one\nline two');
    expect((await view.posted()).filter((m) => m.type === 'send')).toEqual([]);
    await input.press('Enter');
    expect(await view.waitForPosted('send')).toEqual([{ type: 'send', text: 'line one\nline two' }]);
    expect(await input.inputValue()).toBe('');
    // While a turn runs, Enter queues the message for the agent and the cancel button shows.
    await view.host({ ...ready, busy: true });
    await view.page.getByTestId('cancel').waitFor({ state: 'visible' });
    expect(await input.getAttribute('placeholder')).toBe('Tell the agent more while it works…');
    await input.pressSequentially('again');
    await input.press('Enter');
    expect((await view.waitForPosted('send', 2)).at(-1)).toEqual({ type: 'send', text: 'again' });
    expect(await input.inputValue()).toBe('');
    // The host shows it as queued until the agent reads it.
    await view.host({ type: 'append', seq: 1, item: { kind: 'user', id: 'u1', text: 'again', queued: true } });
    await view.page.getByTestId('queued-note').waitFor({ state: 'visible' });
    await view.host({ type: 'patch', seq: 2, id: 'u1', changes: { kind: 'user', queued: false } });
    await view.page.getByTestId('queued-note').waitFor({ state: 'detached' });
    await view.page.getByTestId('cancel').click();
    await view.waitForPosted('cancel');
    // What was queued when the turn was stopped comes back ahead of the draft being typed.
    await input.pressSequentially('half typed');
    await view.host({ type: 'patch', seq: 3, id: 'u1', changes: { kind: 'user', withdrawn: true } });
    await view.host({ type: 'restoreDraft', id: 7, text: 'again' });
    await view.page.getByTestId('withdrawn-note').waitFor({ state: 'visible' });
    expect(await input.inputValue()).toBe('again\n\nhalf typed');
    expect(await view.waitForPosted('draftRestored')).toEqual([{ type: 'draftRestored', id: 7 }]);
    // Restored text can outgrow a prompt: Enter then keeps it and says why.
    await view.host({ type: 'restoreDraft', id: 8, text: 'x'.repeat(MAX_PROMPT_CHARS) });
    await input.press('Enter');
    await view.page.getByTestId('composer-hint').waitFor({ state: 'visible' });
    expect(await view.page.getByTestId('composer-hint').innerText()).toContain('Too long to send');
    expect((await input.inputValue()).length).toBeGreaterThan(MAX_PROMPT_CHARS);
    expect((await view.posted()).filter((m) => m.type === 'send')).toHaveLength(2);
  });

  it('shows which hook blocked a tool call, and why', async () => {
    await view.host({ type: 'reset', seq: 0, state: { items: [] } });
    await view.host({ type: 'append', seq: 1, item: tool('call_1') });
    await view.host({
      type: 'patch',
      seq: 2,
      id: 'call_1',
      changes: {
        kind: 'tool',
        status: 'blocked',
        durationMs: 14,
        outputPreview: 'PreToolUse hook "guard" blocked this call: no rm -rf',
        hooks: [
          { hookName: 'guard', event: 'PreToolUse', kind: 'blocked', detail: 'no rm -rf outside build/' },
          { hookName: 'audit-context', event: 'PreToolUse', kind: 'context', detail: 'policy v2' },
        ],
      },
    });
    const card = view.page.locator('.tool-card');
    await card.locator('.badge-blocked').waitFor();
    expect(await card.getByTestId('tool-status').textContent()).toContain('blocked');
    expect(await card.getByTestId('hook-note').allTextContents()).toEqual([
      ' Blocked by guard: no rm -rf outside build/',
      ' Context from audit-context: policy v2',
    ]);
    expect(await card.locator('.tool-summary').textContent()).toBe('Run: rm -rf build');
  });

  it('answers an inline approval with the answers its request offers, and asks for a diff', async () => {
    await view.host({
      type: 'reset',
      seq: 0,
      state: {
        items: [
          tool('call_2', {
            name: 'Edit',
            summary: 'Edit src/a.ts',
            status: 'awaiting-approval',
            approval: {
              askId: 'ask-1',
              subject: 'Run: npm test',
              reason: 'edits need approval in default mode',
              askedBy: 'default mode',
              choices: ['allow-once', 'allow-session', 'allow-always', 'deny-session', 'deny'],
              rule: 'Edit',
              proposedDiff: true,
            },
          }),
          tool('call_3', { name: 'Write', summary: 'Write src/b.ts (3 lines)', status: 'executed', diffAvailable: true }),
          tool('call_4', {
            name: 'Edit',
            summary: 'Edit .vscode/hooks.json',
            status: 'awaiting-approval',
            approval: {
              askId: 'ask-1',
              subject: 'Run: npm test',
              reason: 'a hook configuration',
              askedBy: 'protected file',
              choices: ['allow-once', 'deny-session', 'deny'],
              rule: 'Edit',
              proposedDiff: true,
            },
          }),
        ],
      },
    });
    const approvals = view.page.getByTestId('approval');
    await approvals.nth(1).locator('vscode-button').first().waitFor();
    expect(await approvals.nth(0).locator('vscode-button').allTextContents()).toEqual([
      'Allow once',
      'Allow for session',
      'Always allow',
      'Deny for session',
      'Deny',
    ]);
    expect(await approvals.nth(1).locator('vscode-button').allTextContents()).toEqual(['Allow once', 'Deny for session', 'Deny']);
    expect(await approvals.nth(0).locator('.approval-subject').textContent()).toBe('Run: npm test');
    await approvals.nth(0).getByText('Allow for session').click();
    expect(await view.waitForPosted('answerApproval')).toEqual([
      { type: 'answerApproval', id: 'call_2', askId: 'ask-1', choice: 'allow-session' },
    ]);
    await view.page.locator('[data-id="call_3"]').getByText('Show diff').click();
    expect(await view.waitForPosted('showDiff')).toEqual([{ type: 'showDiff', id: 'call_3' }]);
  });

  it('a pending edit names the rule its wider answers add, and shows its change before it is answered', async () => {
    const write = (id: string, choices: Array<'allow-once' | 'allow-session' | 'allow-always' | 'deny-session' | 'deny'>) =>
      tool(id, {
        name: 'Write',
        summary: 'Write notes.md (2 lines)',
        status: 'awaiting-approval',
        approval: {
          askId: 'ask-1',
          subject: 'Write notes.md (2 lines)',
          reason: 'file edits need approval',
          askedBy: 'default mode',
          choices,
          rule: 'Write',
          proposedDiff: true,
        },
      });
    await view.host({
      type: 'reset',
      seq: 0,
      state: {
        items: [write('w1', ['allow-once', 'allow-session', 'allow-always', 'deny-session', 'deny']), write('w2', ['allow-once', 'deny'])],
      },
    });
    await view.page.waitForSelector('[data-id="w2"]');
    const approvals = view.page.getByTestId('approval');
    await approvals.nth(1).locator('vscode-button').first().waitFor();
    expect(await approvals.nth(0).locator('.approval-rule').textContent()).toBe(
      'Allowing for the session or always adds the rule Write: every later Write call, whatever its input, runs without asking.',
    );
    expect(await approvals.nth(0).getByText('Allow for session').getAttribute('title')).toBe('Adds the rule Write until the session ends');
    expect(await approvals.nth(0).getByText('Always allow').getAttribute('title')).toBe('Adds the rule Write to .vscode/settings.json');
    expect(await approvals.nth(1).locator('.approval-rule').count()).toBe(0);
    await approvals.nth(1).getByText('Show diff').click();
    expect(await view.waitForPosted('showDiff')).toEqual([{ type: 'showDiff', id: 'w2' }]);
  });

  it('asks for a resync on a seq gap and recovers from the reset', async () => {
    await view.host({ type: 'reset', seq: 10, state: { items: [{ kind: 'user', id: 'u1', text: 'first' }] } });
    await view.host({ type: 'append', seq: 11, item: { kind: 'user', id: 'u2', text: 'second' } });
    await view.host({ type: 'append', seq: 13, item: { kind: 'user', id: 'u4', text: 'fourth' } });
    expect(await view.waitForPosted('resync')).toEqual([{ type: 'resync', lastSeq: 11 }]);
    await view.page.waitForSelector('[data-id="u2"]');
    expect(await view.page.locator('[data-id="u4"]').count()).toBe(0);
    await view.host({
      type: 'reset',
      seq: 13,
      state: { items: ['first', 'second', 'third', 'fourth'].map((text, i) => ({ kind: 'user' as const, id: `u${i + 1}`, text })) },
    });
    await view.page.waitForSelector('[data-id="u4"]');
    await view.host({ type: 'append', seq: 14, item: { kind: 'user', id: 'u5', text: 'fifth' } });
    await view.page.waitForSelector('[data-id="u5"]');
    expect(await view.page.locator('.user-text').allTextContents()).toEqual(['first', 'second', 'third', 'fourth', 'fifth']);
    expect(await view.page.evaluate(() => (window as unknown as { __state: unknown }).__state)).toEqual({ lastSeq: 14 });
    await view.screenshot('chat-resync.png');
  });

  it('shows the setup panel while no model is configured', async () => {
    await view.host({
      type: 'status',
      model: { configured: false, problem: 'No model is configured yet.', presets: [...MODEL_PRESETS] },
      busy: false,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    });
    await view.host({ type: 'reset', seq: 0, state: { items: [] } });
    const panel = view.page.getByTestId('setup-panel');
    await panel.waitFor();
    expect(await panel.locator('h3').allTextContents()).toEqual(['OpenAI', 'Ollama', 'LM Studio']);
    expect(await panel.textContent()).toContain('ollama pull');
    expect(await view.page.getByTestId('composer-input').isDisabled()).toBe(true);
    await view.screenshot('chat-setup.png');
    await view.page.getByTestId('use-ollama').click();
    await view.page.getByTestId('key-openai').click();
    expect((await view.posted()).slice(-2)).toEqual([{ type: 'configureModel', preset: 'ollama' }, { type: 'setApiKey' }]);
    await view.host(ready);
    await panel.waitFor({ state: 'hidden' });
    expect(await view.page.getByTestId('footer-model').textContent()).toBe('gpt-4.1');
  });

  it('shows a running hook\'s statusMessage in the footer instead of "Working…", and hides it when idle', async () => {
    const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    const model = { configured: true as const, name: 'gpt-4.1' };
    const footerText = (text: string) =>
      view.page.waitForFunction((expected) => document.querySelector('[data-testid="footer-working"]')?.textContent === expected, text);
    await view.host({ type: 'status', model, busy: true, usage, activity: 'Checking command…' });
    const working = view.page.getByTestId('footer-working');
    await working.waitFor();
    await footerText('Checking command…');
    await view.host({ type: 'status', model, busy: true, usage });
    await footerText('Working…');
    await view.host({ type: 'status', model, busy: false, usage });
    await working.waitFor({ state: 'hidden' });
  });

  it('keeps 5,000 messages responsive: a bounded DOM, and scrolling to the end works', async () => {
    const items: ChatItem[] = [];
    for (let i = 0; i < 5000; i++) {
      if (i % 4 === 0) items.push({ kind: 'user', id: `m${i}`, text: `Question ${i}: what does hook ${i} do?` });
      else if (i % 4 === 1)
        items.push({
          kind: 'assistant',
          id: `m${i}`,
          text: `Answer ${i} with **markdown** and a list:\n\n- one\n- two\n`,
          streaming: false,
        });
      else if (i % 4 === 2)
        items.push(
          tool(`m${i}`, { status: 'executed', hooks: [{ hookName: 'ctx', event: 'PostToolUse', kind: 'context', detail: `note ${i}` }] }),
        );
      else items.push({ kind: 'turn-end', id: `m${i}`, reason: 'completed' });
    }
    await view.host({ type: 'reset', seq: 0, state: { items } });
    await view.page.waitForSelector('[data-id="m4999"]');
    const counts = async () =>
      view.page.evaluate(() => ({ rows: document.querySelectorAll('.chat-row').length, nodes: document.getElementsByTagName('*').length }));
    const atEnd = await counts();
    expect(atEnd.rows).toBeLessThan(80);
    expect(atEnd.nodes).toBeLessThan(2000);
    // The newest message is on screen.
    const scroller = view.page.getByTestId('chat-scroller');
    const box = await scroller.boundingBox();
    const last = await view.page.locator('[data-id="m4999"]').boundingBox();
    expect(box && last && last.y + last.height <= box.y + box.height + 1 && last.y >= box.y).toBe(true);

    // Jump to the top, then back to the end.
    await scroller.evaluate((el) => (el.scrollTop = 0));
    await view.page.waitForSelector('[data-id="m0"]');
    expect(await view.page.locator('[data-id="m4999"]').count()).toBe(0);
    expect((await counts()).rows).toBeLessThan(80);
    await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await view.page.waitForSelector('[data-id="m4999"]');
    await view.page.waitForFunction(() => {
      const el = document.querySelector<HTMLElement>('[data-testid="chat-scroller"]');
      return el !== null && el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
    });
    // New messages keep the view at the end.
    await view.host({ type: 'append', seq: 1, item: { kind: 'user', id: 'm5000', text: 'one more' } });
    await view.page.waitForSelector('[data-id="m5000"]');
    const newest = await view.page.locator('[data-id="m5000"]').boundingBox();
    const frame = await scroller.boundingBox();
    expect(newest && frame && newest.y + newest.height <= frame.y + frame.height + 1).toBe(true);
    expect((await counts()).nodes).toBeLessThan(2000);
  });

  it('renders a conversation the way it looks in VS Code', async () => {
    await view.host({
      type: 'sessions',
      list: [
        { id: 's1', title: 'Clean the build folder', startedAt: '2025-05-01T10:00:00.000Z', turns: 2 },
        { id: 's0', title: 'Explain the hook config', startedAt: '2025-04-30T16:00:00.000Z', turns: 5 },
      ],
      currentId: 's1',
    });
    await view.host({
      type: 'reset',
      seq: 0,
      state: {
        items: [
          { kind: 'user', id: 'u1', text: 'Clean the build folder and run the tests' },
          { kind: 'assistant', id: 'a1', text: 'I will remove `build/` first, then run `npm test`.', streaming: false },
          tool('t1', {
            status: 'blocked',
            durationMs: 12,
            hooks: [{ hookName: 'guard', event: 'PreToolUse', kind: 'blocked', detail: 'rm -rf is not allowed' }],
            outputPreview: 'PreToolUse hook "guard" blocked this call',
          }),
          tool('t2', {
            summary: 'Run: npm test',
            status: 'awaiting-approval',
            approval: {
              askId: 'ask-1',
              subject: 'Run: npm test',
              reason: 'Bash commands need approval',
              askedBy: 'default mode',
              choices: ['allow-once', 'allow-session', 'allow-always', 'deny-session', 'deny'],
              rule: 'Bash(npm test)',
              proposedDiff: false,
            },
          }),
          tool('t3', {
            name: 'Edit',
            summary: 'Edit src/parser.ts',
            status: 'executed',
            durationMs: 31,
            diffAvailable: true,
            hooks: [{ hookName: 'prettier', event: 'PostToolUse', kind: 'rewrote-output', detail: 'formatted' }],
          }),
          { kind: 'notice', id: 'n1', level: 'warning', message: 'Hook "slow-lint" took 4.2 s', source: 'hook' },
          { kind: 'prompt-blocked', id: 'b1', reason: 'Deploys need a ticket number', hookName: 'policy' },
          { kind: 'turn-end', id: 'e1', reason: 'cancelled' },
        ],
      },
    });
    await view.page.waitForSelector('[data-id="e1"]');
    await view.screenshot('chat-conversation.png');

    // Header actions and the session picker.
    await view.page.getByTestId('new-chat').click();
    await view.page.getByTestId('open-manager').click();
    await view.page.getByTestId('session-picker').evaluate((el) => {
      (el as HTMLElement & { value: string }).value = 's0';
      el.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await view.waitForPosted('resume');
    expect((await view.posted()).slice(-3)).toEqual([
      { type: 'newChat' },
      { type: 'openHookManager' },
      { type: 'resume', sessionId: 's0' },
    ]);
    await view.host({ type: 'focus' });
    await view.page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer-input');
  });
});
