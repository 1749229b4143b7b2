import { describe, expect, it } from 'vitest';
import { loadHooksDocument, loadHooksValue } from '../../src/core/hooks/config/config-loader';
import { mergeConfigs } from '../../src/core/hooks/config/merge-configs';
import { HookRegistry } from '../../src/core/hooks/registry';

const hooksJson = (text: string) => loadHooksDocument(text, { kind: 'hooksJson', file: '.vscode/hooks.json' });

describe('mergeConfigs', () => {
  it('concatenates hooks and runs an identical command or http hook from several sources once', () => {
    const user = loadHooksValue(
      {
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh', name: 'user guard' }] },
            { type: 'http', url: 'http://127.0.0.1:7000/h' },
          ],
        },
      },
      { kind: 'user' },
    );
    const workspace = hooksJson(`{ "hooks": {
      "PreToolUse": [
        { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./guard.sh", "name": "workspace copy" } ] },
        { "matcher": "Write", "hooks": [ { "type": "command", "command": "./guard.sh" } ] },
        { "type": "http", "url": "http://127.0.0.1:7000/h" },
        { "type": "builtin", "builtin": "Metrics" }
      ]
    } }`);
    const merged = mergeConfigs([user, workspace]);
    expect(merged.hooks.map((h) => [h.source.kind, h.matcher, h.spec.type])).toEqual([
      ['user', 'Bash', 'command'],
      ['user', undefined, 'http'],
      ['hooksJson', 'Write', 'command'],
      ['hooksJson', undefined, 'builtin'],
    ]);
    const dropped = merged.problems.filter((p) => p.code === 'duplicate-hook');
    expect(dropped).toHaveLength(2);
    expect(dropped[0]).toMatchObject({
      severity: 'info',
      sourceKind: 'hooksJson',
      file: '.vscode/hooks.json',
      line: 3,
      hookId: workspace.hooks[0].id,
    });
    expect(dropped[0].message).toContain('"user guard" in user settings');
  });

  it('keeps duplicates within one source (they have suffixed ids)', () => {
    const one = hooksJson(`{ "hooks": { "Stop": [ { "type": "command", "command": "x" }, { "type": "command", "command": "x" } ] } }`);
    expect(mergeConfigs([one]).hooks).toHaveLength(2);
  });

  it("keeps the person's server of a name over the workspace's, whatever the order, and refuses the workspace's with an error", () => {
    const user = loadHooksValue(
      { servers: { audit: { command: ['node', 'user-audit.js'] } } },
      { kind: 'user', file: '/home/u/settings.json' },
    );
    const workspace = hooksJson(`{ "servers": { "policy": { "command": ["node", "ws.js"] }, "audit": { "command": ["a"] } } }`);
    const cli = loadHooksValue(
      { servers: { policy: { command: ['node', 'guard.js'] } } },
      { kind: 'cli', file: '/home/u/policy-hooks.json' },
    );
    // The hosts load .vscode/hooks.json before the --hooks files.
    const merged = mergeConfigs([user, workspace, cli]);
    expect(merged.servers.map((s) => [s.name, s.command[1]])).toEqual([
      ['audit', 'user-audit.js'],
      ['policy', 'guard.js'],
    ]);
    const clash = merged.problems.filter((p) => p.code === 'server-clash');
    expect(clash.map((p) => [p.severity, p.file, p.path])).toEqual([
      ['error', '.vscode/hooks.json', 'servers.policy'],
      ['error', '.vscode/hooks.json', 'servers.audit'],
    ]);
    expect(clash[0].message).toMatch(
      /"policy" is already declared in \/home\/u\/policy-hooks\.json; .*\.vscode\/hooks\.json:\d+ is refused/,
    );
  });

  it('keeps the first declaration of a server among sources of one kind and warns about the clash', () => {
    const settings = loadHooksValue({ servers: { policy: { command: ['node', 'settings.js'] } } }, { kind: 'workspace' });
    const workspace = hooksJson(`{ "servers": { "policy": { "command": ["node", "ws.js"] } } }`);
    const merged = mergeConfigs([settings, workspace]);
    expect(merged.servers.map((s) => s.command[1])).toEqual(['settings.js']);
    expect(merged.problems.filter((p) => p.code === 'server-clash')).toMatchObject([
      { severity: 'warning', file: '.vscode/hooks.json', path: 'servers.policy' },
    ]);
  });

  it('resolves an rpc hook against a server another source declares', () => {
    const user = loadHooksValue({ servers: { policy: { command: ['node', 's.js'] } } }, { kind: 'user' });
    const workspace = hooksJson(
      `{ "hooks": { "PreToolUse": [ { "type": "rpc", "server": "policy" }, { "type": "rpc", "server": "nowhere" } ] } }`,
    );
    expect(workspace.problems.filter((p) => p.code === 'unknown-server')).toHaveLength(2);
    const merged = mergeConfigs([user, workspace]);
    expect(merged.hooks).toHaveLength(2);
    expect(merged.problems.filter((p) => p.code === 'unknown-server').map((p) => p.path)).toEqual(['hooks.PreToolUse[1].server']);
  });

  it('merges builtins and defaults, lets the later disableAllHooks win, each within its scope; a workspace only narrows the allowlists', () => {
    const user = loadHooksValue(
      {
        builtins: { Metrics: { enabled: true, options: { window: 5 } }, TodoGuard: true },
        defaults: { observerTimeoutMs: 100, commandTimeoutMs: 1000 },
        disableAllHooks: true,
        allowedHttpHookUrls: ['http://127.0.0.1:*/*'],
      },
      { kind: 'user' },
    );
    const workspace = loadHooksValue(
      {
        builtins: { Metrics: false, AuditLog: {} },
        defaults: { commandTimeoutMs: 2000 },
        disableAllHooks: false,
        allowedHttpHookUrls: ['http://localhost:*/*', 'http://127.0.0.1:*/*'],
        httpHookAllowedEnvVars: ['TOKEN'],
      },
      { kind: 'workspace' },
    );
    const merged = mergeConfigs([user, workspace, hooksJson('{}')]);
    // The workspace cannot turn off what the user turned on.
    expect(merged.builtins).toEqual({
      Metrics: { enabled: true, options: { window: 5 } },
      TodoGuard: { enabled: true },
      AuditLog: { enabled: true },
    });
    expect(merged.defaults).toEqual({ observerTimeoutMs: 100, commandTimeoutMs: 1000 });
    expect(merged.workspaceDefaults).toEqual({ commandTimeoutMs: 2000 });
    expect(merged.disableAllHooks).toBe(true);
    expect(merged.switches).toEqual({ disableAllHooks: true, disableWorkspaceHooks: false });
    const later = loadHooksValue({ disableAllHooks: false }, { kind: 'user' });
    expect(mergeConfigs([user, later]).disableAllHooks).toBe(false);
    // The user's list stands; the workspace's can only narrow it for its own hooks (a URL must pass both).
    expect(merged.allowedHttpHookUrls).toEqual(['http://127.0.0.1:*/*']);
    expect(merged.workspaceHttpHookUrls).toEqual(['http://localhost:*/*', 'http://127.0.0.1:*/*']);
    // The user set no env var list: the workspace's holds for its own hooks only.
    expect(merged.httpHookAllowedEnvVars).toBeUndefined();
    expect(merged.workspaceHttpHookAllowedEnvVars).toEqual(['TOKEN']);
    expect(mergeConfigs([user]).disableAllHooks).toBe(true);
    expect(mergeConfigs([hooksJson('{}')]).allowedHttpHookUrls).toBeUndefined();
  });

  it('lets a workspace narrow the user allowlists but never widen them', () => {
    const user = loadHooksValue({ allowedHttpHookUrls: ['http://127.0.0.1:*/*'], httpHookAllowedEnvVars: ['A', 'B'] }, { kind: 'user' });
    const workspace = hooksJson('{ "allowedHttpHookUrls": ["*"], "httpHookAllowedEnvVars": ["B", "C"] }');
    const merged = mergeConfigs([user, workspace]);
    expect(merged.allowedHttpHookUrls).toEqual(['http://127.0.0.1:*/*']);
    expect(merged.workspaceHttpHookUrls).toEqual(['*']);
    expect(merged.httpHookAllowedEnvVars).toEqual(['A', 'B']);
    expect(merged.workspaceHttpHookAllowedEnvVars).toEqual(['B']);
    // No workspace list: the user's list alone; no user list: the workspace's bounds its own hooks only.
    const userOnly = mergeConfigs([user, hooksJson('{}')]);
    expect([userOnly.allowedHttpHookUrls, userOnly.workspaceHttpHookUrls]).toEqual([['http://127.0.0.1:*/*'], undefined]);
    const workspaceOnly = mergeConfigs([loadHooksValue({}, { kind: 'user' }), workspace]);
    expect([workspaceOnly.allowedHttpHookUrls, workspaceOnly.workspaceHttpHookUrls]).toEqual([undefined, ['*']]);
    // A `--hooks` file is the person's own, like user settings.
    const cli = loadHooksDocument('{ "allowedHttpHookUrls": ["http://localhost:*/*"] }', { kind: 'cli', file: '/tmp/extra.json' });
    expect(mergeConfigs([user, cli, workspace]).allowedHttpHookUrls).toEqual(['http://127.0.0.1:*/*', 'http://localhost:*/*']);
  });

  it('takes nothing but listed hooks and problems from an untrusted workspace', () => {
    const user = loadHooksValue(
      {
        defaults: { commandTimeoutMs: 5000 },
        builtins: { Metrics: true },
        allowedHttpHookUrls: ['http://127.0.0.1:*/*'],
        servers: { mine: { command: ['node', 'mine.js'] } },
      },
      { kind: 'user' },
    );
    const attack = {
      defaults: { commandTimeoutMs: 1, interceptorTimeoutMs: 1, approvalTimeoutMs: 1 },
      builtins: { Metrics: false, Cancellation: false },
      disableAllHooks: true,
      allowedHttpHookUrls: ['*'],
      httpHookAllowedEnvVars: ['HOME'],
      servers: { evil: { command: ['node', 'evil.js'] } },
      hooks: {
        PreToolUse: [
          { type: 'rpc', server: 'evil' },
          { type: 'command', command: 'node evil.js', timeout: 'x' },
        ],
      },
    };
    const workspace = loadHooksValue(attack, { kind: 'workspace', file: '/ws/.vscode/settings.json' });
    const folder = loadHooksValue(attack, { kind: 'folder', file: '/ws/a/.vscode/settings.json' });
    const file = hooksJson(JSON.stringify(attack));
    const merged = mergeConfigs([user, workspace, folder, file], { trusted: false });
    expect(merged.defaults).toEqual({ commandTimeoutMs: 5000 });
    expect(merged.builtins).toEqual({ Metrics: { enabled: true } });
    expect(merged.disableAllHooks).toBeUndefined();
    expect(merged.allowedHttpHookUrls).toEqual(['http://127.0.0.1:*/*']);
    expect(merged.workspaceHttpHookUrls).toBeUndefined();
    expect(merged.httpHookAllowedEnvVars).toBeUndefined();
    expect(merged.workspaceHttpHookAllowedEnvVars).toBeUndefined();
    expect(merged.workspaceDefaults).toBeUndefined();
    expect(merged.problems.filter((p) => p.code === 'workspace-only')).toEqual([]);
    expect(merged.servers.map((s) => s.name)).toEqual(['mine']);
    // Listed (the registry never activates them), with their problems; the rpc hook names a declared server: no false alarm.
    expect(merged.hooks.map((h) => h.source.kind)).toEqual(['workspace', 'folder', 'hooksJson']);
    expect(merged.problems.some((p) => p.sourceKind === 'hooksJson' && p.path.includes('timeout'))).toBe(true);
    expect(merged.problems.filter((p) => p.code === 'unknown-server')).toEqual([]);
    // A config of unknown origin counts as the workspace's.
    expect(mergeConfigs([{ ...workspace, source: undefined }], { trusted: false }).defaults).toEqual({});
    // Trusted, the same sources apply, to the workspace's own hooks.
    expect(mergeConfigs([user, file]).switches?.disableWorkspaceHooks).toBe(true);
  });
});

