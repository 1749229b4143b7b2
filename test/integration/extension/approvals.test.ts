import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPLAY_SESSION_PREFIX } from '../../../src/core/audit/session-kinds';
import { DiffPreviews } from '../../../src/extension/diff-previews';
import { ModalApprover } from '../../../src/extension/modal-approver';
import { PendingApprovals } from '../../../src/extension/pending-approvals';
import type { HostToManager } from '../../../src/shared/manager-protocol';
import { text, toolCalls } from '../../support/model-server';
import { stub, Uri, type MessageItemLike, type ShownMessage } from '../../support/vscode-stub';
import { hooksJson } from '../../support/workspace';
import { modals, startChat, until, type ChatHarness } from './extension-harness';
import { approvalRequest } from '../../support/approval-fixtures';

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  stub.reset();
});

const bash = (command: string, id = 'call_1') => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
const pick = (shown: ShownMessage, title: string) =>
  shown.items.find((i): i is MessageItemLike => typeof i !== 'string' && i.title === title);

const request = approvalRequest;

/** A fresh fake VS Code with the extension's approver over a new pending list. */
function modalApprover(): { pending: PendingApprovals; approver: ModalApprover } {
  stub.reset();
  const pending = new PendingApprovals();
  return {
    pending,
    approver: new ModalApprover(
      pending,
      new DiffPreviews((text) => text),
      () => '/tmp',
      () => 60_000,
    ),
  };
}

/** Modals stay open until the returned function closes the last one (dismissed). */
function holdModals(): () => void {
  let release: () => void = () => undefined;
  stub.state.answerMessage = () => new Promise((resolve) => (release = () => resolve(undefined)));
  return () => release();
}

