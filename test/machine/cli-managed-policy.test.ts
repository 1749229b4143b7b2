import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, startTestbed, toolMessageSent, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { useManagedPolicyFile } from '../support/managed-policy-file';
import { text, toolCalls } from '../support/model-server';
import { stub } from '../support/vscode-stub';
import { hooksJson } from '../support/workspace';
import { startHost, type HostHarness } from '../integration/extension/extension-harness';

// The machine's managed policy at its real place (/etc/hookpilot/managed-settings.json here):
// only this file writes it, one test at a time, and never leaves it behind. It runs in a suite
// of its own after the others (vitest.machine.config.mts): a policy that turns every other
// source off must not meet another test's hooks.

const policy = useManagedPolicyFile();
const bundle = useCliBundle();
let bed: Testbed | undefined;
let host: HostHarness | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  await host?.close();
  host = undefined;
});

const TOKEN = 'hp-managed-policy-test';
/** What the policy's deny rule names (not the guard's token, which would block first). */
const DENIED = 'hp-managed-deny-test';
/** The policy's guard: exit 2 for a Bash command carrying the token. */
const MANAGED_GUARD = {
  type: 'command',
  command: `node -e "const i=JSON.parse(require('fs').readFileSync(0,'utf8'));if((i.tool_input.command||'').includes('${TOKEN}')){process.stderr.write('blocked by policy');process.exit(2)}"`,
};
const managedHooks = (extra: Record<string, unknown> = {}) => ({
  hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [MANAGED_GUARD] }] },
  ...extra,
});
const mark = (name: string) => `node -e "require('fs').writeFileSync('${name}', '')"`;

describe.sequential('the managed policy through hookpilot run', () => {
  it('its hook runs whatever the workspace and user turn off, and its deny rules beat every allow', async () => {
    bed = await startTestbed(
      bundle.bundle,
      {
        '.vscode/hooks.json': hooksJson(
          { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: mark('ws-hook-ran') }] }] },
          { disableAllHooks: true },
        ),
      },
      [
        toolCalls([{ id: 'guarded', name: 'Bash', arguments: { command: `echo ${TOKEN}` } }]),
        toolCalls([{ id: 'denied', name: 'Bash', arguments: { command: `curl ${DENIED}.invalid` } }]),
        text('done'),
      ],
    );
    policy.write(managedHooks({ permissions: { deny: [`Bash(curl ${DENIED}*)`] } }));
    const list = JSON.parse((await bed.cli(['hooks', 'list', '--json'])).stdout) as Array<{
      source: { kind: string; location: string };
      locked: boolean;
      active: boolean;
      inactive_reason: string | null;
    }>;
    expect(list.filter((h) => h.source.kind === 'managed')).toMatchObject([
      { locked: true, active: true, source: { location: '/etc/hookpilot/managed-settings.json:7' } },
    ]);
    expect(list.find((h) => h.source.kind === 'hooksJson')).toMatchObject({ active: false, inactive_reason: 'all-disabled' });
    expect((await bed.cli(['hooks', 'list'])).stdout).toMatch(/managed: \/etc\/hookpilot\/managed-settings\.json:7 +active, locked/);

    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--allowed-tools', 'Bash(curl *)', '--output-format', 'json']);
    policy.remove();
    expect(Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]))).toEqual({ guarded: 'blocked', denied: 'denied' });
    expect(toolMessageSent(bed.server, 'guarded')).toContain('blocked by policy');
    expect(existsSync(bed.workspace.file('ws-hook-ran'))).toBe(false);
  });

  it('allowManagedHooksOnly: the workspace and user hooks are listed off and do not run', async () => {
    bed = await startTestbed(
      bundle.bundle,
      {
        '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: mark('ws-hook-ran') }] }] }),
      },
      [toolCalls([{ id: 'ls', name: 'Bash', arguments: { command: 'ls' } }]), text('done')],
    );
    policy.write(managedHooks({ allowManagedHooksOnly: true }));
    const list = JSON.parse((await bed.cli(['hooks', 'list', '--json'])).stdout) as Array<{
      source: { kind: string };
      inactive_reason: string | null;
    }>;
    const r = await bed.run(['look', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    policy.remove();
    expect(list.find((h) => h.source.kind === 'hooksJson')).toMatchObject({ inactive_reason: 'managed-only' });
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    expect(existsSync(bed.workspace.file('ws-hook-ran'))).toBe(false);
    // Without the policy the same workspace hook runs: the test above is not vacuous.
    const again = await bed.cli(['hooks', 'list', '--json']);
    expect(
      (JSON.parse(again.stdout) as Array<{ source: { kind: string }; active: boolean }>).find((h) => h.source.kind === 'hooksJson')?.active,
    ).toBe(true);
  });

  it('a policy others could write is no policy: ignored, with an error that says why', async () => {
    bed = await startTestbed(bundle.bundle, {}, [
      toolCalls([{ id: 'guarded', name: 'Bash', arguments: { command: `echo ${TOKEN}` } }]),
      text('done'),
    ]);
    policy.write(managedHooks({ allowManagedHooksOnly: true }), 0o666);
    const list = await bed.cli(['hooks', 'list', '--json']);
    const validate = await bed.cli(['hooks', 'validate']);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    policy.remove();
    expect((JSON.parse(list.stdout) as Array<{ source: { kind: string } }>).some((h) => h.source.kind === 'managed')).toBe(false);
    expect(validate.stdout + validate.stderr).toContain(
      'The managed policy is ignored: /etc/hookpilot/managed-settings.json is writable by group or others (mode 666)',
    );
    expect(r.stderr).toContain('The managed policy is ignored');
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
  });
});

describe.sequential('the managed policy in VS Code', () => {
  it('its hook is locked: untrusted workspace or not, no command, toggle or Toggle All turns it off', async () => {
    policy.write(managedHooks());
    host = await startHost(
      { '.vscode/hooks.json': hooksJson({ Stop: [{ hooks: [{ type: 'command', command: 'true', name: 'ws-stop' }] }] }) },
      { trusted: false },
    );
    const managed = () => host?.root.engineHost.engine.registry.current().states.find((s) => s.hook.source.kind === 'managed');
    expect(managed()).toMatchObject({ locked: true, active: true, trusted: true });
    let offered: { label: string; description?: string }[] = [];
    stub.state.answerQuickPick = (items) => {
      offered = items;
      return undefined;
    };
    await stub.state.commands.get('hookpilot.disableHook')?.();
    const descriptions = offered.map((i) => i.description ?? '');
    expect(descriptions).toContain('Stop · .vscode/hooks.json');
    expect(descriptions.some((d) => d.includes('managed'))).toBe(false);
    const id = managed()!.hook.id;
    await expect(Promise.resolve().then(() => host?.root.engineHost.setEnabled(id, false))).rejects.toThrow(/managed policy/);
    await host.root.engineHost.setAllEnabled(false);
    expect(managed()).toMatchObject({ enabled: true, active: true });
    policy.remove();
    await host.root.engineHost.reload();
    expect(managed()).toBeUndefined();
  });
});
