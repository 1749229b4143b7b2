import { afterEach, describe, expect, it } from 'vitest';
import { stub } from '../../support/vscode-stub';
import { startHost, type HostHarness } from './extension-harness';

const HOOKS = JSON.stringify({
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true', name: 'guard' }] }],
    PostToolUse: [{ hooks: [{ type: 'command', command: 'true', name: 'formatter' }] }],
  },
});

let h: HostHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const stateOf = (name: string) => h?.root.engineHost.engine.registry.current().states.find((s) => s.hook.name === name);
const run = (command: string) => stub.state.commands.get(command)?.();

describe('Enable Hook… / Disable Hook…', () => {
  it('Disable Hook… lists enabled hooks with event and source, turns the picked one off and keeps that in workspace state', async () => {
    h = await startHost({ '.vscode/hooks.json': HOOKS });
    let offered: { label: string; description?: string }[] = [];
    stub.state.answerQuickPick = (items) => {
      offered = items;
      return 'guard';
    };
    await run('hookpilot.disableHook');

    expect(offered.map((i) => i.label)).toEqual(expect.arrayContaining(['guard', 'formatter']));
    expect(offered.find((i) => i.label === 'guard')?.description).toBe('PreToolUse (Bash) · .vscode/hooks.json');
    expect(stateOf('guard')).toMatchObject({ enabled: false, active: false, inactiveReason: 'disabled' });
    expect(stateOf('formatter')).toMatchObject({ enabled: true, active: true });
    const id = stateOf('guard')?.hook.id ?? '';
    expect(h.context.workspaceState.get<Record<string, boolean>>('hookpilot.enabledOverrides')).toEqual({ [id]: false });
    expect(stub.state.statusBarItems[0].text).toContain('1 hook');
  });

  it('the choice survives a reload of the window and a reload of the hooks', async () => {
    h = await startHost({ '.vscode/hooks.json': HOOKS });
    stub.state.answerQuickPick = () => 'formatter';
    await run('hookpilot.disableHook');
    await h.restart();
    expect(stateOf('formatter')).toMatchObject({ enabled: false, active: false });
    await run('hookpilot.reloadHooks');
    expect(stateOf('formatter')).toMatchObject({ enabled: false });

    let offered: string[] = [];
    stub.state.answerQuickPick = (items) => {
      offered = items.map((i) => i.label);
      return 'formatter';
    };
    await run('hookpilot.enableHook');
    expect(offered).toEqual(['formatter']);
    expect(stateOf('formatter')).toMatchObject({ enabled: true, active: true });
    await h.restart();
    expect(stateOf('formatter')).toMatchObject({ enabled: true, active: true });
  });

  it('a dismissed quick pick changes nothing; with nothing to enable the user is told so', async () => {
    h = await startHost({ '.vscode/hooks.json': HOOKS });
    await run('hookpilot.disableHook');
    expect(stateOf('guard')?.enabled).toBe(true);
    expect(h.context.workspaceState.get('hookpilot.enabledOverrides')).toBeUndefined();
    const before = stub.state.messages.length;
    stub.state.answerQuickPick = () => {
      throw new Error('no quick pick expected');
    };
    await run('hookpilot.enableHook');
    expect(stub.state.messages.slice(before).map((m) => m.message)).toEqual(['Hookpilot: every hook is already enabled.']);
  });

  it('Toggle All Hooks turns every configured hook off and on, leaving the built-ins alone', async () => {
    h = await startHost({ '.vscode/hooks.json': HOOKS });
    await run('hookpilot.toggleAllHooks');
    const configured = () => h?.root.engineHost.configuredStates() ?? [];
    expect(configured().map((s) => s.enabled)).toEqual([false, false]);
    // AutoCommit stays off until hookpilot.builtins turns it on.
    const builtins = h.root.engineHost.engine.registry
      .current()
      .states.filter((s) => s.hook.source.kind === 'builtin' && s.hook.name !== 'AutoCommit');
    expect(builtins.length).toBeGreaterThan(0);
    expect(builtins.every((s) => s.active)).toBe(true);
    expect(stub.state.statusBarItems[0].text).toContain('0 hooks');
    await h.restart();
    expect(configured().map((s) => s.enabled)).toEqual([false, false]);
    await run('hookpilot.toggleAllHooks');
    expect(configured().map((s) => s.active)).toEqual([true, true]);
  });
});