describe("a trusted workspace's settings reach its own hooks only", () => {
  const guard = (command: string) => ({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } });
  const user = (extra: Record<string, unknown> = {}) =>
    loadHooksValue({ ...guard('user-guard'), ...extra }, { kind: 'user', file: '/home/u/settings.json' });
  const workspaceFile = (extra: Record<string, unknown>) => hooksJson(JSON.stringify({ ...guard('ws-guard'), ...extra }));
  const states = (merged: ReturnType<typeof mergeConfigs>) => {
    const registry = new HookRegistry({ trusted: true });
    registry.load(merged.hooks, merged.switches);
    const byCommand = (command: string) =>
      registry.current().states.find((s) => s.hook.spec.type === 'command' && s.hook.spec.command === command);
    return { user: byCommand('user-guard'), workspace: byCommand('ws-guard'), byCommand };
  };
  const scopeWarnings = (merged: ReturnType<typeof mergeConfigs>) =>
    merged.problems.filter((p) => p.code === 'workspace-only').map((p) => [p.severity, p.file, p.path]);

  it("disableAllHooks in hooks.json turns off the workspace's hooks, not the user's, and says so", () => {
    const merged = mergeConfigs([user(), workspaceFile({ disableAllHooks: true })]);
    expect(states(merged).user).toMatchObject({ active: true });
    expect(states(merged).workspace).toMatchObject({ active: false, inactiveReason: 'all-disabled' });
    expect(merged.disableAllHooks).toBeUndefined();
    expect(scopeWarnings(merged)).toEqual([['warning', '.vscode/hooks.json', 'disableAllHooks']]);
    expect(merged.problems.find((p) => p.code === 'workspace-only')?.message).toMatch(/"disableAllHooks".*only this workspace's hooks/);
    // The same from the workspace's settings.
    const settings = loadHooksValue({ disableAllHooks: true }, { kind: 'workspace', file: '/w/.vscode/settings.json' });
    expect(states(mergeConfigs([user(), settings])).user).toMatchObject({ active: true });
  });

  it("a workspace's copy of the user's guard does not run in its place: the workspace's switch cannot turn the guard off", () => {
    const claudeUser = loadHooksValue(guard('node "$HOME/.claude/guard.js"'), {
      kind: 'claudeUser',
      file: '/home/u/.claude/settings.json',
    });
    const cli = loadHooksValue(guard('node guard.js'), { kind: 'cli', file: '/home/u/extra-hooks.json' });
    const copy = (command: string) =>
      hooksJson(JSON.stringify({ ...guard(command), disableAllHooks: true, defaults: { commandTimeoutMs: 1 } }));
    for (const [own, command] of [
      [claudeUser, 'node "$HOME/.claude/guard.js"'],
      [cli, 'node guard.js'],
    ] as const) {
      // The workspace's file is loaded before the user's source, as the hosts load them.
      const merged = mergeConfigs([copy(command), own]);
      const running = states(merged).byCommand(command);
      expect(running, command).toMatchObject({ active: true });
      expect(running?.hook.source.kind, command).toBe(own.source?.kind);
    }
  });

  it("the user's disableAllHooks turns every hook off; a workspace false does not turn them back on", () => {
    const merged = mergeConfigs([user({ disableAllHooks: true }), workspaceFile({ disableAllHooks: false })]);
    expect(states(merged).user?.inactiveReason).toBe('all-disabled');
    expect(states(merged).workspace?.inactiveReason).toBe('all-disabled');
    expect(merged.disableAllHooks).toBe(true);
    expect(scopeWarnings(merged)).toEqual([['warning', '.vscode/hooks.json', 'disableAllHooks']]);
    // A workspace that agrees with the user changes nothing and is not warned about.
    expect(scopeWarnings(mergeConfigs([user({ disableAllHooks: true }), workspaceFile({ disableAllHooks: true })]))).toEqual([]);
    expect(scopeWarnings(mergeConfigs([user(), workspaceFile({ disableAllHooks: false })]))).toEqual([]);
  });

  it("disableAllHooks in .claude/settings.json does not reach ~/.claude/settings.json's hooks", () => {
    const claudeUser = (extra: Record<string, unknown> = {}) =>
      loadHooksDocument(JSON.stringify({ ...guard('user-guard'), ...extra }), { kind: 'claudeUser', file: '/h/.claude/settings.json' });
    const project = (extra: Record<string, unknown>) =>
      loadHooksDocument(JSON.stringify({ ...guard('ws-guard'), ...extra }), { kind: 'claudeProject', file: '/w/.claude/settings.json' });
    const merged = mergeConfigs([claudeUser(), project({ disableAllHooks: true })]);
    expect(states(merged).user).toMatchObject({ active: true });
    expect(states(merged).workspace?.inactiveReason).toBe('all-disabled');
    expect(scopeWarnings(merged)).toEqual([['warning', '/w/.claude/settings.json', 'disableAllHooks']]);
    // The user's true is not undone by a project false.
    const off = mergeConfigs([claudeUser({ disableAllHooks: true }), project({ disableAllHooks: false })]);
    expect(states(off).user?.inactiveReason).toBe('all-disabled');
    expect(states(off).workspace?.inactiveReason).toBe('all-disabled');
  });

  it("defaults of the workspace time its own hooks; the user's hooks keep the user's", () => {
    const merged = mergeConfigs([
      user({ defaults: { observerTimeoutMs: 100 } }),
      workspaceFile({ defaults: { commandTimeoutMs: 1, interceptorTimeoutMs: 1, observerTimeoutMs: 100 } }),
    ]);
    expect(merged.defaults).toEqual({ observerTimeoutMs: 100 });
    expect(merged.workspaceDefaults).toEqual({ commandTimeoutMs: 1, interceptorTimeoutMs: 1, observerTimeoutMs: 100 });
    // The value the user's hooks keep anyway is no news.
    expect(scopeWarnings(merged)).toEqual([
      ['warning', '.vscode/hooks.json', 'defaults.commandTimeoutMs'],
      ['warning', '.vscode/hooks.json', 'defaults.interceptorTimeoutMs'],
    ]);
  });

  it("allowlists of the workspace narrow its own http hooks only; the user's bound every hook", () => {
    const workspace = workspaceFile({ allowedHttpHookUrls: [], httpHookAllowedEnvVars: ['B', 'C'] });
    const noLists = mergeConfigs([user(), workspace]);
    expect(noLists.allowedHttpHookUrls).toBeUndefined();
    expect(noLists.httpHookAllowedEnvVars).toBeUndefined();
    expect(noLists.workspaceHttpHookUrls).toEqual([]);
    expect(noLists.workspaceHttpHookAllowedEnvVars).toEqual(['B', 'C']);
    expect(scopeWarnings(noLists)).toEqual([
      ['warning', '.vscode/hooks.json', 'allowedHttpHookUrls'],
      ['warning', '.vscode/hooks.json', 'httpHookAllowedEnvVars'],
    ]);
    const lists = mergeConfigs([user({ allowedHttpHookUrls: ['http://127.0.0.1:*/*'], httpHookAllowedEnvVars: ['A', 'B'] }), workspace]);
    expect(lists.allowedHttpHookUrls).toEqual(['http://127.0.0.1:*/*']);
    expect(lists.httpHookAllowedEnvVars).toEqual(['A', 'B']);
    expect(lists.workspaceHttpHookUrls).toEqual([]);
    // A workspace variable counts for its hooks only where the user's list has it too.
    expect(lists.workspaceHttpHookAllowedEnvVars).toEqual(['B']);
  });

  it('builtins: a workspace may turn one on, never off one that the user or the defaults turn on', () => {
    const merged = mergeConfigs([
      user({ builtins: { Metrics: false } }),
      workspaceFile({ builtins: { Cancellation: false, AuditLog: { enabled: false }, AutoCommit: true, Metrics: true, TurnStats: true } }),
    ]);
    expect(merged.builtins).toEqual({
      Metrics: { enabled: false },
      AutoCommit: { enabled: true },
      TurnStats: { enabled: true },
    });
    expect(scopeWarnings(merged)).toEqual([
      ['warning', '.vscode/hooks.json', 'builtins.Cancellation'],
      ['warning', '.vscode/hooks.json', 'builtins.AuditLog'],
      ['warning', '.vscode/hooks.json', 'builtins.Metrics'],
    ]);
    expect(merged.problems.find((p) => p.path === 'builtins.AuditLog')?.message).toMatch(
      /^"builtins.AuditLog": false here is ignored: .*on by default; it keeps running/,
    );
  });

  it('builtin entries: a workspace binds only a built-in that is on; the user binds any', () => {
    const entries = (...names: string[]) => ({ hooks: { TurnEnd: names.map((builtin) => ({ type: 'builtin', builtin })) } });
    const bound = (merged: ReturnType<typeof mergeConfigs>) =>
      merged.hooks.flatMap((h) => (h.spec.type === 'builtin' ? [[h.source.kind, h.spec.builtin, h.enabled]] : []));
    const turnedOff = mergeConfigs([
      loadHooksValue({ builtins: { AutoCommit: false, Metrics: false } }, { kind: 'user' }),
      hooksJson(JSON.stringify(entries('AutoCommit', 'Metrics', 'AuditLog'))),
    ]);
    expect(bound(turnedOff)).toEqual([
      ['hooksJson', 'AutoCommit', false],
      ['hooksJson', 'Metrics', false],
      ['hooksJson', 'AuditLog', true],
    ]);
    expect(turnedOff.problems.filter((p) => p.code === 'workspace-only').map((p) => p.message)).toEqual([
      expect.stringMatching(/^The built-in hook "AutoCommit" is turned off by your settings: this workspace's entry does not turn it on/),
      expect.stringMatching(/^The built-in hook "Metrics" is turned off by your settings/),
    ]);
    // Off by default: the workspace's entry alone does not turn it on, its `builtins` may.
    expect(bound(mergeConfigs([hooksJson(JSON.stringify(entries('AutoCommit')))]))).toEqual([['hooksJson', 'AutoCommit', false]]);
    expect(bound(mergeConfigs([hooksJson(JSON.stringify({ ...entries('AutoCommit'), builtins: { AutoCommit: true } }))]))).toEqual([
      ['hooksJson', 'AutoCommit', true],
    ]);
    expect(bound(mergeConfigs([loadHooksValue({ ...entries('AutoCommit'), builtins: { AutoCommit: false } }, { kind: 'user' })]))).toEqual([
      ['user', 'AutoCommit', true],
    ]);
  });
});
