import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileRules } from '../../src/core/agent/permissions/rule-signals';
import { claudeSettingsFiles, claudeSettingsMode, readClaudeSettingsConfigs } from '../../src/core/hooks/config/claude-settings';
import { loadHooksDocument, loadHooksValue } from '../../src/core/hooks/config/config-loader';
import { readManagedPolicy } from '../../src/core/hooks/config/managed-policy';
import { mergeConfigs } from '../../src/core/hooks/config/merge-configs';
import { loadWorkspaceConfigs } from '../../src/core/hooks/config/workspace-config-files';
import { HookRegistry } from '../../src/core/hooks/registry';
import type { LoadedConfig } from '../../src/core/hooks/config/loaded-config';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(parent = tmpdir()): string {
  const dir = mkdtempSync(path.join(parent, 'hp-sources-'));
  dirs.push(dir);
  return dir;
}

function write(file: string, value: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}

const guard = (command: string) => ({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } });

/** The registry as an engine builds it from these sources. */
function states(configs: readonly LoadedConfig[], trusted = true) {
  const merged = mergeConfigs(configs, { trusted });
  const registry = new HookRegistry({ trusted });
  registry.load(merged.hooks, merged.switches);
  return {
    merged,
    registry,
    byCommand: (command: string) =>
      registry.current().states.find((s) => s.hook.spec.type === 'command' && s.hook.spec.command === command),
  };
}

/** A folder under /root (root's alone), where a policy file may pass the ownership check. */
function rootOnlyDir(): string {
  const dir = temp('/root');
  chmodSync(dir, 0o755);
  return dir;
}

function policyConfig(file: string): LoadedConfig {
  const policy = readManagedPolicy(file, 'linux');
  expect(policy.problems).toEqual([]);
  return policy.config!;
}

