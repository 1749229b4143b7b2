import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostToManager } from '../../../src/shared/manager-protocol';
import { text, toolCalls, type ScriptedReply } from '../../support/model-server';
import { stub, Uri, type FakeWebview } from '../../support/vscode-stub';
import { hooksJson } from '../../support/workspace';
import { startChat, until, type ChatHarness } from './extension-harness';

type Of<T extends HostToManager['type']> = Extract<HostToManager, { type: T }>;

const GUARD = `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (/secret/.test(input.prompt || '')) { process.stderr.write('no secrets in prompts'); process.exit(2); }
`;
const HOOKS = hooksJson({
  UserPromptSubmit: [{ hooks: [{ type: 'command', name: 'prompt-guard', command: 'node hooks/guard.js' }] }],
  PreToolUse: [{ matcher: '(', hooks: [{ type: 'command', command: 'exit 0', name: 'bad-matcher' }] }],
});

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function openManager(): Promise<FakeWebview> {
  await stub.state.commands.get('hookpilot.openHookManager')?.();
  const webview = stub.state.panels[0].webview;
  webview.send({ type: 'ready' });
  await until(() => webview.ofType('timelineReset').length > 0, 'the first timeline');
  return webview;
}

const last = <T extends HostToManager['type']>(webview: FakeWebview, type: T) => webview.ofType<Of<T>>(type as Of<T>['type']).at(-1);

