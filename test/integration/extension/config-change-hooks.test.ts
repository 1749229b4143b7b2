import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostToManager } from '../../../src/shared/manager-protocol';
import { text, toolCalls } from '../../support/model-server';
import { stub, Uri } from '../../support/vscode-stub';
import { hooksJson } from '../../support/workspace';
import { startChat, startHost, until, type ChatHarness, type HostHarness } from './extension-harness';

// A team guards its own guard: a ConfigChange hook committed with the rm guard keeps out any
// change that would remove it, whoever makes it, and whichever way it would apply.

const RM_GUARD = { matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'rm-guard' }] };
const GUARD_SCRIPT = `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (String(input.tool_input.command).includes('rm -rf')) { process.stderr.write('rm -rf is not allowed here'); process.exit(2); }
`;
/** Logs each payload, and blocks (exit 2, or a JSON decision) any content without the rm guard. */
const keepGuardScript = (how: 'exit2' | 'json' | 'crash') => `const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.appendFileSync(require('path').join(input.cwd, 'config-changes.log'), JSON.stringify(input) + '\\n');
${how === 'crash' ? "throw new Error('keep-guard crashed');" : ''}
if (input.new_content === null || !input.new_content.includes('rm-guard')) {
  ${how === 'json' ? "process.stdout.write(JSON.stringify({ decision: 'block', reason: 'the rm guard must stay' }));" : "process.stderr.write('the rm guard must stay'); process.exit(2);"}
}
`;
const keepGuard = (extra: Record<string, unknown> = {}) => ({
  hooks: [{ type: 'command', command: 'node hooks/keep-guard.js', name: 'keep-guard', ...extra }],
});
const TEAM = hooksJson({ PreToolUse: [RM_GUARD], ConfigChange: [keepGuard()] });
const teamFiles = (how: 'exit2' | 'json' | 'crash' = 'exit2', config = TEAM) => ({
  '.vscode/hooks.json': config,
  'hooks/guard.js': GUARD_SCRIPT,
  'hooks/keep-guard.js': keepGuardScript(how),
});
/** The change an attacker (or a careless person) wants: every hook gone. */
const NO_HOOKS = '{"disableAllHooks":true}\n';
/** A change that keeps the guard: a Stop hook added. */
const WITH_STOP = hooksJson({
  PreToolUse: [RM_GUARD],
  ConfigChange: [keepGuard()],
  Stop: [{ hooks: [{ type: 'command', command: 'true', name: 'stop-note' }] }],
});
type PendingConfig = Extract<HostToManager, { type: 'pendingConfig' }>;

let h: HostHarness | ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const activeHook = (name: string) => h?.root.engineHost.engine.registry.current().states.find((s) => s.hook.name === name)?.active === true;
const held = () => h?.root.engineHost.pendingChanges ?? [];
const payloads = (host: HostHarness): Array<Record<string, unknown>> => {
  const log = host.workspace.file('config-changes.log');
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];
};

function saveFromEditor(host: HostHarness, content: string): void {
  const file = host.workspace.file('.vscode/hooks.json');
  stub.saveDocument(file, content);
  stub.state.watchers[0].changed.fire(Uri.file(file));
}

function writeBehindEditor(host: HostHarness, content: string): void {
  const file = host.workspace.file('.vscode/hooks.json');
  writeFileSync(file, content);
  stub.state.watchers[0].changed.fire(Uri.file(file));
}

