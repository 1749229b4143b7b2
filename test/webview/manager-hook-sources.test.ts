import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebviewPage } from './harness/browser';
import { makeHookView } from './harness/hook-view-fixture';
import { openWebview } from './harness/open-webview';

// Hook rows name their source; the managed policy's are locked (no toggle).

let view: WebviewPage;

let closeView: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1280, height: 800 }));
});

afterAll(() => closeView?.());

describe('Hook Manager: hook sources', () => {
  it("shows Claude Code's files and the managed policy as sources; a managed hook's toggle is locked", async () => {
    await view.host({
      type: 'hooks',
      hooks: [
        makeHookView('policy-guard', { sourceKind: 'managed', file: '/etc/hookpilot/managed-settings.json', line: 7 }),
        makeHookView('claude-guard', { sourceKind: 'claudeProject', file: '.claude/settings.json', line: 5 }),
        makeHookView('my-guard', { sourceKind: 'claudeUser', file: '~/.claude/settings.json', line: 3 }),
      ],
      disableAllHooks: false,
    });
    await view.page.getByTestId('tab-hooks').click();
    const row = (id: string) => view.page.locator(`[data-hook-id="${id}"]`);
    await row('policy-guard').waitFor();
    expect(await row('policy-guard').getByTestId('hook-source').textContent()).toBe(' managed');
    expect(await row('policy-guard').locator('.hook-source .codicon-lock').count()).toBe(1);
    expect(await row('claude-guard').getByTestId('hook-source').textContent()).toBe('.claude/settings.json');
    expect(await row('my-guard').getByTestId('hook-source').textContent()).toBe('~/.claude/settings.json');
    expect(await row('claude-guard').locator('.codicon-lock').count()).toBe(0);

    const locked = row('policy-guard').getByTestId('hook-toggle');
    expect(await locked.evaluate((el) => (el as HTMLElement & { disabled: boolean }).disabled)).toBe(true);
    expect(
      await row('claude-guard')
        .getByTestId('hook-toggle')
        .evaluate((el) => (el as HTMLElement & { disabled: boolean }).disabled),
    ).toBe(false);
    // A click on the locked toggle posts nothing; the next toggle's message is the first one seen.
    await view.clearPosted();
    await locked.click({ force: true });
    await row('claude-guard').getByTestId('hook-toggle').click();
    expect(await view.waitForPosted('toggleHook')).toEqual([{ type: 'toggleHook', id: 'claude-guard', enabled: false }]);
  });
});
