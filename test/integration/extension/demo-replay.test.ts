import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatItem } from '../../../src/shared/chat-items';
import type { HostToChat } from '../../../src/shared/chat-protocol';
import { applyChatMessage, initialChatState } from '../../../src/shared/chat-reducer';
import { DEMO_RECORDING } from '../../../src/core/replay/demo-recording';
import type { HostToManager } from '../../../src/shared/manager-protocol';
import { text, toolCalls } from '../../support/model-server';
import { stub, type FakeWebview, type MessageItemLike } from '../../support/vscode-stub';
import { modals, startChat, startHost, until, type HostHarness } from './extension-harness';

// With no model configured, the chat offers to replay the demo workspace's recorded session:
// the real demo hooks (command guard and formatter, rpc policy, http webhook) decide again,
// the modal asks, and the timeline lists the replay.

const repo = path.resolve(__dirname, '../../..');
const demo = path.join(repo, 'examples', 'demo-workspace');
type Status = Extract<HostToChat, { type: 'status' }>;

/** The demo's files, with its rpc server named by absolute path and the webhook on `port`. */
function demoFiles(port: number): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.hookpilot-demo') walk(full);
      } else files[path.relative(demo, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(demo);
  const server = path.join(repo, 'examples', 'rpc-policy-server', 'server.js');
  files['.vscode/hooks.json'] = files['.vscode/hooks.json']
    .replace('../rpc-policy-server/server.js', server)
    .replaceAll('127.0.0.1:7777', `127.0.0.1:${port}`);
  return files;
}

async function startReceiver(dir: string): Promise<{ child: ChildProcess; port: number }> {
  const script = path.join(dir, 'tools', 'audit-receiver.js');
  copyFileSync(path.join(demo, 'tools', 'audit-receiver.js'), script);
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, HOOKPILOT_DEMO_RECEIVER_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
    child.stdout?.once('data', (chunk: Buffer) => {
      const match = /127\.0\.0\.1:(\d+)\//.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
      else reject(new Error(String(chunk)));
    });
  });
  return { child, port };
}

let h: HostHarness | undefined;
let receiver: ChildProcess | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  receiver?.kill();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function chatItems(webview: FakeWebview): ChatItem[] {
  let state = initialChatState();
  for (const message of webview.posted) state = applyChatMessage(state, message as HostToChat);
  return [...state.items];
}

describe('Replay the demo session', () => {
  it('offers the replay with no model, runs the real demo hooks in a copy, asks through the modal, and fills the timeline', async () => {
    const receiverDir = mkdtempSync(path.join(tmpdir(), 'hookpilot-receiver-'));
    dirs.push(receiverDir);
    mkdirSync(path.join(receiverDir, 'tools'));
    const started = await startReceiver(receiverDir);
    receiver = started.child;
    h = await startHost(demoFiles(started.port));
    const before = readFileSync(h.workspace.file('src/app.js'), 'utf8');
    stub.state.answerMessage = (shown) =>
      shown.modal ? shown.items.find((i): i is MessageItemLike => typeof i !== 'string' && i.title === 'Allow once') : undefined;

    const view = await stub.resolveView('hookpilot.chat');
    const webview = view.webview;
    webview.send({ type: 'ready', lastSeq: 0 });
    const offered = await until(() => webview.ofType<Status>('status').at(-1), 'the first status');
    expect(offered.model).toMatchObject({ configured: false, demoReplay: true });

    webview.send({ type: 'replayDemo' });
    await until(
      () => chatItems(webview).some((i) => i.kind === 'notice' && i.message.startsWith('Replay finished')),
      'the end of the replay',
    );
    const items = chatItems(webview);
    expect(items[0]).toMatchObject({ kind: 'notice', source: 'replay', message: expect.stringContaining('Replay of the demo session') });
    expect(items.find((i) => i.kind === 'user')).toMatchObject({
      text: 'Clean up the build output, check the config, and tidy src/app.js.',
    });
    const tools = Object.fromEntries(items.flatMap((i) => (i.kind === 'tool' ? [[i.callId, i]] : [])));
    expect(tools.call_rm).toMatchObject({
      status: 'blocked',
      hooks: expect.arrayContaining([expect.objectContaining({ hookName: 'guard' })]),
    });
    expect(tools.call_env).toMatchObject({ status: 'blocked' });
    // The Write asked (the modal), was allowed once, and the formatter ran after it.
    expect(modals().map((m) => m.message)).toContain('Replay: Hookpilot wants to use Write');
    expect(tools.call_write.status).toBe('executed');
    expect(tools.call_write.hooks).toContainEqual(expect.objectContaining({ hookName: 'formatter' }));
    expect(tools.call_grep.status).toBe('executed');
    // A person's answer is not policy: the demo's hooks decide as recorded.
    expect(items.at(-1)).toMatchObject({ kind: 'notice', message: expect.stringContaining('every hook decided as in the recording') });
    expect(readFileSync(h.workspace.file('src/app.js'), 'utf8')).toBe(before);
    // The webhook answered the replay's tool results.
    const received = readFileSync(path.join(receiverDir, '.hookpilot-demo', 'webhook-audit.jsonl'), 'utf8');
    expect(received).toContain('"tool_name":"Write"');

    // The timeline shows the replay, its id saying what it is.
    await vscode.commands.executeCommand('hookpilot.openHookManager');
    const manager = stub.state.panels[0].webview;
    manager.send({ type: 'ready' });
    const reset = await until(
      () => manager.ofType<Extract<HostToManager, { type: 'timelineReset' }>>('timelineReset').at(-1),
      'the timeline',
    );
    expect(reset.sessionId).toMatch(/^replay-/);
    expect(reset.sessions.map((s) => s.id)).toContain(reset.sessionId);
    expect(reset.records).toContainEqual(expect.objectContaining({ type: 'hook_run', hook_name: 'guard', decision: 'block' }));
    expect(reset.records).toContainEqual(expect.objectContaining({ type: 'hook_run', hook_name: 'policy', event: 'PreToolUse' }));
    expect(reset.records).toContainEqual(expect.objectContaining({ type: 'hook_run', hook_name: 'formatter', status: 'success' }));
  });

  it('is not offered in an untrusted workspace, nor once a model is configured', async () => {
    h = await startHost(demoFiles(7777), { trusted: false });
    const webview = (await stub.resolveView('hookpilot.chat')).webview;
    webview.send({ type: 'ready', lastSeq: 0 });
    const status = await until(() => webview.ofType<Status>('status').at(-1), 'the first status');
    expect(status.model).toMatchObject({ configured: false });
    expect(status.model).not.toHaveProperty('demoReplay');
    webview.send({ type: 'replayDemo' });
    await until(() => chatItems(webview).some((i) => i.kind === 'notice' && i.level === 'error'), 'the refusal');
    expect(chatItems(webview).find((i) => i.kind === 'notice' && i.level === 'error')).toMatchObject({
      message: expect.stringContaining('no recorded session to replay'),
    });
  });
});

