import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostToManagerSchema, managerTabSchema, managerToHostSchema } from '../../src/shared/manager-protocol';

// CONTRIBUTING's "Add a Hook Manager tab" checklist, checked over the tabs and messages the
// protocol names: a tab or a message that misses one of its places fails here by name.
// test/webview/manager-tabs.test.ts checks the page itself and that docs/hooks.md names each tab.
const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const typesOf = (schema: { options: ReadonlyArray<{ shape: { type: { value: string } } }> }) =>
  schema.options.map((option) => option.shape.type.value);
/** The labels of a source file's `case '…':` clauses. */
const caseLabels = (file: string) => new Set([...read(file).matchAll(/\bcase '([\w-]+)':/g)].map((m) => m[1]));
const WEBVIEW_TESTS = readdirSync(path.join(root, 'test/webview'))
  .filter((name) => name.endsWith('.test.ts') && name !== 'manager-tabs.test.ts')
  .map((name) => `test/webview/${name}`);

describe('every Hook Manager tab is wired in', () => {
  it.each(managerTabSchema.options)('%s: its module and its stylesheet, imported by manager.css (webview-ui/manager/)', (tab) => {
    expect(existsSync(path.join(root, `webview-ui/manager/${tab}-tab.ts`)), `webview-ui/manager/${tab}-tab.ts`).toBe(true);
    expect(existsSync(path.join(root, `webview-ui/manager/${tab}-tab.css`)), `webview-ui/manager/${tab}-tab.css`).toBe(true);
    expect(read('webview-ui/manager/manager.css')).toContain(`@import './${tab}-tab.css';`);
  });

  it.each(managerTabSchema.options)('%s: a webview test opens it in Chromium (test/webview/)', (tab) => {
    const opening = WEBVIEW_TESTS.filter((file) => {
      const text = read(file);
      return text.includes(`'tab-${tab}'`) || text.includes(`tab: '${tab}'`);
    });
    expect(opening, `no test/webview file clicks tab-${tab} or sends showTab ${tab}`).not.toEqual([]);
  });

  it('the page handles every message the host sends (webview-ui/manager/manager-app.ts)', () => {
    const handled = caseLabels('webview-ui/manager/manager-app.ts');
    expect(typesOf(hostToManagerSchema).filter((type) => !handled.has(type))).toEqual([]);
  });

  it('the host answers every message the page sends (src/extension/hook-manager-panel.ts)', () => {
    const handled = caseLabels('src/extension/hook-manager-panel.ts');
    expect(typesOf(managerToHostSchema).filter((type) => !handled.has(type))).toEqual([]);
  });
});
