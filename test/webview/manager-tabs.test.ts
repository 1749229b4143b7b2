import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { managerTabSchema, type ManagerTab } from '../../src/shared/manager-protocol';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';

// The page's half of CONTRIBUTING's "Add a Hook Manager tab" checklist (the files and messages
// are checked by test/unit/manager-tab-checklist.test.ts): every tab the protocol names has a
// button in the tab bar, shows its own panel and only it, and is named in docs/hooks.md.
let view: WebviewPage;
let closeView: (() => Promise<void>) | undefined;
const HOOKS_DOC = readFileSync(path.resolve(__dirname, '../../docs/hooks.md'), 'utf8');

/** The `tab-panel` elements shown, by their second class (`hooks-tab`, …). */
const shownPanels = () =>
  view.page
    .locator('.tab-panels > .tab-panel')
    .evaluateAll((els) => els.filter((el) => !(el as HTMLElement).hidden).map((el) => el.classList[1]));

const selectedTabs = () =>
  view.page
    .locator('[role="tablist"] [role="tab"][aria-selected="true"]')
    .evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.tab));

/** The tab's label as its button shows it (without the approvals counter). */
const labelOf = (tab: ManagerTab) => view.page.getByTestId(`tab-${tab}`).evaluate((el) => (el.firstChild?.textContent ?? '').trim());

beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1024, height: 700 }));
});

afterAll(() => closeView?.());

afterEach(() => {
  expect(view.problems).toEqual([]);
});

describe('every Hook Manager tab is wired into the page', () => {
  it('the tab bar has one button per tab, in the protocol order', async () => {
    const tabs = await view.page
      .locator('[role="tablist"] [role="tab"]')
      .evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.tab));
    expect(tabs).toEqual(managerTabSchema.options);
  });

  it.each(managerTabSchema.options)('%s: its button and the host showTab show its panel and no other', async (tab) => {
    const other = managerTabSchema.options.find((t) => t !== tab) ?? tab;
    await view.page.getByTestId(`tab-${other}`).click();
    await view.page.getByTestId(`tab-${tab}`).click();
    await expect.poll(selectedTabs).toEqual([tab]);
    expect(await shownPanels()).toEqual([`${tab}-tab`]);

    await view.page.getByTestId(`tab-${other}`).click();
    await view.host({ type: 'showTab', tab });
    await expect.poll(selectedTabs).toEqual([tab]);
    expect(await shownPanels()).toEqual([`${tab}-tab`]);
  });

  it.each(managerTabSchema.options)('%s: docs/hooks.md names the tab by the label its button shows', async (tab) => {
    const label = await labelOf(tab);
    expect(label).not.toBe('');
    const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // "the Hook Manager's Timeline", "the Hooks tab", "the **MCP** tab", "the Approvals list of the Hook Manager".
    const named = new RegExp(`Hook Manager's (\\*\\*)?${escaped}\\b|\\b(\\*\\*)?${escaped}(\\*\\*)? (tab|list of the Hook Manager)\\b`);
    expect(HOOKS_DOC, `docs/hooks.md does not name the ${label} tab`).toMatch(named);
  });
});
