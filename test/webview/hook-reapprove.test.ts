import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookView } from '../../src/shared/manager-views';
import { toScriptChangeView } from '../../src/shared/manager-view-builders';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';
import { makeHookView } from './harness/hook-view-fixture';

let view: WebviewPage;

const guard: HookView = makeHookView('guard', { target: 'node hooks/guard.js', errorCount: 1, runCount: 1 });
const changed = (files: string[], fingerprint: string): HookView => ({
  ...guard,
  scriptChanged: toScriptChangeView({ files, fingerprint }),
});

let closeView: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1280, height: 800 }));
  await view.page.getByTestId('tab-hooks').click();
});

afterAll(() => closeView?.());

const row = () => view.page.locator('[data-hook-id="guard"]');
const listed = () => row().getByTestId('hook-changed-files').locator('li').allTextContents();

describe('Hook Manager webview: a changed hook script', () => {
  it('lists every changed file on the row; Re-approve posts the fingerprint of that list; the note goes once approved', async () => {
    await view.clearPosted();
    await view.host({ type: 'hooks', hooks: [changed(['hooks/guard.js', 'hooks/lib.js'], 'f1')], disableAllHooks: false });
    await row().getByTestId('hook-script-changed').waitFor();
    expect(await row().getByTestId('hook-script-changed').textContent()).toContain('it fails instead of running until you re-approve them');
    expect(await listed()).toEqual(['hooks/guard.js', 'hooks/lib.js']);
    expect(await row().getByTestId('hook-changed-again').isHidden()).toBe(true);
    await row().getByTestId('hook-reapprove').click();
    expect(await view.waitForPosted('approveScripts')).toEqual([{ type: 'approveScripts', id: 'guard', fingerprint: 'f1' }]);

    await view.host({ type: 'hooks', hooks: [guard], disableAllHooks: false });
    await row().getByTestId('hook-script-changed').waitFor({ state: 'hidden' });
    expect(view.problems).toEqual([]);
  });

  it('names ten files, counts the rest, and shows a file name as an escaped text', async () => {
    const files = Array.from({ length: 13 }, (_, i) => `hooks/m${i}.js`);
    files[0] = 'hooks/\u202esj.evil';
    await view.host({ type: 'hooks', hooks: [changed(files, 'f2')], disableAllHooks: false });
    await row().getByTestId('hook-script-changed').waitFor();
    expect(await listed()).toEqual(['hooks/\\u202esj.evil', ...files.slice(1, 10), 'and 3 more']);
    await view.screenshot('hook-reapprove-files.png');
  });

  it('says so when the files change again while they are listed, and Re-approve then sends the newer fingerprint', async () => {
    await view.clearPosted();
    await view.host({ type: 'hooks', hooks: [guard], disableAllHooks: false });
    await view.host({ type: 'hooks', hooks: [changed(['hooks/lib.js'], 'f3')], disableAllHooks: false });
    await row().getByTestId('hook-script-changed').waitFor();
    expect(await row().getByTestId('hook-changed-again').isHidden()).toBe(true);
    await view.host({ type: 'hooks', hooks: [changed(['hooks/lib.js'], 'f4')], disableAllHooks: false });
    await row().getByTestId('hook-changed-again').waitFor();
    expect(await row().getByTestId('hook-changed-again').textContent()).toContain('changed again while listed here');
    await row().getByTestId('hook-reapprove').click();
    expect(await view.waitForPosted('approveScripts')).toEqual([{ type: 'approveScripts', id: 'guard', fingerprint: 'f4' }]);
    expect(view.problems).toEqual([]);
  });
});