describe('Hook Manager', () => {
  it('lists hooks with their last result, toggles them, and test-fires one with an edited payload', async () => {
    h = await startChat({ 'hooks/guard.js': GUARD, '.vscode/hooks.json': HOOKS }, [text('ok')]);
    await h.prompt('hello');
    const webview = await openManager();
    expect(stub.state.panels[0].title).toBe('Hookpilot Hook Manager');
    expect(stub.state.panels[0].options).toMatchObject({
      enableScripts: true,
      localResourceRoots: [
        expect.objectContaining({ path: expect.stringMatching(/dist\/webview$/) }),
        expect.objectContaining({ path: expect.stringMatching(/codicons\/dist$/) }),
      ],
    });
    expect(stub.state.panels[0].webview.html).toMatch(/script-src 'nonce-[^']+'/);

    const guard = await until(
      () => last(webview, 'hooks')?.hooks.find((v) => v.name === 'prompt-guard' && v.runCount === 1),
      'the guard with its run',
    );
    expect(guard).toMatchObject({ event: 'UserPromptSubmit', sourceKind: 'hooksJson', active: true, lastResult: { status: 'success' } });

    webview.send({ type: 'toggleHook', id: guard.id, enabled: false });
    await until(() => last(webview, 'hooks')?.hooks.find((v) => v.id === guard.id)?.enabled === false, 'the toggled hook');
    expect(h.context.workspaceState.get('hookpilot.enabledOverrides')).toEqual({ [guard.id]: false });

    webview.send({
      type: 'testFire',
      id: guard.id,
      payload: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'my secret plan' }),
    });
    const blocked = await until(() => last(webview, 'testResult'), 'the test result');
    expect(blocked).toMatchObject({
      id: guard.id,
      result: { status: 'blocking-error', decision: 'block', reason: 'no secrets in prompts' },
    });
    webview.send({ type: 'testFire', id: guard.id, payload: '{ not json' });
    await until(() => webview.ofType<Of<'testResult'>>('testResult').length === 2, 'the second result');
    expect(last(webview, 'testResult')?.result).toMatchObject({ status: 'invalid-payload' });
  });

  it("opens a hook's definition and a problem at their place in hooks.json", async () => {
    h = await startChat({ 'hooks/guard.js': GUARD, '.vscode/hooks.json': HOOKS }, []);
    const webview = await openManager();
    const guard = last(webview, 'hooks')?.hooks.find((v) => v.name === 'prompt-guard');
    expect(guard?.line).toBeGreaterThan(1);
    webview.send({ type: 'openDefinition', id: guard?.id });
    await until(() => stub.state.openedDocuments.length === 1, 'the opened definition');
    expect(stub.state.openedDocuments[0]).toBe(h.workspace.file('.vscode/hooks.json'));

    const problem = last(webview, 'problems')?.problems.find((p) => p.severity === 'error');
    expect(problem).toMatchObject({ sourceKind: 'hooksJson', file: '.vscode/hooks.json' });
    webview.send({ type: 'openProblem', id: problem?.id });
    await until(() => stub.state.openedDocuments.length === 2, 'the opened problem');
  });

  it("shows the live session's timeline as it grows and exports it as JSONL", async () => {
    h = await startChat({ 'hooks/guard.js': GUARD, '.vscode/hooks.json': HOOKS }, [text('first'), text('second')]);
    await h.prompt('one');
    const webview = await openManager();
    const sessionId = h.root.chat.currentSessionId ?? '';
    const reset = last(webview, 'timelineReset');
    expect(reset?.sessionId).toBe(sessionId);
    expect(reset?.sessions.find((s) => s.id === sessionId)).toMatchObject({ live: true, label: 'one' });
    const seen = reset?.records.length ?? 0;
    expect(reset?.records.some((r) => r.type === 'hook_run' && r.hook_name === 'prompt-guard')).toBe(true);

    await h.prompt('two');
    await until(
      () =>
        webview
          .ofType<Of<'timelineAppend'>>('timelineAppend')
          .flatMap((m) => m.records)
          .some((r) => r.type === 'event' && r.event === 'Stop'),
      'the appended records',
    );
    const appended = webview.ofType<Of<'timelineAppend'>>('timelineAppend').flatMap((m) => m.records);
    expect(appended[0].seq).toBe((reset?.records.at(-1)?.seq ?? 0) + 1);

    const target = path.join(h.storageDir, 'export.jsonl');
    stub.state.answerSaveDialog = () => Uri.file(target);
    webview.send({ type: 'exportTimeline', sessionId });
    await until(() => stub.state.messages.some((m) => m.message.includes('timeline exported')), 'the export');
    const lines = readFileSync(target, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; session_id: string });
    expect(lines.length).toBeGreaterThanOrEqual(seen + appended.length);
    expect(lines.every((r) => r.session_id === sessionId)).toBe(true);
    expect(lines.map((r) => r.seq)).toEqual(lines.map((_, i) => i + 1));
  });

  it("keeps a prompt hook's run on the timeline when its judge's reply counts tokens in text: the count is left out and logged", async () => {
    const hooks = hooksJson({ PreToolUse: [{ matcher: 'Glob', hooks: [{ type: 'prompt', prompt: 'Safe? $ARGUMENTS' }] }] });
    const agent: ScriptedReply[] = [toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]), text('done')];
    h = await startChat({ '.vscode/hooks.json': hooks }, (request) =>
      // The judge asks without tools, the agent with them.
      request.body.tools
        ? agent.shift()
        : text('{"ok": true}', { usage: { wire: { prompt_tokens: '5', completion_tokens: 3, total_tokens: 8 } } }),
    );
    await h.prompt('list files');
    const webview = await openManager();
    const runs = last(webview, 'timelineReset')?.records.filter((r) => r.type === 'hook_run' && r.handler === 'prompt');
    expect(runs).toEqual([expect.objectContaining({ status: 'success', tokens: { prompt: 0, completion: 0, total: 0 } })]);
    expect(stub.state.logLines).toContainEqual({
      level: 'warn',
      message: expect.stringMatching(/: a reply's token usage is not counted \(prompt_tokens: /),
    });
  });

  it('Show Timeline opens the manager on its Timeline tab once the page is ready', async () => {
    h = await startChat({}, []);
    await stub.state.commands.get('hookpilot.showTimeline')?.();
    const webview = stub.state.panels[0].webview;
    expect(webview.ofType('showTab')).toEqual([]);
    webview.send({ type: 'ready' });
    await until(() => last(webview, 'showTab'), 'the tab message');
    expect(last(webview, 'showTab')).toEqual({ type: 'showTab', tab: 'timeline' });
    await stub.state.commands.get('hookpilot.showApprovals')?.();
    expect(last(webview, 'showTab')).toEqual({ type: 'showTab', tab: 'approvals' });
    expect(stub.state.panels).toHaveLength(1);
  });

  it('a blocked prompt puts a badge on the status bar until the Hook Manager is opened', async () => {
    h = await startChat({ 'hooks/guard.js': GUARD, '.vscode/hooks.json': HOOKS }, [text('never')]);
    const item = stub.state.statusBarItems[0];
    expect(item.text).toBe('$(shield) 1 hook');
    await h.prompt('here is my secret');
    expect(h.items().find((i) => i.kind === 'prompt-blocked')).toMatchObject({ reason: expect.stringContaining('no secrets in prompts') });
    await until(() => item.text.includes('$(circle-slash) 1'), 'the badge');
    expect(item.backgroundColor?.id).toBe('statusBarItem.warningBackground');
    await stub.state.commands.get('hookpilot.openHookManager')?.();
    expect(item.text).toBe('$(shield) 1 hook');
  });
});