describe('ConfigChange hooks in VS Code', () => {
  it('a save that keeps the guard applies; the hook saw the source, the file and exactly the saved content', async () => {
    const host = await startHost(teamFiles());
    h = host;
    saveFromEditor(host, WITH_STOP);
    await until(() => activeHook('stop-note'), 'the saved change to apply');
    expect(held()).toEqual([]);
    expect(payloads(host)).toEqual([
      expect.objectContaining({
        hook_event_name: 'ConfigChange',
        source: 'project_settings',
        file_path: path.join(host.workspace.dir, '.vscode', 'hooks.json'),
        new_content: WITH_STOP,
        cwd: host.workspace.dir,
        session_id: expect.any(String),
      }),
    ]);
  });

  it('a save that removes the guard is blocked (exit 2): held with the hook and its reason, the notification says so, the guard stays', async () => {
    const host = await startHost(teamFiles());
    h = host;
    saveFromEditor(host, NO_HOOKS);
    const [change] = await until(() => held().length > 0 && held(), 'the blocked change');
    expect(change.blockedBy).toEqual({ hookName: 'keep-guard', reason: expect.stringContaining('the rm guard must stay') });
    expect(change.newText).toBe(NO_HOOKS);
    expect(activeHook('rm-guard')).toBe(true);
    expect(host.root.engineHost.engine.loadedConfig.switches?.disableWorkspaceHooks).toBeFalsy();
    const shown = await until(
      () => stub.state.messages.find((m) => m.level === 'warning' && m.message.includes('blocked the change')),
      'the notification',
    );
    expect(shown.message).toContain('ConfigChange hook "keep-guard" blocked the change to .vscode/hooks.json: the rm guard must stay');
    expect(shown.items).toEqual(['Review', 'Discard']);
  });

  it('the team guard still runs afterwards: the agent is refused rm -rf after the guard-removing save was blocked', async () => {
    let saved = false;
    const chat = await startChat(
      { ...teamFiles(), 'precious/data.txt': 'keep me\n' },
      async (_request, index) => {
        if (index === 0) {
          // A person saves hooks.json without the guard while the agent works: the team's hook keeps it out.
          saveFromEditor(h!, NO_HOOKS);
          await until(() => h!.root.engineHost.pendingChanges.length > 0, 'the blocked change');
          saved = true;
          return toolCalls([{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf precious' } }]);
        }
        return index === 1 ? text('done') : undefined;
      },
      { setup: () => stub.setConfig('hookpilot.permissionMode', 'bypassPermissions') },
    );
    h = chat;
    await chat.prompt('tidy up');
    expect(saved).toBe(true);
    expect(chat.items().find((i) => i.kind === 'tool' && i.callId === 'wipe')).toMatchObject({ status: 'blocked' });
    expect(existsSync(chat.workspace.file('precious/data.txt'))).toBe(true);
    expect(held()[0].blockedBy?.hookName).toBe('keep-guard');
    // The payload named the chat's session.
    const [payload] = payloads(chat);
    expect(payload.session_id).toBe(chat.root.chat.currentSessionId);
  });

  it('Apply of a held change that removes the guard is blocked by a JSON decision: it stays held under the same id, the Hook Manager says why', async () => {
    const host = await startHost(teamFiles('json'));
    h = host;
    writeBehindEditor(host, NO_HOOKS);
    const [change] = await until(() => held().length > 0 && held(), 'the held change');
    // Holding runs no hook: only a change about to apply is judged.
    expect(payloads(host)).toEqual([]);
    await stub.state.commands.get('hookpilot.openHookManager')?.();
    const manager = stub.state.panels[0].webview;
    manager.send({ type: 'ready' });
    manager.send({ type: 'applyConfigChange', id: change.id });
    const error = await until(
      () => stub.state.messages.find((m) => m.level === 'error' && m.message.includes('blocked the change')),
      'the error',
    );
    expect(error.message).toBe(
      'Hookpilot: ConfigChange hook "keep-guard" blocked the change to .vscode/hooks.json: the rm guard must stay',
    );
    expect(held()).toMatchObject([{ id: change.id, blockedBy: { hookName: 'keep-guard', reason: 'the rm guard must stay' } }]);
    const view = await until(
      () =>
        manager
          .ofType<PendingConfig>('pendingConfig')
          .at(-1)
          ?.changes.find((c) => c.blockedBy),
      'the blocked change in the view',
    );
    expect(view.blockedBy).toEqual({ hookName: 'keep-guard', reason: 'the rm guard must stay' });
    expect(activeHook('rm-guard')).toBe(true);
    expect(payloads(host)).toMatchObject([{ new_content: NO_HOOKS, source: 'project_settings' }]);

    manager.send({ type: 'discardConfigChange', id: change.id });
    await until(() => held().length === 0, 'the discarded change');
    expect(activeHook('rm-guard')).toBe(true);
  });

  it('Apply of a held change the hooks accept applies it', async () => {
    const host = await startHost(teamFiles());
    h = host;
    writeBehindEditor(host, WITH_STOP);
    const [change] = await until(() => held().length > 0 && held(), 'the held change');
    await host.root.engineHost.applyPending(change.id);
    expect(activeHook('stop-note')).toBe(true);
    expect(held()).toEqual([]);
    expect(payloads(host)).toMatchObject([{ new_content: WITH_STOP }]);
  });

  it('a ConfigChange hook that crashes warns and lets the change apply; with onFailure "block" it keeps the change out', async () => {
    const lenient = await startHost(teamFiles('crash'));
    h = lenient;
    saveFromEditor(lenient, NO_HOOKS);
    await until(() => lenient.root.engineHost.engine.loadedConfig.switches?.disableWorkspaceHooks === true, 'the change to apply');
    expect(stub.state.logLines.some((l) => l.level === 'warn' && l.message.includes('ConfigChange hook "keep-guard" failed'))).toBe(true);
    await lenient.close();

    const strict = await startHost(
      teamFiles('crash', hooksJson({ PreToolUse: [RM_GUARD], ConfigChange: [keepGuard({ onFailure: 'block' })] })),
    );
    h = strict;
    saveFromEditor(strict, NO_HOOKS);
    const [change] = await until(() => held().length > 0 && held(), 'the blocked change');
    expect(change.blockedBy).toMatchObject({ hookName: 'keep-guard', reason: expect.stringContaining('hook "keep-guard" failed (error)') });
    expect(activeHook('rm-guard')).toBe(true);
  });

  it('the hooks of the change itself do not judge it: a save that adds a blocking ConfigChange hook applies', async () => {
    const host = await startHost({
      '.vscode/hooks.json': hooksJson({ PreToolUse: [RM_GUARD] }),
      'hooks/guard.js': GUARD_SCRIPT,
      'hooks/keep-guard.js': keepGuardScript('exit2'),
    });
    h = host;
    saveFromEditor(host, TEAM);
    await until(() => activeHook('keep-guard'), 'the new ConfigChange hook to apply');
    expect(payloads(host)).toEqual([]);
    // From now on it judges: removing the guard is kept out.
    saveFromEditor(host, NO_HOOKS);
    await until(() => held()[0]?.blockedBy?.hookName === 'keep-guard', 'the blocked change');
  });

  it('a change of the user settings fires ConfigChange as user_settings; they apply live, so a block is reported, not obeyed', async () => {
    const host = await startHost(teamFiles());
    h = host;
    stub.setConfig('hookpilot.hooks', { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true', name: 'user-stop' }] }] } });
    await until(() => activeHook('user-stop'), 'the user hook to apply');
    const [payload] = await until(() => payloads(host).length > 0 && payloads(host), 'the ConfigChange run');
    expect(payload).toMatchObject({ source: 'user_settings', new_content: expect.stringContaining('user-stop') });
    const told = await until(() => stub.state.messages.find((m) => m.message.includes('It applies live in VS Code')), 'the warning');
    expect(told.message).toBe(
      'Hookpilot: ConfigChange hook "keep-guard" blocked the change to your user settings: the rm guard must stay. It applies live in VS Code, so the change applied anyway.',
    );
    expect(held()).toEqual([]);
  });

  it('a ConfigChange hook whose script the agent rewrote does not run, and blocks: the guard cannot be neutered through its script', async () => {
    const host = await startHost(teamFiles());
    h = host;
    // The agent (through Bash) turns the team's ConfigChange hook into one that lets everything through.
    writeFileSync(host.workspace.file('hooks/keep-guard.js'), 'process.exit(0);\n');
    saveFromEditor(host, NO_HOOKS);
    const [change] = await until(() => held().length > 0 && held(), 'the blocked change');
    expect(change.blockedBy).toMatchObject({
      hookName: 'keep-guard',
      reason: expect.stringContaining('script changed since it was approved'),
    });
    expect(activeHook('rm-guard')).toBe(true);
    expect(host.root.engineHost.engine.loadedConfig.switches?.disableWorkspaceHooks).toBeFalsy();
  });
});
