import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stub, Uri } from '../../support/vscode-stub';
import { startHost, until, type HostHarness } from './extension-harness';

// Claude Code's settings files in the extension: trust, the user-only setting, held changes.

const settings = (command: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'opus', hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] }, ...extra }, null, 2);

let h: HostHarness | undefined;
let home: string;
let savedHome: string | undefined;
beforeEach(() => {
  // ~/.claude/settings.json is found from HOME, as os.homedir() does.
  savedHome = process.env.HOME;
  home = mkdtempSync(path.join(tmpdir(), 'hookpilot-home-'));
  process.env.HOME = home;
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  process.env.HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
});

const states = () => h?.root.engineHost.engine.registry.current().states ?? [];
const byCommand = (command: string) => states().find((s) => s.hook.spec.type === 'command' && s.hook.spec.command === command);
const claudeWatcher = () => stub.state.watchers.find((w) => w.pattern === '**/.claude/settings{,.local}.json');

describe('hookpilot.hooks.claudeSettings in VS Code', () => {
  it('loads .claude/settings.json and ~/.claude/settings.json in place; the pick list names the file', async () => {
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(path.join(home, '.claude', 'settings.json'), settings('user-guard'));
    h = await startHost({ '.claude/settings.json': settings('project-guard') });
    expect(byCommand('project-guard')).toMatchObject({
      active: true,
      hook: { source: { kind: 'claudeProject', file: h.workspace.file('.claude/settings.json'), line: 8 } },
    });
    expect(byCommand('user-guard')).toMatchObject({ active: true, hook: { source: { kind: 'claudeUser' } } });
    let offered: { label: string; description?: string }[] = [];
    stub.state.answerQuickPick = (items) => {
      offered = items;
      return undefined;
    };
    await stub.state.commands.get('hookpilot.disableHook')?.();
    expect(offered.map((i) => i.description)).toEqual(
      expect.arrayContaining(['PreToolUse (Bash) · .claude/settings.json', 'PreToolUse (Bash) · ~/.claude/settings.json']),
    );
  });

  it('Restricted Mode: the workspace files contribute nothing; the user file still runs', async () => {
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(path.join(home, '.claude', 'settings.json'), settings('user-guard'));
    h = await startHost(
      {
        '.claude/settings.json': settings('project-guard', { disableAllHooks: true }),
        '.claude/settings.local.json': settings('local-guard'),
      },
      { trusted: false },
    );
    expect(byCommand('project-guard')).toMatchObject({ active: false, inactiveReason: 'untrusted' });
    expect(byCommand('local-guard')).toMatchObject({ active: false, inactiveReason: 'untrusted' });
    expect(byCommand('user-guard')).toMatchObject({ active: true });
  });

  it('only the user setting turns them off; the workspace value is ignored', async () => {
    h = await startHost(
      { '.claude/settings.json': settings('project-guard') },
      { setup: () => stub.setConfig('hookpilot.hooks.claudeSettings', 'off', 'workspaceValue') },
    );
    expect(byCommand('project-guard')?.active).toBe(true);
    stub.setConfig('hookpilot.hooks.claudeSettings', 'off', 'globalValue');
    await h.root.engineHost.reload();
    expect(byCommand('project-guard')).toBeUndefined();
  });

  it('a change on disk outside the editor is held until a person applies it', async () => {
    h = await startHost({ '.claude/settings.json': settings('project-guard') });
    const file = h.workspace.file('.claude/settings.json');
    writeFileSync(file, settings('project-guard', { disableAllHooks: true }));
    claudeWatcher()?.changed.fire(Uri.file(file));
    const [change] = await until(
      () => h!.root.engineHost.pendingChanges.length > 0 && h!.root.engineHost.pendingChanges,
      'the held change',
    );
    expect(change.label).toBe('.claude/settings.json');
    expect(byCommand('project-guard')?.active).toBe(true);
    await h.root.engineHost.applyPending(change.id);
    expect(byCommand('project-guard')?.inactiveReason).toBe('all-disabled');
  });
});
