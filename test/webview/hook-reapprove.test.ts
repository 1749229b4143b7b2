import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookView } from '../../src/shared/manager-views';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';
import { makeHookView } from './harness/hook-view-fixture';

let view: WebviewPage;

const guard: HookView = makeHookView('guard', { target: 'node hooks/guard.js', errorCount: 1, runCount: 1 });

let closeView: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1280, height: 800 }));
});

afterAll(() => closeView?.());

describe('Hook Manager webview: a changed hook script', () => {
  it('says so on the row and posts approveScripts from Re-approve; the note goes once approved', async () => {
    await view.host({
      type: 'hooks',
      hooks: [{ ...guard, scriptChanged: 'script changed since it was approved: hooks/guard.js' }],
      disableAllHooks: false,
    });
    await view.page.getByTestId('tab-hooks').click();
    const row = view.page.locator('[data-hook-id="guard"]');
    await row.getByTestId('hook-script-changed').waitFor();
    expect(await row.getByTestId('hook-script-changed').textContent()).toContain('script changed since it was approved: hooks/guard.js');
    await row.getByTestId('hook-reapprove').click();
    expect(await view.waitForPosted('approveScripts')).toEqual([{ type: 'approveScripts', id: 'guard' }]);

    await view.host({ type: 'hooks', hooks: [guard], disableAllHooks: false });
    await row.getByTestId('hook-script-changed').waitFor({ state: 'hidden' });
    expect(view.problems).toEqual([]);
  });
});