describe("Claude Code's settings files as sources", () => {
  it('loads the hooks of all three files in place, with their file and line, and ignores their other settings', () => {
    const home = temp();
    const project = temp();
    write(path.join(home, '.claude', 'settings.json'), guard('user-guard'));
    write(path.join(project, '.claude', 'settings.json'), {
      model: 'opus',
      permissions: { allow: ['Bash'] },
      env: { A: '1' },
      ...guard('project-guard'),
    });
    write(
      path.join(project, '.claude', 'settings.local.json'),
      '{\n  // personal\n  "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "local-stop" } ] } ] }\n}',
    );
    const configs = readClaudeSettingsConfigs(claudeSettingsFiles(project, home));
    expect(configs.map((c) => c.source?.kind)).toEqual(['claudeUser', 'claudeProject', 'claudeLocal']);
    expect(configs.flatMap((c) => c.problems)).toEqual([]);
    const local = configs[2].hooks[0];
    expect(local.source).toMatchObject({ kind: 'claudeLocal', file: path.join(project, '.claude', 'settings.local.json'), line: 3 });
  });

  it('an untrusted workspace: its Claude files contribute nothing (listed, off), the user file still runs', () => {
    const home = temp();
    const project = temp();
    write(path.join(home, '.claude', 'settings.json'), guard('user-guard'));
    write(path.join(project, '.claude', 'settings.json'), {
      ...guard('project-guard'),
      disableAllHooks: true,
      allowedHttpHookUrls: ['http://evil.example/*'],
    });
    write(path.join(project, '.claude', 'settings.local.json'), guard('local-guard'));
    const { merged, byCommand } = states(readClaudeSettingsConfigs(claudeSettingsFiles(project, home)), false);
    expect(byCommand('user-guard')).toMatchObject({ active: true, trusted: true });
    expect(byCommand('project-guard')).toMatchObject({ active: false, inactiveReason: 'untrusted' });
    expect(byCommand('local-guard')).toMatchObject({ active: false, inactiveReason: 'untrusted' });
    // Its disableAllHooks and URL list were dropped before anything merged.
    expect(merged.switches).toEqual({});
    expect(merged.allowedHttpHookUrls).toBeUndefined();
  });

  it("an untrusted workspace's identical copy never shadows the user's hook", () => {
    const project = temp();
    const home = temp();
    write(path.join(project, '.vscode', 'hooks.json'), guard('same-guard'));
    write(path.join(home, '.claude', 'settings.json'), guard('same-guard'));
    const configs = [
      loadHooksDocument(JSON.stringify(guard('same-guard')), { kind: 'hooksJson', file: path.join(project, '.vscode', 'hooks.json') }),
      ...readClaudeSettingsConfigs(claudeSettingsFiles(undefined, home)),
    ];
    const { registry } = states(configs, false);
    const active = registry.current().states.filter((s) => s.active);
    expect(active.map((s) => s.hook.source.kind)).toEqual(['claudeUser']);
  });

  it("disableAllHooks in Claude's files reaches only their hooks; the project's only the project's", () => {
    const home = temp();
    const project = temp();
    write(path.join(home, '.claude', 'settings.json'), { ...guard('user-guard'), disableAllHooks: true });
    write(path.join(project, '.claude', 'settings.json'), guard('project-guard'));
    const own = loadHooksValue(guard('hookpilot-guard'), { kind: 'user' });
    const userOff = states([own, ...readClaudeSettingsConfigs(claudeSettingsFiles(project, home))]);
    expect(userOff.byCommand('user-guard')?.inactiveReason).toBe('all-disabled');
    expect(userOff.byCommand('project-guard')?.inactiveReason).toBe('all-disabled');
    expect(userOff.byCommand('hookpilot-guard')?.active).toBe(true);
    // Unlike Claude Code, a project (or local) false does not undo the user's true.
    write(path.join(project, '.claude', 'settings.local.json'), { disableAllHooks: false });
    const localOn = states([own, ...readClaudeSettingsConfigs(claudeSettingsFiles(project, home))]);
    expect(localOn.byCommand('user-guard')?.inactiveReason).toBe('all-disabled');
    expect(localOn.byCommand('project-guard')?.inactiveReason).toBe('all-disabled');
    // The project's true turns off the project's hooks, not the user's; local over project, as in Claude Code.
    write(path.join(home, '.claude', 'settings.json'), guard('user-guard'));
    write(path.join(project, '.claude', 'settings.json'), { ...guard('project-guard'), disableAllHooks: true });
    const projectOff = states([own, ...readClaudeSettingsConfigs(claudeSettingsFiles(project, home))]);
    expect(projectOff.byCommand('user-guard')?.active).toBe(true);
    expect(projectOff.byCommand('project-guard')?.active).toBe(true);
    write(path.join(project, '.claude', 'settings.local.json'), {});
    const projectOnly = states([own, ...readClaudeSettingsConfigs(claudeSettingsFiles(project, home))]);
    expect(projectOnly.byCommand('user-guard')?.active).toBe(true);
    expect(projectOnly.byCommand('project-guard')?.inactiveReason).toBe('all-disabled');
  });

  it("hookpilot.hooks.claudeSettings: only the user's settings file decides; off reads none of them", () => {
    const project = temp();
    const home = temp();
    write(path.join(project, '.claude', 'settings.json'), guard('project-guard'));
    const userFile = write(path.join(temp(), 'settings.json'), { 'hookpilot.hooks.claudeSettings': 'off' });
    const none = { managedPolicy: { file: '/nonexistent', permissions: {}, problems: [] } };
    expect(loadWorkspaceConfigs(project, { userSettingsFile: userFile, home, ...none }).flatMap((c) => c.hooks)).toEqual([]);
    // The workspace's settings cannot turn it back on.
    write(path.join(project, '.vscode', 'settings.json'), { 'hookpilot.hooks.claudeSettings': 'read' });
    expect(loadWorkspaceConfigs(project, { userSettingsFile: userFile, home, ...none }).flatMap((c) => c.hooks)).toEqual([]);
    const readFile = write(path.join(temp(), 'settings.json'), {});
    expect(
      loadWorkspaceConfigs(project, { userSettingsFile: readFile, home, ...none }).flatMap((c) => c.hooks.map((h) => h.source.kind)),
    ).toEqual(['claudeProject']);
    expect(claudeSettingsMode('sometimes')).toMatchObject({ mode: 'read', problem: expect.stringContaining('must be "off" or "read"') });
  });

  it("a --hooks file named .vscode/hooks.json is the person's: the workspace's disableAllHooks does not reach its guard", () => {
    const project = temp();
    const home = temp();
    write(path.join(project, '.vscode', 'hooks.json'), { ...guard('ws-guard'), disableAllHooks: true });
    const teamPolicy = write(path.join(home, 'team-policy', '.vscode', 'hooks.json'), guard('team-guard'));
    const none = { managedPolicy: { file: '/nonexistent', permissions: {}, problems: [] } };
    // The project's own file passed again stays the workspace's.
    const own = path.join(project, '.vscode', '..', '.vscode', 'hooks.json');
    const configs = loadWorkspaceConfigs(project, { home, extraFiles: [teamPolicy, own], ...none });
    expect(configs.flatMap((c) => (c.hooks.length > 0 ? [[c.source?.kind, c.source?.file]] : []))).toEqual([
      ['hooksJson', path.join(project, '.vscode', 'hooks.json')],
      ['cli', teamPolicy],
      ['hooksJson', own],
    ]);
    const { byCommand } = states(configs);
    expect(byCommand('team-guard')).toMatchObject({ active: true });
    expect(byCommand('ws-guard')?.inactiveReason).toBe('all-disabled');
  });

  it("reads the user's hooks and hookpilot.hooks.claudeSettings in VS Code's nested form too", () => {
    const project = temp();
    const home = temp();
    write(path.join(project, '.claude', 'settings.json'), guard('claude-guard'));
    const userFile = write(path.join(temp(), 'settings.json'), { hookpilot: { hooks: { claudeSettings: 'off', ...guard('user-guard') } } });
    const none = { managedPolicy: { file: '/nonexistent', permissions: {}, problems: [] } };
    const configs = loadWorkspaceConfigs(project, { userSettingsFile: userFile, home, ...none });
    expect(configs.flatMap((c) => c.hooks.map((h) => [h.source.kind, h.spec.type === 'command' && h.spec.command]))).toEqual([
      ['user', 'user-guard'],
    ]);
    expect(configs.flatMap((c) => c.problems)).toEqual([]);
  });

  it('the setting nested in the hookpilot.hooks value (as VS Code stores it) is not taken for a hooks key', () => {
    const config = loadHooksValue({ claudeSettings: 'off', ...guard('x') }, { kind: 'user' });
    expect(config.problems).toEqual([]);
    expect(config.hooks).toHaveLength(1);
  });
});