describe('PendingApprovals and the modal', () => {
  it('the modal names the tool, the input and who asked, with Allow… / Deny buttons', async () => {
    const { pending, approver } = modalApprover();
    stub.state.answerMessage = (shown) => pick(shown, 'Allow for this session');
    const answer = await approver.request(request(), new AbortController().signal);
    expect(answer).toEqual({ choice: 'allow-session', by: 'user' });
    const [modal] = modals();
    expect(modal.message).toBe('Hookpilot wants to use Bash');
    expect(modal.detail).toContain('Run: npm test');
    expect(modal.detail).toContain('Asked by default mode: Bash needs approval in default mode');
    expect(modal.items.map((i) => (typeof i === 'string' ? i : i.title))).toEqual([
      'Allow once',
      'Allow for this session',
      'Always allow in this workspace',
      'Deny for this session',
      'Deny',
    ]);
    expect(pending.size).toBe(0);
    expect(pending.answer('call_9', 'deny', 'user (Hook Manager)')).toBe(false);
  });

  it("the first answer wins: the Hook Manager answers while the modal is open, the modal's late answer is ignored", async () => {
    const { pending, approver } = modalApprover();
    let release: () => void = () => undefined;
    stub.state.answerMessage = (shown) => new Promise((resolve) => (release = () => resolve(pick(shown, 'Allow once'))));
    const answer = approver.request(request(), new AbortController().signal);
    await until(() => modals().length === 1, 'the modal');
    expect(pending.list().map((p) => p.request.id)).toEqual(['call_9']);

    expect(pending.answer('call_9', 'deny', 'user (Hook Manager)')).toBe(true);
    release();
    expect(await answer).toEqual({ choice: 'deny', by: 'user (Hook Manager)', reason: 'the user denied this call' });
    expect(pending.size).toBe(0);
  });

  it('a system ask offers only Allow once and the denials, and no answer can widen it', async () => {
    const { pending, approver } = modalApprover();
    const release = holdModals();
    const answer = approver.request(request({ system: true }), new AbortController().signal);
    await until(() => modals().length === 1, 'the modal');
    expect(modals()[0].items.map((i) => (typeof i === 'string' ? i : i.title))).toEqual(['Allow once', 'Deny for this session', 'Deny']);
    pending.answer('call_9', 'allow-always', 'user (chat)');
    release();
    expect(await answer).toEqual({ choice: 'allow-once', by: 'user (chat)' });

    const denied = pending.add(request({ system: true }), new AbortController().signal, 60_000);
    pending.answer('call_9', 'deny-session', 'user (chat)');
    expect(await denied).toEqual({ choice: 'deny-session', by: 'user (chat)', reason: 'the user denied this call' });
  });

  it("a replay's ask says so, offers no Always allow, and no answer widens it past the replay's session", async () => {
    const { pending, approver } = modalApprover();
    const release = holdModals();
    const answer = approver.request(request({ sessionId: `${REPLAY_SESSION_PREFIX}1` }), new AbortController().signal);
    await until(() => modals().length === 1, 'the modal');
    const [modal] = modals();
    expect(modal.message).toBe('Replay: Hookpilot wants to use Bash');
    expect(modal.detail).toContain('A replay of a recorded session asks this, in a scratch copy of the workspace');
    expect(modal.items.map((i) => (typeof i === 'string' ? i : i.title))).toEqual([
      'Allow once',
      'Allow for this session',
      'Deny for this session',
      'Deny',
    ]);
    pending.answer('call_9', 'allow-always', 'user (Hook Manager)');
    release();
    expect(await answer).toEqual({ choice: 'allow-session', by: 'user (Hook Manager)' });
  });

  it('a second ask under a pending call id is denied at once; the first stays and is answered', async () => {
    const { pending } = modalApprover();
    const first = pending.add(request(), new AbortController().signal, 60_000);
    const second = await pending.add(
      request({ sessionId: `${REPLAY_SESSION_PREFIX}1`, summary: 'Run: rm -rf /' }),
      new AbortController().signal,
      60_000,
    );
    expect(second).toEqual({ choice: 'deny', by: 'duplicate', reason: 'another approval for tool call call_9 is waiting' });
    expect(pending.list().map((p) => p.request.summary)).toEqual(['Run: npm test']);
    expect(pending.answer('call_9', 'allow-once', 'user')).toBe(true);
    expect(await first).toEqual({ choice: 'allow-once', by: 'user' });
  });

  it('an aborted request (timeout or cancel) leaves the list', async () => {
    stub.reset();
    const pending = new PendingApprovals();
    const controller = new AbortController();
    const answer = pending.add(request(), controller.signal, 60_000);
    expect(pending.size).toBe(1);
    controller.abort();
    expect(await answer).toMatchObject({ choice: 'deny', by: 'cancel' });
    expect(pending.size).toBe(0);
  });

  it('no answer within the timeout is a deny marked as a timeout', async () => {
    stub.reset();
    const pending = new PendingApprovals();
    const answer = pending.add(request(), new AbortController().signal, 50);
    expect(await answer).toEqual({ choice: 'deny', by: 'timeout', reason: 'no answer within 50 ms', timedOut: true });
    expect(pending.size).toBe(0);
    expect(pending.answer('call_9', 'allow-once', 'user')).toBe(false);
  });
});

