import { afterEach, describe, expect, it } from 'vitest';
import type { HostToManager } from '../../../src/shared/manager-protocol';
import { SHOW_HOOK_RUNS_ACTION } from '../../../src/extension/hook-health-monitor';
import { text } from '../../support/model-server';
import { stub, type FakeWebview } from '../../support/vscode-stub';
import { hooksJson } from '../../support/workspace';
import { startChat, until, type ChatHarness } from './extension-harness';

type Of<T extends HostToManager['type']> = Extract<HostToManager, { type: T }>;

// A real command hook on every prompt: one that fails (exit 1, a non-blocking error), or one that takes a while.
// Its stderr carries a markdown command link, as text a model could get a hook to echo.
const LINK = '[details](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%22%7D)';
const FAILING = `process.stderr.write('lint server down ${LINK}'); process.exit(1);`;
/** What VS Code turns into a clickable link in a notification. */
const MARKDOWN_LINK = /\[[^\]]+\]\(((?:https?:\/\/|command:|file:)[^)\s]+)/i;
const SLOW = `setTimeout(() => process.exit(0), 80);`;
const workspace = (name: string, script: string) => ({
  'hooks/hook.js': script,
  '.vscode/hooks.json': hooksJson({ UserPromptSubmit: [{ hooks: [{ type: 'command', name, command: 'node hooks/hook.js' }] }] }),
});
const healthWarnings = (name: string) =>
  stub.state.messages.filter((m) => m.level === 'warning' && m.message.includes(`"${name}"`) && m.items.includes(SHOW_HOOK_RUNS_ACTION));

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('hook health in the extension', () => {
  it('warns once when a hook fails three times in a row, and "Show Runs" opens the timeline filtered to it', async () => {
    h = await startChat(
      workspace('lint', FAILING),
      Array.from({ length: 6 }, (_, i) => text(`reply ${i}`)),
    );
    stub.state.answerMessage = (shown) => (shown.items.includes(SHOW_HOOK_RUNS_ACTION) ? SHOW_HOOK_RUNS_ACTION : undefined);
    await h.prompt('one');
    await h.prompt('two');
    expect(healthWarnings('lint')).toEqual([]);
    await h.prompt('three');
    const [warning] = await until(() => healthWarnings('lint').length === 1 && healthWarnings('lint'), 'the health warning');
    expect(warning.message).toMatch(/^Hookpilot: hook "lint" \(UserPromptSubmit\) failed 3 times in a row \(last: error: .*down.*\)\.$/);
    // The text stays readable, but no link in it can run a command.
    expect(warning.message).toContain('[details]');
    expect(warning.message).not.toMatch(MARKDOWN_LINK);
    // So does the warning of the hook's first failure.
    const firstFailure = stub.state.messages.find((m) => m.level === 'warning' && m.message.includes('hook "lint" failed on'));
    expect(firstFailure?.message).toContain('[details]');
    expect(firstFailure?.message).not.toMatch(MARKDOWN_LINK);

    // The button opened the Hook Manager on the live session's timeline, filtered to the hook.
    const panel = await until(() => stub.state.panels[0], 'the Hook Manager');
    const webview: FakeWebview = panel.webview;
    webview.send({ type: 'ready' });
    const showTab = await until(() => webview.ofType<Of<'showTab'>>('showTab').at(-1), 'the tab to show');
    expect(showTab).toEqual({ type: 'showTab', tab: 'timeline', hook: 'lint' });
    const reset = await until(() => webview.ofType<Of<'timelineReset'>>('timelineReset').at(-1), 'the timeline');
    expect(reset.sessionId).toBe(h.root.chat.currentSessionId);
    expect(reset.records.filter((r) => r.type === 'hook_run' && r.hook_name === 'lint')).toHaveLength(3);

    // The Hooks tab carries the hook's health.
    const lintView = () =>
      webview
        .ofType<Of<'hooks'>>('hooks')
        .at(-1)
        ?.hooks.find((v) => v.name === 'lint');
    const view = await until(() => lintView()?.health && lintView(), 'the health view');
    expect(view.health).toMatchObject({ runs: 3, failures: 3, timeouts: 0, state: 'failing', lastError: { status: 'error' } });
    expect(view.health?.lastError?.message).toContain('lint server down');
    expect(view.health?.recentMs).toHaveLength(3);

    // Still failing: no second warning for the same degradation.
    await h.prompt('four');
    await h.prompt('five');
    await until(() => lintView()?.health?.runs === 5, 'the fifth run');
    expect(healthWarnings('lint')).toHaveLength(1);

    // With the Hook Manager open, Show Runs brings it to that session's timeline, filtered again.
    const resets = webview.ofType('timelineReset').length;
    h.root.manager.showHookRuns({ hook: 'lint', sessionId: reset.sessionId });
    await until(() => webview.ofType('timelineReset').length > resets, 'a new timeline');
    expect(webview.ofType<Of<'showTab'>>('showTab').at(-1)).toEqual({ type: 'showTab', tab: 'timeline', hook: 'lint' });
    expect(stub.state.panels).toHaveLength(1);
  });

  it('warns once about a hook slower than hookpilot.hookHealth.slowHookMs, and reads a changed setting', async () => {
    h = await startChat(
      workspace('slowpoke', SLOW),
      Array.from({ length: 7 }, (_, i) => text(`reply ${i}`)),
      {
        // Above any run of the hook: nothing is slow yet.
        setup: () => stub.setConfig('hookpilot.hookHealth.slowHookMs', 600_000),
      },
    );
    for (const prompt of ['a', 'b', 'c', 'd', 'e']) await h.prompt(prompt);
    expect(healthWarnings('slowpoke')).toEqual([]);
    // Records reach the monitor once written: the fifth run may be judged by the new limit already.
    stub.setConfig('hookpilot.hookHealth.slowHookMs', 20);
    await h.prompt('f');
    const [warning] = await until(() => healthWarnings('slowpoke').length === 1 && healthWarnings('slowpoke'), 'the slow warning');
    expect(warning.message).toMatch(
      /^Hookpilot: hook "slowpoke" \(UserPromptSubmit\) is slow: its median run over the last [56] runs took \d+ ms, over the 20 ms of /,
    );
    expect(warning.message).toMatch(/ms of hookpilot\.hookHealth\.slowHookMs\.$/);
    await h.prompt('g');
    const audit = h.root.engineHost.engine.audit;
    const sessionId = h.root.chat.currentSessionId ?? '';
    const runs = async () => (await audit.read(sessionId)).records.filter((r) => r.type === 'hook_run' && r.hook_name === 'slowpoke');
    // Reading flushes the log: every run has reached the monitor.
    await until(async () => (await runs()).length === 7, 'the seventh run');
    expect(healthWarnings('slowpoke')).toHaveLength(1);
  });

  it('a bad setting value is reported in the log and the default applies', async () => {
    const setup = () => stub.setConfig('hookpilot.hookHealth.slowHookMs', 'fast');
    h = await startChat(workspace('slowpoke', SLOW), [text('ok')], { setup });
    const logged = stub.state.logLines.find((line) => line.level === 'warn' && line.message.includes('hookpilot.hookHealth.slowHookMs'));
    expect(logged?.message).toMatch(/expected whole milliseconds from 0 to 86400000, got "fast"; using 2000/);
  });
});
