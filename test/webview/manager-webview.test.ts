import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import type { HostToManager } from '../../src/shared/manager-protocol';
import type { ApprovalView, HookView } from '../../src/shared/manager-views';
import { toPendingConfigView } from '../../src/shared/manager-view-builders';
import type { WebviewPage } from './harness/browser';
import { openWebview } from './harness/open-webview';
import { makeHookView } from './harness/hook-view-fixture';
import { makeTimeline } from './harness/timeline-fixture';

let view: WebviewPage;
let closeView: (() => Promise<void>) | undefined;

const hook = makeHookView;

const HOOKS: HookView[] = [
  hook('guard', {
    description: 'Blocks rm -rf outside build/',
    lastResult: { status: 'success', decision: 'deny', durationMs: 18, at: '2025-05-01T09:00:00.000Z' },
    runCount: 12,
    errorCount: 1,
  }),
  hook('format-on-write', {
    event: 'PostToolUse',
    matcher: 'Edit|Write',
    target: 'npx prettier --write',
    lastResult: { status: 'success', decision: 'none', durationMs: 240, at: '2025-05-01T09:00:01.000Z' },
    runCount: 4,
  }),
  hook('policy-server', {
    handlerType: 'rpc',
    matcher: '*',
    target: 'policy (intercept)',
    sourceKind: 'user',
    file: undefined,
    line: undefined,
  }),
  hook('audit-context', {
    event: 'UserPromptSubmit',
    matcher: undefined,
    sourceKind: 'workspace',
    trusted: false,
    active: false,
    inactiveReason: "Restricted Mode: workspace hooks don't run until you trust this folder.",
  }),
  hook('todo-guard', {
    event: 'Stop',
    matcher: undefined,
    handlerType: 'builtin',
    sourceKind: 'builtin',
    target: 'TodoGuard',
    file: undefined,
    line: undefined,
  }),
];

const APPROVALS: ApprovalView[] = [
  {
    id: 'call_7',
    key: 'approval-7',
    sessionId: 'session-1',
    toolName: 'Bash',
    subject: 'Run: git push --force',
    reason: 'ask rule Bash(git push:*)',
    askedBy: 'rule Bash(git push:*)',
    createdAt: new Date().toISOString(),
    suggestedRule: 'Bash(git push --force)',
    proposedDiff: false,
    system: false,
    replay: false,
    choices: ['allow-once', 'allow-session', 'allow-always', 'deny-session', 'deny'],
  },
  {
    id: 'call_8',
    key: 'approval-8',
    sessionId: 'session-1',
    toolName: 'Edit',
    subject: 'Edit .vscode/hooks.json',
    reason: '.vscode/hooks.json configures hooks: a person must approve changes to it',
    askedBy: 'protected file',
    createdAt: new Date().toISOString(),
    suggestedRule: 'Edit',
    proposedDiff: true,
    system: true,
    replay: false,
    choices: ['allow-once', 'deny-session', 'deny'],
  },
  {
    id: 'call_9',
    key: 'approval-9',
    sessionId: 'replay-1',
    toolName: 'Bash',
    subject: 'Run: rm -rf build',
    reason: 'Bash needs approval in default mode',
    askedBy: 'default mode',
    createdAt: new Date().toISOString(),
    suggestedRule: 'Bash(rm -rf build)',
    proposedDiff: false,
    system: false,
    replay: true,
    choices: ['allow-once', 'allow-session', 'deny-session', 'deny'],
  },
];