describe('approvals in a chat', () => {
  it('the Hook Manager lists the pending request and its answer wins over the modal', async () => {
    h = await startChat({}, [bash('echo hi > out.txt'), text('done')]);
    let release: () => void = () => undefined;
    stub.state.answerMessage = (shown) =>
      shown.modal ? new Promise((resolve) => (release = () => resolve(pick(shown, 'Allow once')))) : undefined;
    await stub.state.commands.get('hookpilot.openHookManager')?.();
    const manager = stub.state.panels[0];
    expect(manager.title).toBe('Hookpilot Hook Manager');
    manager.webview.send({ type: 'ready' });

    h.webview.send({ type: 'send', text: 'write out.txt' });
    const listed = await until(
      () => manager.webview.ofType<Extract<HostToManager, { type: 'approvals' }>>('approvals').find((m) => m.pending.length === 1),
      'the approval in the Hook Manager',
    );
    expect(listed.pending[0]).toMatchObject({
      id: 'call_1',
      toolName: 'Bash',
      subject: 'Run: echo hi > out.txt',
      suggestedRule: 'Bash(echo hi)',
      system: false,
    });
    manager.webview.send({ type: 'answerApproval', id: 'call_1', key: listed.pending[0].key, choice: 'deny' });
    await until(() => h?.items().some((i) => i.kind === 'turn-end'), 'the end of the turn');
    release();

    const card = h.items().find((i) => i.kind === 'tool');
    expect(card).toMatchObject({ status: 'denied', approvalOutcome: { decision: 'deny', by: 'user (Hook Manager)' } });
    expect(existsSync(h.workspace.file('out.txt'))).toBe(false);
    expect(manager.webview.ofType<Extract<HostToManager, { type: 'approvals' }>>('approvals').at(-1)?.pending).toEqual([]);
  });

  it('no answer within hookpilot.approvalTimeoutSeconds denies, and PermissionDenied fires with source Timeout', async () => {
    const recorder = `const fs = require('fs'); fs.writeFileSync('denied.json', fs.readFileSync(0, 'utf8'));`;
    h = await startChat(
      {
        'hooks/record.js': recorder,
        '.vscode/hooks.json': hooksJson({
          PermissionDenied: [{ hooks: [{ type: 'command', command: 'node hooks/record.js', name: 'record' }] }],
        }),
      },
      [bash('echo hi > out.txt'), text('ok')],
      { setup: () => stub.setConfig('hookpilot.approvalTimeoutSeconds', 0.3) },
    );
    stub.state.answerMessage = (shown) => (shown.modal ? new Promise(() => undefined) : undefined);
    await h.prompt('write out.txt');

    expect(h.items().find((i) => i.kind === 'tool')).toMatchObject({
      status: 'denied',
      approvalOutcome: { decision: 'deny', by: 'timeout' },
    });
    expect(existsSync(h.workspace.file('out.txt'))).toBe(false);
    const denied = JSON.parse(
      await until(
        () => existsSync(h?.workspace.file('denied.json') ?? '') && readFileSync(h?.workspace.file('denied.json') ?? '', 'utf8'),
        'the PermissionDenied hook',
      ),
    ) as Record<string, unknown>;
    expect(denied).toMatchObject({ hook_event_name: 'PermissionDenied', tool_name: 'Bash', source: 'Timeout' });
    expect(h.root.pending.size).toBe(0);
  });

  it('an approvalTimeoutSeconds past what a timer holds still waits for the person', async () => {
    h = await startChat({}, [bash('echo hi > out.txt'), text('ok')], {
      setup: () => stub.setConfig('hookpilot.approvalTimeoutSeconds', 30 * 86_400),
    });
    // Answered a moment later: an overflowed timer would have denied within 1 ms.
    stub.state.answerMessage = (shown) =>
      shown.modal ? new Promise((resolve) => setTimeout(() => resolve(pick(shown, 'Allow once')), 100)) : undefined;
    await h.prompt('write out.txt');
    expect(h.items().find((i) => i.kind === 'tool')).toMatchObject({ status: 'executed' });
    expect(readFileSync(h.workspace.file('out.txt'), 'utf8').trim()).toBe('hi');
  });

  it('"Always allow in this workspace" writes the rule into the workspace settings', async () => {
    h = await startChat({}, [bash('echo hi > out.txt'), text('done')]);
    stub.state.answerMessage = (shown) => (shown.modal ? pick(shown, 'Always allow in this workspace') : undefined);
    await h.prompt('write out.txt');
    expect(readFileSync(h.workspace.file('out.txt'), 'utf8').trim()).toBe('hi');
    expect(stub.state.config.get('hookpilot.permissions')?.workspaceValue).toEqual({ allow: ['Bash(echo hi)'] });
    expect(stub.state.config.get('hookpilot.permissions')?.globalValue).toBeUndefined();
  });

  it('"Always allow in this workspace" never writes through a .vscode link a repository shipped', async () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'hookpilot-user-settings-'));
    try {
      h = await startChat({}, [bash('echo hi > out.txt'), text('done')]);
      symlinkSync(elsewhere, h.workspace.file('.vscode'));
      stub.state.answerMessage = (shown) => (shown.modal ? pick(shown, 'Always allow in this workspace') : undefined);
      await h.prompt('write out.txt');
      await until(() => stub.state.messages.some((m) => !m.modal && m.message.includes('is a link')), 'the error');
      expect(stub.state.config.get('hookpilot.permissions')?.workspaceValue).toBeUndefined();
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('"Show Diff" opens current vs proposed from an in-memory document, then asks again', async () => {
    const edit = toolCalls([
      { id: 'call_e', name: 'Edit', arguments: { file_path: 'src/a.ts', old_string: 'answer = 41', new_string: 'answer = 42' } },
    ]);
    h = await startChat({ 'src/a.ts': 'export const answer = 41;\n' }, [edit, text('edited')]);
    const answers = ['Show Diff', 'Allow once'];
    stub.state.answerMessage = (shown) => (shown.modal ? pick(shown, answers.shift() ?? 'Deny') : undefined);
    await h.prompt('fix the answer');

    expect(modals()).toHaveLength(2);
    expect(modals()[0].items.map((i) => (typeof i === 'string' ? i : i.title))).toContain('Show Diff');
    const diff = stub.state.executed.find((c) => c.id === 'vscode.diff');
    const [left, right, title] = diff?.args as [Uri, Uri, string];
    expect(left.scheme).toBe('hookpilot-diff');
    expect(title).toBe('a.ts: current ↔ proposed (Hookpilot)');
    const provider = stub.state.contentProviders.get('hookpilot-diff');
    expect(provider?.provideTextDocumentContent(left)).toBe('export const answer = 41;\n');
    expect(provider?.provideTextDocumentContent(right)).toBe('export const answer = 42;\n');
    expect(`${left.toString()}${right.toString()}`).not.toContain('answer');
    expect(readFileSync(h.workspace.file('src/a.ts'), 'utf8')).toBe('export const answer = 42;\n');

    h.webview.send({ type: 'showDiff', id: 'call_e' });
    await until(() => stub.state.executed.filter((c) => c.id === 'vscode.diff').length === 2, 'the before/after diff');
    const [before, after] = stub.state.executed.filter((c) => c.id === 'vscode.diff')[1].args as [Uri, Uri];
    expect(provider?.provideTextDocumentContent(before)).toBe('export const answer = 41;\n');
    expect(after.fsPath).toBe(h.workspace.file('src/a.ts'));
  });

  it('a pending Write: the chat card and the Hook Manager name the rule a wider answer adds, and show the change before it is answered', async () => {
    const write = toolCalls([{ id: 'call_w', name: 'Write', arguments: { file_path: 'notes.md', content: '# notes\n' } }]);
    h = await startChat({}, [write, text('done')]);
    // The modal stays open: the person answers on the chat card.
    stub.state.answerMessage = (shown) => (shown.modal ? new Promise(() => undefined) : undefined);
    await stub.state.commands.get('hookpilot.openHookManager')?.();
    const manager = stub.state.panels[0];
    manager.webview.send({ type: 'ready' });
    h.webview.send({ type: 'send', text: 'take notes' });
    const card = await until(
      () => h!.items().find((i) => i.kind === 'tool' && i.callId === 'call_w' && i.approval),
      'the card asking about notes.md',
    );
    expect(card).toMatchObject({ approval: { rule: 'Write', proposedDiff: true }, diffAvailable: false });
    const listed = await until(
      () => manager.webview.ofType<Extract<HostToManager, { type: 'approvals' }>>('approvals').find((m) => m.pending.length === 1),
      'the approval in the Hook Manager',
    );
    expect(listed.pending[0]).toMatchObject({ suggestedRule: 'Write', proposedDiff: true });

    const provider = () => stub.state.contentProviders.get('hookpilot-diff');
    const diffs = () => stub.state.executed.filter((c) => c.id === 'vscode.diff');
    h.webview.send({ type: 'showDiff', id: 'call_w' });
    manager.webview.send({ type: 'showDiff', id: 'call_w' });
    await until(() => diffs().length === 2, 'both proposed diffs');
    for (const diff of diffs()) expect(provider()?.provideTextDocumentContent((diff.args as Uri[])[1])).toBe('# notes\n');
    expect(existsSync(h.workspace.file('notes.md'))).toBe(false);

    h.webview.send({ type: 'answerApproval', id: 'call_w', askId: listed.pending[0].key, choice: 'deny' });
    await until(() => h?.items().some((i) => i.kind === 'turn-end'), 'the end of the turn');
  });

  it('a notification never carries a link the model wrote: a file named [x](command:...) stays text', async () => {
    const link = '[see the proposed diff](command:workbench.extensions.installExtension?%5B%22attacker.evil%22%5D)';
    const edit = toolCalls([{ id: 'call_l', name: 'Edit', arguments: { file_path: `notes/${link}`, old_string: 'x', new_string: 'y' } }]);
    h = await startChat({ 'notes/.keep': '' }, [edit, text('done')]);
    const answers = ['Show Diff', 'Deny'];
    stub.state.answerMessage = (shown) => (shown.modal ? pick(shown, answers.shift() ?? 'Deny') : undefined);
    await h.prompt('edit the notes');

    const warning = stub.state.messages.find((m) => !m.modal && m.message.includes('does not apply'));
    expect(warning?.message).toContain('[see the proposed diff] (command:');
    // VS Code's notification links: `[label](target)`, the bracket and parenthesis adjacent.
    expect(stub.state.messages.filter((m) => !m.modal).map((m) => m.message)).not.toContainEqual(expect.stringMatching(/\]\(/));
  });

  it('Show Diff on a file the model made a FIFO does not hold the extension host', async () => {
    const edit = toolCalls([{ id: 'call_f', name: 'Edit', arguments: { file_path: 'pipe.txt', old_string: 'x', new_string: 'y' } }]);
    h = await startChat({}, [edit, text('done')]);
    execFileSync('mkfifo', [h.workspace.file('pipe.txt')]);
    const answers = ['Show Diff', 'Deny'];
    stub.state.answerMessage = (shown) => (shown.modal ? pick(shown, answers.shift() ?? 'Deny') : undefined);
    await h.prompt('edit the pipe');
    expect(stub.state.messages.some((m) => !m.modal && m.message.includes('cannot preview the Edit of pipe.txt'))).toBe(true);
    expect(h.items().find((i) => i.kind === 'tool')).toMatchObject({ status: 'denied' });
  });
});