describe('the managed policy', () => {
  it("is read only when root's alone: another owner, a group- or world-writable file or folder, a symlink are refused", () => {
    const ok = rootOnlyDir();
    const file = write(path.join(ok, 'managed-settings.json'), guard('managed-guard'));
    chmodSync(file, 0o644);
    expect(readManagedPolicy(file, 'linux').config?.hooks).toHaveLength(1);

    chmodSync(file, 0o664);
    const groupWritable = readManagedPolicy(file, 'linux');
    expect(groupWritable.config).toBeUndefined();
    expect(groupWritable.problems).toMatchObject([
      { code: 'untrusted-policy', severity: 'error', message: expect.stringContaining('writable by group or others') },
    ]);
    chmodSync(file, 0o644);
    chownSync(file, 1000, 1000);
    expect(readManagedPolicy(file, 'linux').problems[0]?.message).toContain('owned by uid 1000, not root');
    chownSync(file, 0, 0);
    chmodSync(ok, 0o777);
    expect(readManagedPolicy(file, 'linux').problems[0]?.message).toContain(`${ok} is writable by others`);
    chmodSync(ok, 0o755);

    const link = path.join(ok, 'link.json');
    symlinkSync(file, link);
    expect(readManagedPolicy(link, 'linux').problems[0]?.message).toContain('symbolic link');
    // Under /tmp (writable by everyone) a root-owned file is still no policy.
    const tmpFile = write(path.join(temp(), 'managed-settings.json'), guard('x'));
    expect(readManagedPolicy(tmpFile, 'linux').problems[0]?.message).toContain('is writable by others');
    expect(readManagedPolicy(path.join(ok, 'absent.json'), 'linux')).toEqual({
      file: path.join(ok, 'absent.json'),
      permissions: {},
      problems: [],
    });
    // On Windows who may write the file is a matter of ACLs: an existing policy is refused, a missing one is none.
    const windows = readManagedPolicy(file, 'win32');
    expect(windows.config).toBeUndefined();
    expect(windows.problems).toMatchObject([
      { code: 'untrusted-policy', severity: 'error', message: expect.stringContaining('on Windows Hookpilot cannot check') },
    ]);
    expect(readManagedPolicy(path.join(ok, 'absent.json'), 'win32').problems).toEqual([]);
  });

  it('its hooks are trusted, locked and untouched by any other disableAllHooks, toggle or override', () => {
    const managed = policyConfig(write(path.join(rootOnlyDir(), 'm.json'), guard('managed-guard')));
    const hooksJson = loadHooksDocument(JSON.stringify({ ...guard('ws-guard'), disableAllHooks: true }), {
      kind: 'hooksJson',
      file: '/w/.vscode/hooks.json',
    });
    const user = loadHooksValue({ ...guard('user-guard'), disableAllHooks: true }, { kind: 'user' });
    const { registry, byCommand } = states([managed, user, hooksJson], false);
    expect(byCommand('managed-guard')).toMatchObject({ active: true, trusted: true, locked: true });
    expect(byCommand('user-guard')?.inactiveReason).toBe('all-disabled');
    const id = byCommand('managed-guard')!.hook.id;
    expect(() => registry.setEnabled(id, false)).toThrow(/managed policy/);
    registry.setAllEnabled(false);
    expect(byCommand('managed-guard')?.active).toBe(true);
    // An override stored for the same id (workspace state) does not reach it either.
    const restored = new HookRegistry({ trusted: true, enabledOverrides: { [id]: false } });
    restored.load([byCommand('managed-guard')!.hook]);
    expect(restored.current().states[0].active).toBe(true);
  });

  it("only the policy's own disableAllHooks turns its hooks off", () => {
    const managed = policyConfig(write(path.join(rootOnlyDir(), 'm.json'), { ...guard('managed-guard'), disableAllHooks: true }));
    const { byCommand, merged } = states([managed, loadHooksValue({ ...guard('user-guard'), disableAllHooks: false }, { kind: 'user' })]);
    expect(byCommand('managed-guard')?.inactiveReason).toBe('all-disabled');
    expect(byCommand('user-guard')?.active).toBe(true);
    expect(merged.switches).toEqual({ disableManagedHooks: true, disableAllHooks: false });
  });

  it('allowManagedHooksOnly: every other source is off and its servers never start; only from the policy', () => {
    const dir = rootOnlyDir();
    const managed = policyConfig(write(path.join(dir, 'm.json'), { ...guard('managed-guard'), allowManagedHooksOnly: true }));
    const user = loadHooksValue(
      { ...guard('user-guard'), servers: { s: { command: ['node', 's.js'], observe: ['Stop'] } } },
      { kind: 'user' },
    );
    const claude = loadHooksDocument(JSON.stringify(guard('claude-guard')), { kind: 'claudeUser', file: '/h/.claude/settings.json' });
    const { byCommand, merged } = states([managed, user, claude]);
    expect(byCommand('managed-guard')?.active).toBe(true);
    expect(byCommand('user-guard')?.inactiveReason).toBe('managed-only');
    expect(byCommand('claude-guard')?.inactiveReason).toBe('managed-only');
    expect(merged.servers).toEqual([]);
    // The key anywhere else means nothing.
    const notPolicy = { ...loadHooksValue(guard('u'), { kind: 'user' }), allowManagedHooksOnly: true };
    expect(mergeConfigs([notPolicy]).switches?.managedHooksOnly).toBeUndefined();
  });

  it("an identical hook elsewhere does not take the policy's copy's place", () => {
    const managed = policyConfig(write(path.join(rootOnlyDir(), 'm.json'), guard('same')));
    const user = loadHooksValue(guard('same'), { kind: 'user' });
    const { registry } = states([user, managed]);
    expect(registry.current().states.map((s) => s.hook.source.kind)).toEqual(['managed']);
  });

  it("an identical copy the policy switches off does not take the user's copy with it", () => {
    const user = loadHooksValue(guard('node /home/u/guard.js'), { kind: 'user' });
    const dir = rootOnlyDir();
    const allOff = policyConfig(write(path.join(dir, 'a.json'), { ...guard('node /home/u/guard.js'), disableAllHooks: true }));
    const listedOff = policyConfig(
      write(path.join(dir, 'b.json'), {
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node /home/u/guard.js', enabled: false }] }] },
      }),
    );
    for (const managed of [allOff, listedOff]) {
      const { registry } = states([managed, user]);
      expect(
        registry
          .current()
          .states.filter((s) => s.active)
          .map((s) => s.hook.source.kind),
      ).toEqual(['user']);
    }
  });

  it("its hooks keep Hookpilot's defaults and the policy's allowlists: the person's do not reach them", () => {
    const managed = policyConfig(
      write(path.join(rootOnlyDir(), 'm.json'), { ...guard('managed-guard'), allowedHttpHookUrls: ['https://policy.example.com/*'] }),
    );
    const user = loadHooksValue(
      { defaults: { commandTimeoutMs: 1 }, allowedHttpHookUrls: ['https://hooks.example.com/*'], httpHookAllowedEnvVars: [] },
      { kind: 'user' },
    );
    const merged = mergeConfigs([managed, user]);
    expect(merged.managedHttpHookUrls).toEqual(['https://policy.example.com/*']);
    expect(merged.managedHttpHookAllowedEnvVars).toBeUndefined();
    // The policy's list still counts among those that bound the person's own hooks.
    expect(merged.allowedHttpHookUrls).toEqual(['https://policy.example.com/*', 'https://hooks.example.com/*']);
    expect(merged.httpHookAllowedEnvVars).toEqual([]);
    expect(merged.defaults).toEqual({ commandTimeoutMs: 1 });
  });

  it("allowManagedHooksOnly: a workspace's builtins turn no built-in on; the person's settings still do", () => {
    const managed = policyConfig(write(path.join(rootOnlyDir(), 'm.json'), { hooks: {}, allowManagedHooksOnly: true }));
    const workspace = loadHooksDocument(JSON.stringify({ builtins: { AutoCommit: true, TurnStats: true } }), {
      kind: 'hooksJson',
      file: '/w/.vscode/hooks.json',
    });
    const merged = mergeConfigs([managed, workspace]);
    expect(merged.builtins).toEqual({});
    expect(merged.problems.filter((p) => p.code === 'workspace-only').map((p) => [p.file, p.path])).toEqual([
      ['/w/.vscode/hooks.json', 'builtins.AutoCommit'],
    ]);
    const user = loadHooksValue({ builtins: { AutoCommit: true } }, { kind: 'user' });
    expect(mergeConfigs([managed, user, workspace]).builtins).toEqual({ AutoCommit: { enabled: true } });
  });

  it('reads its permission rules; a bad value is an error, never silently accepted', () => {
    const dir = rootOnlyDir();
    const good = readManagedPolicy(write(path.join(dir, 'a.json'), { permissions: { deny: ['Bash(curl *)'], allow: ['Read'] } }), 'linux');
    expect(good.permissions).toEqual({ deny: ['Bash(curl *)'], allow: ['Read'] });
    const bad = readManagedPolicy(
      write(path.join(dir, 'b.json'), { permissions: { deny: 'Bash', ask: ['Write'] }, allowManagedHooksOnly: 'yes' }),
      'linux',
    );
    expect(bad.config?.problems.map((p) => p.path)).toEqual(expect.arrayContaining(['permissions.deny', 'allowManagedHooksOnly']));
    // A lone deny rule given as a string still denies.
    expect(bad.permissions).toEqual({ deny: ['Bash'], ask: ['Write'] });
    // A broken allow list does not take the valid deny rules with it, and allows nothing.
    const partly = readManagedPolicy(
      write(path.join(dir, 'c.json'), { permissions: { allow: [1, 'Bash'], deny: ['Bash(curl *)'] } }),
      'linux',
    );
    expect(partly.permissions).toEqual({ deny: ['Bash(curl *)'] });
    expect(readManagedPolicy(write(path.join(dir, 'd.json'), { permissions: { allow: 'Bash' } }), 'linux').permissions).toEqual({});
  });

  it('a deny or ask list with a wrong entry keeps its rules: a broken guard is never fewer guards', () => {
    const dir = rootOnlyDir();
    const policy = readManagedPolicy(
      write(path.join(dir, 'e.json'), { permissions: { deny: ['Bash(rm *)', 5, null], ask: [{ tool: 'Write' }, 'Edit'] } }),
      'linux',
    );
    expect(policy.permissions).toEqual({ deny: ['Bash(rm *)'], ask: ['Edit'] });
    expect(policy.config?.problems.filter((p) => p.severity === 'error').map((p) => p.path)).toEqual(
      expect.arrayContaining(['permissions.deny[1]', 'permissions.deny[2]', 'permissions.ask[0]']),
    );
  });

  it('a deny rule that is not a rule is an error and denies its whole tool, never silently nothing', () => {
    const file = write(path.join(rootOnlyDir(), 'm.json'), { permissions: { deny: ['Bash(curl *', 'Read (./secrets/**)'] } });
    const policy = readManagedPolicy(file, 'linux');
    expect(policy.config?.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          severity: 'error',
          path: 'permissions.deny[0]',
          message: expect.stringMatching(/Bash\(curl \*.*every Bash call/),
        }),
        expect.objectContaining({ severity: 'error', path: 'permissions.deny[1]' }),
      ]),
    );
    const rules = compileRules({ mode: 'default', allow: [], ask: [], additionalDirectories: [], deny: policy.permissions.deny ?? [] });
    expect(rules.map(({ verdict, rule }) => [verdict, rule.tool, rule.pattern])).toEqual([
      ['deny', 'Bash', undefined],
      ['deny', 'Read', undefined],
    ]);
  });
});

describe("the machine's real policy file in tests", () => {
  it('only test/machine/cli-managed-policy.test.ts uses the helper that writes it, and no test writes the path itself', () => {
    const root = path.resolve(__dirname, '..');
    const files = (readdirSync(root, { recursive: true }) as string[])
      .filter((f) => /\.ts$/.test(f))
      .map((f) => path.join(root, f))
      .filter((f) => f !== __filename);
    const users = files.filter((f) => readFileSync(f, 'utf8').includes('useManagedPolicyFile('));
    expect(users.map((f) => path.relative(root, f)).sort()).toEqual([
      'machine/cli-managed-policy.test.ts',
      'support/managed-policy-file.ts',
    ]);
    const writers = files.filter((f) => {
      const text = readFileSync(f, 'utf8');
      return /(writeFileSync|cpSync|copyFileSync|rename)\([^)]*(\/etc\/hookpilot|managedPolicyFile\(\))/.test(text);
    });
    expect(writers).toEqual([]);
  });
});