const setFilter = (testId: string, value: string) =>
  view.page.getByTestId(testId).evaluate((el, v) => {
    (el as HTMLElement & { value: string }).value = v;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);

beforeAll(async () => {
  ({ view, close: closeView } = await openWebview('manager', { width: 1280, height: 800 }));
});

afterAll(() => closeView?.());

beforeEach(async () => {
  await view.clearPosted();
  // Timeline filters outlive a session switch (by design); tests start without them.
  for (const id of ['filter-event', 'filter-hook', 'filter-decision']) await setFilter(id, '');
  await view.page.getByTestId('filter-text').evaluate((el) => {
    (el as HTMLElement & { value: string }).value = '';
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
});

afterEach(() => {
  expect(view.problems).toEqual([]);
});

describe('Hook Manager webview', () => {
  it('groups hooks by event, explains inactive ones, and toggles post toggleHook', async () => {
    await view.host({ type: 'trust', trusted: false });
    await view.host({ type: 'hooks', hooks: HOOKS, disableAllHooks: false });
    await view.host({
      type: 'problems',
      problems: [
        {
          id: 'p1',
          severity: 'error',
          code: 'script-missing',
          message: 'hooks/missing.sh does not exist',
          path: 'hooks.Stop[0].hooks[0].command',
          sourceKind: 'hooksJson',
          file: '.vscode/hooks.json',
          line: 12,
          column: 20,
        },
      ],
    });
    await view.page.getByTestId('tab-hooks').click();
    const groups = view.page.getByTestId('hook-group');
    await groups.first().waitFor();
    expect(
      await groups.evaluateAll((els) =>
        els.map((el) => [el.getAttribute('data-event'), [...el.querySelectorAll('.hook-name')].map((n) => n.textContent)]),
      ),
    ).toEqual([
      ['UserPromptSubmit', ['audit-context']],
      ['PreToolUse', ['guard', 'policy-server']],
      ['PostToolUse', ['format-on-write']],
      ['Stop', ['todo-guard']],
    ]);
    expect(await view.page.getByTestId('trust-banner').isVisible()).toBe(true);
    const untrusted = view.page.locator('[data-hook-id="audit-context"]');
    expect(await untrusted.getByTestId('hook-inactive').textContent()).toContain('Restricted Mode');
    expect(await untrusted.locator('.badge-untrusted').count()).toBe(1);
    expect(await view.page.locator('[data-hook-id="guard"]').getByTestId('hook-last').textContent()).toBe('deny 18 ms');
    await view.screenshot('manager-hooks.png');

    await view.page.locator('[data-hook-id="guard"]').getByTestId('hook-toggle').click();
    expect(await view.waitForPosted('toggleHook')).toEqual([{ type: 'toggleHook', id: 'guard', enabled: false }]);
    await view.page.getByTestId('hooks-disable-all').click();
    await view.page.locator('[data-hook-id="guard"]').getByTestId('hook-open').click();
    await view.page.locator('.problem').click();
    await view.page.getByTestId('manage-trust').click();
    expect((await view.posted()).slice(1)).toEqual([
      { type: 'toggleAll', enabled: false },
      { type: 'openDefinition', id: 'guard' },
      { type: 'openProblem', id: 'p1' },
      { type: 'manageTrust' },
    ]);
    // A new snapshot updates rows in place.
    await view.host({
      type: 'hooks',
      hooks: HOOKS.map((h) => (h.id === 'guard' ? { ...h, enabled: false, active: false, inactiveReason: 'Turned off.' } : h)),
      disableAllHooks: false,
    });
    await view.page.locator('[data-hook-id="guard"].is-inactive').waitFor();
    await view.host({ type: 'trust', trusted: true });
    await view.page.getByTestId('trust-banner').waitFor({ state: 'hidden' });
  });

  it('test-fires a hook with an editable sample payload and shows the result', async () => {
    await view.host({ type: 'hooks', hooks: HOOKS, disableAllHooks: false });
    const row = view.page.locator('[data-hook-id="format-on-write"]');
    await row.getByTestId('hook-test').click();
    const editor = row.getByTestId('test-payload');
    const sample = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    // The sample follows the event and the tool its matcher names.
    expect(sample).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: expect.any(String) },
      tool_response: expect.any(Object),
    });
    await editor.fill('{ not json');
    await row.getByTestId('test-run').click();
    expect(await row.getByTestId('test-error').textContent()).toMatch(/Not valid JSON/);
    expect((await view.posted()).filter((m) => m.type === 'testFire')).toEqual([]);
    const payload = JSON.stringify({ ...sample, tool_input: { file_path: 'src/x.ts', old_string: 'a', new_string: 'b' } });
    await editor.fill(payload);
    await row.getByTestId('test-run').click();
    expect(await view.waitForPosted('testFire')).toEqual([{ type: 'testFire', id: 'format-on-write', payload }]);
    await view.host({
      type: 'testResult',
      id: 'format-on-write',
      result: {
        status: 'blocking-error',
        decision: 'block',
        reason: 'prettier failed',
        stdout: 'Checking formatting...',
        stderr: '[error] src/x.ts: SyntaxError',
        exitCode: 2,
        durationMs: 412,
        effects: { decision: 'block', reason: 'prettier failed' },
      },
    });
    await row.getByTestId('test-status').waitFor();
    expect(await row.getByTestId('test-status').textContent()).toBe('blocking-error');
    expect(await row.getByTestId('test-stdout').textContent()).toBe('Checking formatting...');
    expect(await row.getByTestId('test-stderr').textContent()).toContain('SyntaxError');
    expect(await row.getByTestId('test-effects').textContent()).toContain('"decision": "block"');
    await view.screenshot('manager-test-fire.png');
  });

  it("answers approvals with the offered scopes, naming the rule they add: protected files only once or deny, a replay's no Always allow", async () => {
    await view.host({ type: 'approvals', pending: APPROVALS });
    await view.page.getByTestId('tab-approvals').click();
    const cards = view.page.getByTestId('approval-card');
    await cards.first().waitFor();
    expect(await cards.nth(0).locator('vscode-button').allTextContents()).toEqual([
      'Allow once',
      'Allow for session',
      'Always allow',
      'Deny for session',
      'Deny',
    ]);
    expect(await cards.nth(1).locator('vscode-button').allTextContents()).toEqual(['Allow once', 'Deny for session', 'Deny']);
    expect(await cards.nth(2).locator('vscode-button').allTextContents()).toEqual([
      'Allow once',
      'Allow for session',
      'Deny for session',
      'Deny',
    ]);
    expect(await cards.nth(0).locator('.approval-subject').textContent()).toBe('Run: git push --force');
    expect(await cards.nth(0).locator('.approval-rule').textContent()).toBe(
      'Allowing for the session or always adds the rule Bash(git push --force).',
    );
    expect(await cards.nth(2).locator('.approval-rule').textContent()).toBe('Allowing for the session adds the rule Bash(rm -rf build).');
    expect(await cards.nth(1).locator('.approval-rule').count()).toBe(0);
    expect(await cards.nth(0).getByTestId('approval-diff').count()).toBe(0);
    await cards.nth(1).getByTestId('approval-diff').click();
    expect(await view.waitForPosted('showDiff')).toEqual([{ type: 'showDiff', id: 'call_8' }]);
    expect(await cards.nth(2).locator('.approval-replay').textContent()).toBe('Replay');
    expect(await cards.nth(0).locator('.approval-replay').count()).toBe(0);
    expect(await view.page.locator('.tab[data-tab="approvals"] vscode-badge').textContent()).toBe('3');
    await view.host({ type: 'trust', trusted: false });
    await view.screenshot('manager-approvals.png');
    await cards.nth(0).getByText('Always allow').click();
    expect(await view.waitForPosted('answerApproval')).toEqual([
      { type: 'answerApproval', id: 'call_7', key: 'approval-7', choice: 'allow-always' },
    ]);
    await cards.nth(1).getByText('Deny', { exact: true }).click();
    expect((await view.waitForPosted('answerApproval', 2))[1]).toEqual({
      type: 'answerApproval',
      id: 'call_8',
      key: 'approval-8',
      choice: 'deny',
    });
    await view.host({ type: 'approvals', pending: [] });
    await view.page.getByText('Nothing is waiting for your approval.').waitFor();
    await view.host({ type: 'trust', trusted: true });
  });

  it('renders a 10,000-record timeline with a bounded number of rows, filters and a detail pane', async () => {
    const records = makeTimeline(10_000);
    await view.host({ type: 'showTab', tab: 'timeline' });
    // The flat table (the trace, the default view, has its own tests in timeline-trace.test.ts).
    await view.page.getByTestId('timeline-view-table').click();
    // The page makes the same deterministic records itself (see harness/page-fixtures).
    await view.page.evaluate(() => {
      const w = window as unknown as { __host(m: HostToManager): void; __fixtures: { makeTimeline(n: number): AuditRecord[] } };
      w.__host({
        type: 'timelineReset',
        sessionId: 'session-1',
        records: w.__fixtures.makeTimeline(10_000),
        sessions: [
          { id: 'session-1', label: 'Clean the build', live: true, records: 10_000 },
          { id: 'session-0', label: 'Yesterday' },
        ],
      });
    });
    const count = view.page.getByTestId('timeline-count');
    await view.page.waitForFunction(() => document.querySelector('[data-testid="timeline-count"]')?.textContent === '10,000 records');
    const visibleRows = () => view.page.locator('.tl-scroller .tl-row:not([hidden])').count();
    expect(await visibleRows()).toBeGreaterThan(10);
    expect(await visibleRows()).toBeLessThan(80);

    // Scrolling to the end shows the last record, still with a bounded DOM.
    const scroller = view.page.getByTestId('timeline-scroller');
    await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await view.page.locator(`.tl-row[data-seq="${records[records.length - 1].seq}"]`).waitFor();
    expect(await visibleRows()).toBeLessThan(80);

    // Filters: decision, event, hook and free text narrow the rows to what the records say.
    const expectCount = async (n: number) =>
      view.page.waitForFunction(
        (text) => document.querySelector('[data-testid="timeline-count"]')?.textContent === text,
        `${n.toLocaleString('en-US')} of 10,000`,
      );
    const blocks = records.filter(
      (r) =>
        (r.type === 'hook_run' && r.status === 'success' && r.decision === 'block') || (r.type === 'dispatch' && r.decision === 'block'),
    );
    await setFilter('filter-decision', 'block');
    await expectCount(blocks.length);
    const shown = await view.page.locator('.tl-scroller .tl-row:not([hidden]) .tl-decision .badge').allTextContents();
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown)).toEqual(new Set(['block']));
    await setFilter('filter-hook', 'guard');
    await expectCount(
      records.filter((r) => r.type === 'hook_run' && r.hook_name === 'guard' && r.status === 'success' && r.decision === 'block').length,
    );
    await setFilter('filter-decision', '');
    await setFilter('filter-hook', '');
    await setFilter('filter-event', 'Stop');
    await expectCount(records.filter((r) => 'event' in r && r.event === 'Stop').length);
    await setFilter('filter-event', '');
    const blocked = records.find((r) => r.type === 'hook_run' && r.seq > 6000 && r.decision === 'block');
    if (blocked?.type !== 'hook_run' || !blocked.reason) throw new Error('the fixture has blocked runs with a reason');
    const needle = blocked.reason.slice(0, blocked.reason.indexOf(':') + 1);
    await view.page.getByTestId('filter-text').evaluate((el, text) => {
      (el as HTMLElement & { value: string }).value = text;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, needle.toUpperCase());
    await expectCount(records.filter((r) => JSON.stringify(r).toLowerCase().includes(needle.toLowerCase())).length);

    // The detail pane shows the hook's stdin (its event's payload), stdout and reason.
    await view.page.locator('.tl-scroller .tl-row[data-type="hook_run"]').first().click();
    const detail = view.page.getByTestId('timeline-detail');
    await detail.waitFor();
    expect(await detail.getByTestId('detail-stdout').locator('pre').textContent()).toBe(blocked.stdout);
    expect(await detail.getByTestId('detail-reason').locator('pre').textContent()).toBe(blocked.reason);
    expect(await detail.getByTestId('detail-input').locator('pre').textContent()).toContain('"hook_event_name"');
    await view.screenshot('manager-timeline-detail.png');
    await view.page.getByTestId('filter-text').evaluate((el) => {
      (el as HTMLElement & { value: string }).value = '';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await view.page.waitForFunction(() => document.querySelector('[data-testid="timeline-count"]')?.textContent === '10,000 records');
    expect(await count.textContent()).toBe('10,000 records');
    await setFilter('timeline-session', 'session-0');
    expect(await view.waitForPosted('selectSession')).toEqual([{ type: 'selectSession', sessionId: 'session-0' }]);
  });

  it('appends live records, drops duplicates and reloads on a gap', async () => {
    const records = makeTimeline(50);
    await view.host({ type: 'showTab', tab: 'timeline' });
    await view.host({ type: 'timelineReset', sessionId: 'session-1', records, sessions: [{ id: 'session-1', label: 'Live', live: true }] });
    await view.page.waitForFunction(() => document.querySelector('[data-testid="timeline-count"]')?.textContent === '50 records');
    const more = makeTimeline(60).slice(45);
    await view.host({ type: 'timelineAppend', sessionId: 'session-1', records: more });
    await view.page.waitForFunction(() => document.querySelector('[data-testid="timeline-count"]')?.textContent === '60 records');
    await view.host({ type: 'timelineAppend', sessionId: 'other', records: makeTimeline(70).slice(60) });
    await view.host({ type: 'timelineAppend', sessionId: 'session-1', records: makeTimeline(80).slice(75) });
    expect(await view.waitForPosted('selectSession')).toEqual([{ type: 'selectSession', sessionId: 'session-1' }]);
    expect(await view.page.getByTestId('timeline-count').textContent()).toBe('60 records');
    await view.page.getByTestId('timeline-export').click();
    expect(await view.waitForPosted('exportTimeline')).toEqual([{ type: 'exportTimeline', sessionId: 'session-1' }]);
  });

  it('shows a held configuration change as a diff with Apply and Discard, as text whatever the file holds', async () => {
    const diff = [
      'Index: .vscode/hooks.json (applied)',
      '===================================================================',
      '--- .vscode/hooks.json (applied)',
      '+++ .vscode/hooks.json (on disk)',
      '@@ -1,3 +1,1 @@',
      '-{',
      '-  "hooks": { "PreToolUse": [] }',
      '-}',
      '+{"disableAllHooks":true,"x":"<img src=x onerror=alert(1)>"}',
      '',
    ].join('\n');
    await view.host({
      type: 'pendingConfig',
      changes: [toPendingConfigView({ id: 'config-change-1', label: '.vscode/hooks.json', governs: 'hooks', diff })],
    });
    const change = view.page.getByTestId('pending-change');
    await change.waitFor();
    expect(await change.locator('.banner-text').textContent()).toContain('.vscode/hooks.json changed on disk outside the editor.');
    const lines = await change
      .locator('.diff-line')
      .evaluateAll((els) => els.map((el) => [el.className.replace('diff-line ', ''), el.textContent?.trimEnd()]));
    expect(lines).toEqual([
      ['diff-meta', '--- .vscode/hooks.json (applied)'],
      ['diff-meta', '+++ .vscode/hooks.json (on disk)'],
      ['diff-hunk', '@@ -1,3 +1,1 @@'],
      ['diff-del', '-{'],
      ['diff-del', '-  "hooks": { "PreToolUse": [] }'],
      ['diff-del', '-}'],
      ['diff-add', '+{"disableAllHooks":true,"x":"<img src=x onerror=alert(1)>"}'],
    ]);
    expect(await change.locator('img').count()).toBe(0);
    await view.screenshot('manager-pending-config.png');

    await change.getByTestId('pending-apply').click();
    expect(await view.waitForPosted('applyConfigChange')).toEqual([{ type: 'applyConfigChange', id: 'config-change-1' }]);
    await change.getByTestId('pending-discard').click();
    expect(await view.waitForPosted('discardConfigChange')).toEqual([{ type: 'discardConfigChange', id: 'config-change-1' }]);
    await view.host({ type: 'pendingConfig', changes: [] });
    await view.page.getByTestId('pending-config').waitFor({ state: 'hidden' });
  });

  it("a full timeline renders only visible rows, and the selected row takes the theme's selection colors and opens its detail", async () => {
    await view.host({ type: 'showTab', tab: 'timeline' });
    await view.page.getByTestId('timeline-view-table').click();
    await view.host({
      type: 'timelineReset',
      sessionId: 'session-1',
      records: makeTimeline(400),
      sessions: [{ id: 'session-1', label: 'Clean the build', live: true }],
    });
    await view.page.waitForFunction(() => document.querySelector('[data-testid="timeline-count"]')?.textContent === '400 records');
    const rendered = await view.page.locator('.tl-scroller .tl-row').count();
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(400);

    const row = view.page.locator('.tl-scroller .tl-row[data-type="hook_run"]').nth(3);
    await row.click();
    await view.page.locator('.tl-scroller .tl-row.is-selected').waitFor();
    await view.page.mouse.move(0, 0); // a hovered row shows the hover color instead
    // The colors come from VS Code's theme variables (the harness sets Dark Modern's), not the page's own.
    const colors = await view.page.locator('.tl-scroller .tl-row.is-selected').evaluate((el) => {
      const style = getComputedStyle(el);
      return { background: style.backgroundColor, color: style.color };
    });
    expect(colors).toEqual({ background: 'rgb(4, 57, 94)', color: 'rgb(255, 255, 255)' });
    await view.page.getByTestId('timeline-detail').getByTestId('detail-input').waitFor();
    await view.screenshot('manager-timeline.png');
  });
});
