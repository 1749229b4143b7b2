import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HostToChat } from '../../src/shared/chat-protocol';
import { MODEL_PRESETS } from '../../src/shared/model-presets';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';

let view: WebviewPage;

const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const unconfigured = (demoReplay?: boolean): HostToChat => ({
  type: 'status',
  model: {
    configured: false,
    problem: 'No model is configured yet.',
    presets: [...MODEL_PRESETS],
    ...(demoReplay === undefined ? {} : { demoReplay }),
  },
  busy: false,
  usage,
});

let closeView: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('chat'));
});

afterAll(() => closeView?.());

afterEach(() => {
  expect(view.problems).toEqual([]);
});

describe('chat webview: the demo replay', () => {
  it('offers "Replay the demo session" with no model when the workspace ships one; the replay takes the setup panel\'s place until cleared', async () => {
    await view.host(unconfigured());
    await view.host({ type: 'reset', seq: 0, state: { items: [] } });
    await view.page.getByTestId('setup-panel').waitFor();
    expect(await view.page.getByTestId('setup-demo').count()).toBe(0);

    await view.host(unconfigured(true));
    const card = view.page.getByTestId('setup-demo');
    await card.waitFor();
    expect(await card.textContent()).toContain('labelled as a replay');
    await view.clearPosted();
    await view.page.getByTestId('replay-demo').click();
    expect(await view.posted()).toEqual([{ type: 'replayDemo' }]);

    const notice = {
      kind: 'notice' as const,
      id: 'n1',
      level: 'info' as const,
      source: 'replay',
      message: 'Replay of the demo session: recorded model replies',
    };
    await view.host({ type: 'append', seq: 1, item: notice });
    await view.page.waitForSelector('[data-id="n1"]');
    expect(await view.page.locator('[data-id="n1"]').isVisible()).toBe(true);
    await view.page.getByTestId('setup-panel').waitFor({ state: 'hidden' });
    await view.screenshot('chat-demo-replay.png');
    // New Chat clears the replay: the setup panel is back.
    await view.host({ type: 'reset', seq: 2, state: { items: [] } });
    await view.page.getByTestId('setup-panel').waitFor({ state: 'visible' });
  });
});