describe('Show Diff shows what the file tool writes', () => {
  /** The person asks for the diff, then allows the call. */
  function showDiffThenAllow(): void {
    const answers = ['Show Diff', 'Allow once'];
    stub.state.answerMessage = (shown) => (shown.modal ? pick(shown, answers.shift() ?? 'Deny') : undefined);
  }

  /** The two sides of the first current ↔ proposed diff opened. */
  function proposedDiff(): { current: string; proposed: string } | undefined {
    const diff = stub.state.executed.find((c) => c.id === 'vscode.diff');
    if (!diff) return undefined;
    const [left, right] = diff.args as [Uri, Uri];
    const provider = stub.state.contentProviders.get('hookpilot-diff');
    return { current: provider!.provideTextDocumentContent(left), proposed: provider!.provideTextDocumentContent(right) };
  }

  const warnings = () => stub.state.messages.filter((m) => !m.modal).map((m) => m.message);
  /** Over the 2 MiB the preview once read, under the 5 MiB Write and Edit rewrite. */
  const threeMiB = `${'// generated table, keep\n'.repeat((3 * 1024 * 1024) / 25)}export const checks = true;\n`;

  it('an Edit written with \\n on a CRLF file: the diff shows the CRLF file Edit writes', async () => {
    const original = 'const mode = "safe";\r\nconst checks = true;\r\nexport {};\r\n';
    const input = {
      file_path: 'src/config.ts',
      old_string: 'mode = "safe";\nconst checks = true;',
      new_string: 'mode = "unsafe";\nconst checks = false;',
    };
    h = await startChat({ 'src/config.ts': original }, [toolCalls([{ id: 'call_crlf', name: 'Edit', arguments: input }]), text('done')]);
    showDiffThenAllow();
    await h.prompt('tweak the config');

    const written = readFileSync(h.workspace.file('src/config.ts'), 'utf8');
    expect(written).toBe('const mode = "unsafe";\r\nconst checks = false;\r\nexport {};\r\n');
    expect({ warnings: warnings(), diff: proposedDiff() }).toEqual({ warnings: [], diff: { current: original, proposed: written } });
  }, 60_000);

  it('a Write over a 3 MiB file: the diff shows the file it replaces, not an empty one', async () => {
    const content = 'export const checks = false;\n';
    const write = toolCalls([{ id: 'call_big', name: 'Write', arguments: { file_path: 'src/table.ts', content } }]);
    h = await startChat({ 'src/table.ts': threeMiB }, [write, text('done')]);
    showDiffThenAllow();
    await h.prompt('rewrite the table');

    expect(readFileSync(h.workspace.file('src/table.ts'), 'utf8')).toBe(content);
    expect(proposedDiff()).toEqual({ current: threeMiB, proposed: content });
  }, 60_000);

  it('an Edit of a 3 MiB file: the diff shows the edit it applies, not "does not apply"', async () => {
    const input = { file_path: 'src/table.ts', old_string: 'checks = true', new_string: 'checks = false' };
    h = await startChat({ 'src/table.ts': threeMiB }, [toolCalls([{ id: 'call_big', name: 'Edit', arguments: input }]), text('done')]);
    showDiffThenAllow();
    await h.prompt('flip the check');

    const written = readFileSync(h.workspace.file('src/table.ts'), 'utf8');
    expect(written).toBe(threeMiB.replace('checks = true', 'checks = false'));
    expect(warnings()).toEqual([]);
    expect(proposedDiff()).toEqual({ current: threeMiB, proposed: written });
  }, 60_000);

  it('the before ↔ after diff of a file too large to keep a copy of says so, not that it was empty', async () => {
    const write = toolCalls([{ id: 'call_big', name: 'Write', arguments: { file_path: 'src/table.ts', content: 'x\n' } }]);
    h = await startChat({ 'src/table.ts': threeMiB }, [write, text('done')]);
    stub.state.answerMessage = (shown) => (shown.modal ? pick(shown, 'Allow once') : undefined);
    await h.prompt('rewrite the table');

    h.webview.send({ type: 'showDiff', id: 'call_big' });
    await until(() => warnings().length > 0, 'the warning');
    expect(warnings()).toEqual([
      `Hookpilot: no diff of table.ts: its content before the call was not kept: it is ${threeMiB.length} bytes, over the 2097152 read.`,
    ]);
    expect(proposedDiff()).toBeUndefined();
  }, 60_000);

  it('a Write over a file it cannot read says it cannot preview it, not that the file is empty', async () => {
    const write = toolCalls([{ id: 'call_bin', name: 'Write', arguments: { file_path: 'logo.png', content: 'x' } }]);
    h = await startChat({ 'logo.png': '\x89PNG\0\x01' }, [write, text('done')]);
    const answers = ['Show Diff', 'Deny'];
    stub.state.answerMessage = (shown) => (shown.modal ? pick(shown, answers.shift() ?? 'Deny') : undefined);
    await h.prompt('replace the logo');

    expect(proposedDiff()).toBeUndefined();
    expect(warnings()).toEqual(['Hookpilot: cannot preview the Write of logo.png: it is a binary file.']);
  }, 60_000);
});