describe('A demo recording that is not a regular file', () => {
  it('a FIFO there is not offered, and asking for the replay says so instead of blocking the extension host', async () => {
    h = await startHost({ 'src/app.js': 'x' });
    const fifo = h.workspace.file(DEMO_RECORDING);
    mkdirSync(path.dirname(fifo), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    const webview = (await stub.resolveView('hookpilot.chat')).webview;
    webview.send({ type: 'ready', lastSeq: 0 });
    const status = await until(() => webview.ofType<Status>('status').at(-1), 'the first status');
    expect(status.model).toMatchObject({ configured: false });
    expect(status.model).not.toHaveProperty('demoReplay');
    webview.send({ type: 'replayDemo' });
    const refusal = await until(() => chatItems(webview).find((i) => i.kind === 'notice' && i.level === 'error'), 'the refusal');
    expect(refusal).toMatchObject({ message: expect.stringContaining('no recorded session to replay') });
  });
});

describe('Hook Manager: replay and re-run from the timeline', () => {
  const guard = (pattern: string) => `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (/${pattern}/.test(input.tool_input.command || '')) { process.stderr.write('blocked by the guard'); process.exit(2); }
`;

  /** A chat session in which the guard blocked `rm -rf keep.txt`, and the Hook Manager open. */
  async function recordedSession() {
    const hooks = JSON.stringify({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', name: 'guard', command: 'node hooks/guard.js' }] }] },
    });
    const chat = await startChat({ 'hooks/guard.js': guard('rm -rf'), '.vscode/hooks.json': hooks, 'keep.txt': 'keep' }, [
      toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'rm -rf keep.txt' } }]),
      text('Kept it.'),
    ]);
    h = chat;
    await chat.prompt('delete keep.txt');
    const sessionId = chat.root.chat.currentSessionId as string;
    await vscode.commands.executeCommand('hookpilot.openHookManager');
    const manager = stub.state.panels[0].webview;
    manager.send({ type: 'ready' });
    return { chat, sessionId, manager };
  }

  /** A person changes the guard and re-approves it in the Hook Manager: until then a replay, like the window, will not run it. */
  async function changeGuard(chat: HostHarness, manager: FakeWebview, script: string): Promise<void> {
    writeFileSync(chat.workspace.file('hooks/guard.js'), script);
    const engine = chat.root.engineHost.engine;
    const hook = engine.loadedConfig.hooks.find((candidate) => candidate.name === 'guard')!;
    const review = await until(() => engine.scriptReview(hook.id), 'the changed script');
    manager.send({ type: 'approveScripts', id: hook.id, fingerprint: review.fingerprint });
    await until(() => engine.scriptChange(hook.id) === undefined, 'the re-approved script');
  }

  it("refuses to replay while a hook's script changed since it was approved, or a discarded change is on disk", async () => {
    const { chat, sessionId, manager } = await recordedSession();
    const ran = chat.workspace.file('changed-guard-ran');
    writeFileSync(chat.workspace.file('hooks/guard.js'), `require('fs').writeFileSync(${JSON.stringify(ran)}, 'x');`);
    manager.send({ type: 'replaySession', sessionId });
    const refused = await until(() => stub.state.messages.find((m) => m.message.includes('changed since it was approved')), 'the refusal');
    expect(refused.message).toContain('re-approve it in the Hook Manager');
    expect(existsSync(ran)).toBe(false);

    await changeGuard(chat, manager, guard('rm -rf keep'));
    const hooksFile = chat.workspace.file('.vscode/hooks.json');
    writeFileSync(hooksFile, JSON.stringify({ hooks: {} }));
    stub.state.watchers[0].changed.fire(vscode.Uri.file(hooksFile));
    const [change] = await until(
      () => chat.root.engineHost.pendingChanges.length > 0 && chat.root.engineHost.pendingChanges,
      'the held change',
    );
    manager.send({ type: 'discardConfigChange', id: change.id });
    await until(() => chat.root.engineHost.discardedChanges.length > 0, 'the discarded change');
    manager.send({ type: 'replaySession', sessionId });
    await until(() => stub.state.messages.find((m) => m.message.includes('holds a change that was discarded')), 'the refusal');
    expect(
      manager.ofType<Extract<HostToManager, { type: 'timelineReset' }>>('timelineReset').some((m) => m.sessionId.startsWith('replay-')),
    ).toBe(false);
  });

  it('"Run this hook on this event" test-fires it with the recorded payload; "Replay against today\'s hooks" shows the replay and what differs', async () => {
    const { chat, sessionId, manager } = await recordedSession();
    const first = await until(
      () => manager.ofType<Extract<HostToManager, { type: 'timelineReset' }>>('timelineReset').at(-1),
      'the timeline',
    );
    const run = first.records.find((r) => r.type === 'hook_run' && r.hook_name === 'guard');
    expect(run).toMatchObject({ decision: 'block' });

    manager.send({ type: 'testFireRecord', sessionId, seq: run!.seq });
    const result = await until(
      () => manager.ofType<Extract<HostToManager, { type: 'testResult' }>>('testResult').at(-1),
      'the test result',
    );
    expect(result.result.payload).toContain('rm -rf keep.txt');
    expect(result.result.payload).not.toContain(sessionId);
    expect(result.result).toMatchObject({ status: 'blocking-error', stderr: 'blocked by the guard' });
    expect(manager.ofType<Extract<HostToManager, { type: 'showTab' }>>('showTab').at(-1)).toMatchObject({ tab: 'hooks' });

    // Today's guard lets rm -rf through: the replay says so, the real keep.txt stays.
    await changeGuard(chat, manager, guard('never-matches'));
    manager.send({ type: 'replaySession', sessionId });
    const replay = await until(
      () =>
        manager.ofType<Extract<HostToManager, { type: 'timelineReset' }>>('timelineReset').find((m) => m.sessionId.startsWith('replay-')),
      'the replay timeline',
    );
    expect(replay.records).toContainEqual(expect.objectContaining({ type: 'permission', tool_use_id: 'c1', decision: 'ask' }));
    const info = await until(() => stub.state.messages.find((m) => m.message.includes(`replay of ${sessionId}`)), 'the replay summary');
    expect(info.message).toContain('1 decision(s) differ');
    expect(readFileSync(chat.workspace.file('keep.txt'), 'utf8')).toBe('keep');
  });

  it("a replay's ask is labelled as a replay's, and Cancel on the replay's notification withdraws it and ends the replay", async () => {
    const { chat, sessionId, manager } = await recordedSession();
    await changeGuard(chat, manager, guard('never-matches'));
    stub.state.answerMessage = (shown) => (shown.modal ? new Promise<undefined>(() => undefined) : undefined);
    manager.send({ type: 'replaySession', sessionId });

    const modal = await until(() => modals().find((m) => m.message.startsWith('Replay: ')), 'the replay ask');
    expect(modal.message).toBe('Replay: Hookpilot wants to use Bash');
    const pending = await until(
      () => manager.ofType<Extract<HostToManager, { type: 'approvals' }>>('approvals').find((m) => m.pending.length === 1),
      'the Approvals list',
    );
    expect(pending.pending[0]).toMatchObject({ replay: true, choices: ['allow-once', 'allow-session', 'deny-session', 'deny'] });
    const progress = stub.state.progress.find((p) => p.title?.includes(`replaying ${sessionId}`));
    expect(progress).toMatchObject({ cancellable: true, done: false });
    progress!.cancel();

    const info = await until(
      () => stub.state.messages.find((m) => m.message.includes(`replay of ${sessionId} cancelled`)),
      'the cancel notice',
    );
    expect(info.message).toContain('The timeline shows it as far as it ran');
    expect(progress!.done).toBe(true);
    await until(
      () => manager.ofType<Extract<HostToManager, { type: 'approvals' }>>('approvals').at(-1)?.pending.length === 0,
      'the ask withdrawn',
    );
    expect(readFileSync(chat.workspace.file('keep.txt'), 'utf8')).toBe('keep');
  });
});
