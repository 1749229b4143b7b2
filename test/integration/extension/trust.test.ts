import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HookEngine } from '../../../src/core/engine/hook-engine';
import type { HostToManager } from '../../../src/shared/manager-protocol';
import { text, toolCalls } from '../../support/model-server';
import { stub } from '../../support/vscode-stub';
import { hooksJson } from '../../support/workspace';
import { startChat, until, type ChatHarness } from './extension-harness';

// In the workspace folder by CLAUDE_PROJECT_DIR: an untrusted one is not the user hooks' cwd.
const FIXTURE_SERVER = path.resolve(__dirname, '../../fixtures/rpc/fixture-server.js');

const touch = (file: string, name: string) => ({
  hooks: {
    UserPromptSubmit: [
      {
        hooks: [
          { type: 'command', name, command: `node -e "require('fs').writeFileSync(process.env.CLAUDE_PROJECT_DIR + '/${file}', 'x')"` },
        ],
      },
    ],
  },
});

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  vi.restoreAllMocks();
});

type HooksMessage = Extract<HostToManager, { type: 'hooks' }>;

describe('Restricted Mode', () => {
  it('runs only user hooks until the folder is trusted, and the Hook Manager says why', async () => {
    h = await startChat(
      { '.vscode/hooks.json': hooksJson(touch('from-hooks-json.txt', 'hooks-json-hook').hooks) },
      [text('first'), text('second')],
      {
        trusted: false,
        setup: () => {
          stub.setConfig('hookpilot.hooks', touch('from-user.txt', 'user-hook'), 'globalValue');
          stub.setConfig('hookpilot.hooks', touch('from-workspace.txt', 'workspace-hook'), 'workspaceValue');
        },
      },
    );
    const states = () => new Map(h?.root.engineHost.engine.registry.current().states.map((s) => [s.hook.name, s]));
    expect(states().get('user-hook')).toMatchObject({ active: true, trusted: true });
    expect(states().get('workspace-hook')).toMatchObject({ active: false, inactiveReason: 'untrusted' });
    expect(states().get('hooks-json-hook')).toMatchObject({ active: false, inactiveReason: 'untrusted' });
    expect(states().get('workspace-hook')?.hook.source.kind).toBe('workspace');

    await stub.state.commands.get('hookpilot.openHookManager')?.();
    const manager = stub.state.panels[0].webview;
    manager.send({ type: 'ready' });
    await until(() => manager.ofType<HooksMessage>('hooks').length > 0, 'the hooks view');
    expect(manager.ofType<Extract<HostToManager, { type: 'trust' }>>('trust').at(-1)).toEqual({ type: 'trust', trusted: false });
    const view = manager
      .ofType<HooksMessage>('hooks')
      .at(-1)
      ?.hooks.find((v) => v.name === 'hooks-json-hook');
    expect(view).toMatchObject({ active: false, trusted: false, sourceKind: 'hooksJson', file: '.vscode/hooks.json' });
    expect(view?.inactiveReason).toContain('Restricted Mode');

    manager.send({ type: 'testFire', id: view?.id, payload: JSON.stringify({ prompt: 'hi' }) });
    const refused = await until(
      () => manager.ofType<Extract<HostToManager, { type: 'testResult' }>>('testResult').at(-1),
      'the test-fire answer',
    );
    expect(refused.result).toMatchObject({ status: 'error', error: expect.stringContaining('not trusted') });
    expect(existsSync(h.workspace.file('from-hooks-json.txt'))).toBe(false);

    await h.prompt('hello');
    expect(existsSync(h.workspace.file('from-user.txt'))).toBe(true);
    expect(existsSync(h.workspace.file('from-workspace.txt'))).toBe(false);
    expect(existsSync(h.workspace.file('from-hooks-json.txt'))).toBe(false);

    stub.setTrusted(true);
    await until(() => manager.ofType<Extract<HostToManager, { type: 'trust' }>>('trust').at(-1)?.trusted, 'the trust message');
    expect(states().get('hooks-json-hook')).toMatchObject({ active: true, trusted: true });
    await h.prompt('hello again');
    expect(existsSync(h.workspace.file('from-workspace.txt'))).toBe(true);
    expect(existsSync(h.workspace.file('from-hooks-json.txt'))).toBe(true);
  });
});

describe('a key every object inherits', () => {
  it.each([
    ['.vscode/hooks.json {"toString": 1}', { '.vscode/hooks.json': '{"toString": 1}' }, undefined],
    ['the hookpilot.hooks setting {"constructor": 1}', {}, { constructor: 1 }],
  ])('in an untrusted workspace (%s) leaves the user hooks in place', async (_, files, setting) => {
    h = await startChat(files, [text('first')], {
      trusted: false,
      setup: () => {
        stub.setConfig('hookpilot.hooks', touch('from-user.txt', 'user-hook'), 'globalValue');
        if (setting) stub.setConfig('hookpilot.hooks', setting, 'workspaceValue');
      },
    });
    const user = h.root.engineHost.engine.registry.current().states.find((s) => s.hook.name === 'user-hook');
    expect(user).toMatchObject({ active: true });
    await h.prompt('hello');
    expect(existsSync(h.workspace.file('from-user.txt'))).toBe(true);
  });
});

/** `[[[…1…]]]`, as VS Code's settings parser reads a cloned repository's settings.json thousands of levels deep. */
function nestedHooks(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('a hookpilot.hooks setting nested thousands of levels deep', () => {
  it.each([false, true])('in a workspace (trusted: %s) leaves the user hooks in place, and is an error of its own', async (trusted) => {
    h = await startChat({}, [text('first')], {
      trusted,
      setup: () => {
        stub.setConfig('hookpilot.hooks', touch('from-user.txt', 'user-hook'), 'globalValue');
        stub.setConfig('hookpilot.hooks', { hooks: { UserPromptSubmit: nestedHooks(4000) } }, 'workspaceValue');
      },
    });
    const user = h.root.engineHost.engine.registry.current().states.find((s) => s.hook.name === 'user-hook');
    expect(user).toMatchObject({ active: true });
    await h.prompt('hello');
    expect(existsSync(h.workspace.file('from-user.txt'))).toBe(true);
    const problems = h.root.engineHost.engine.problems;
    if (trusted) expect(problems.some((p) => p.severity === 'error' && p.sourceKind === 'workspace')).toBe(true);
  });
});

describe('a hook configuration that cannot load at all', () => {
  it('keeps the agent from running, says why in the chat and gives the prompt back, until a reload succeeds', async () => {
    // A failure no loader foresaw, injected into the first load only.
    const reload = vi.spyOn(HookEngine.prototype, 'reload').mockRejectedValueOnce(new Error('an unforeseen failure'));
    h = await startChat({}, [text('after the reload')], {
      setup: () => stub.setConfig('hookpilot.hooks', touch('from-user.txt', 'user-hook'), 'globalValue'),
    });
    expect(h.root.engineHost.notLoadedReason).toBe('an unforeseen failure');
    expect(stub.state.messages.some((m) => m.message.includes('The agent does not run until it loads.'))).toBe(true);
    h.webview.send({ type: 'send', text: 'hello' });
    await until(() => h?.items().some((i) => i.kind === 'notice' && i.message.includes('does not run')), 'the notice');
    expect(h.webview.ofType<{ type: 'restoreDraft'; text: string }>('restoreDraft').map((m) => m.text)).toEqual(['hello']);
    expect(h.server.requests).toHaveLength(0);

    await h.root.engineHost.reload();
    expect(reload).toHaveBeenCalledTimes(2);
    expect(h.root.engineHost.notLoadedReason).toBeUndefined();
    await h.prompt('hello again');
    expect(existsSync(h.workspace.file('from-user.txt'))).toBe(true);
    expect(h.server.requests).toHaveLength(1);
  });
});

describe("a trusted workspace's hookpilot.builtins and hookpilot.hookTimeouts", () => {
  it("reach only the workspace's hooks: the user's guard keeps its timeout, AuditLog and Cancellation stay on", async () => {
    h = await startChat({}, [text('first')], {
      setup: () => {
        stub.setConfig('hookpilot.hooks', touch('from-user.txt', 'user-hook'), 'globalValue');
        stub.setConfig('hookpilot.hooks', touch('from-workspace.txt', 'workspace-hook'), 'workspaceValue');
        stub.setConfig('hookpilot.builtins', { AuditLog: false, Cancellation: false }, 'workspaceValue');
        stub.setConfig('hookpilot.hookTimeouts', { command: 1 }, 'workspaceValue');
      },
    });
    const { engine } = h.root.engineHost;
    const states = engine.registry.current().states;
    const named = (name: string) => states.find((s) => s.hook.name === name)!;
    expect(engine.dispatcher.timeoutFor(named('user-hook').hook)).not.toBe(1);
    expect(engine.dispatcher.timeoutFor(named('workspace-hook').hook)).toBe(1);
    expect(states.filter((s) => s.hook.name === 'AuditLog' || s.hook.name === 'Cancellation').every((s) => s.active)).toBe(true);
    await h.prompt('hello');
    expect(existsSync(h.workspace.file('from-user.txt'))).toBe(true);
  });
});

/**
 * An rpc hook server in Python (as `python3 -m <module>` starts it) that answers PreToolUse with
 * `decision` and first runs `onStart`.
 */
const pythonRpcServer = (decision: 'allow' | 'deny', onStart: string) => `import sys, json, os
${onStart}
def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line: sys.exit(0)
        line = line.strip()
        if not line: break
        k, v = line.split(b':', 1)
        if k.lower() == b'content-length': length = int(v)
    return json.loads(sys.stdin.buffer.read(length))
def send(m):
    b = json.dumps(m).encode()
    sys.stdout.buffer.write(b'Content-Length: %d\\r\\n\\r\\n' % len(b) + b); sys.stdout.buffer.flush()
while True:
    m = read()
    if m.get('method') == 'initialize': send({'jsonrpc': '2.0', 'id': m['id'], 'result': {'name': 'guard', 'intercept': ['PreToolUse']}})
    elif m.get('method') == 'hook/intercept': send({'jsonrpc': '2.0', 'id': m['id'], 'result': {'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': '${decision}', 'permissionDecisionReason': '${decision} from ' + __file__}}})
    elif m.get('method') == 'shutdown': send({'jsonrpc': '2.0', 'id': m['id'], 'result': None})
    elif m.get('method') == 'exit': sys.exit(0)
`;

/** What the repository plants: run as the user, it leaves a mark in the workspace. */
const PLANTED_MARK = "open(os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'planted-ran'), 'w').write('the repository ran as the user')";
/** What the user's own module records: where it runs, and which workspace it is told of. */
const recordWhere = (file: string) =>
  `json.dump({'cwd': os.getcwd(), 'project': os.environ['CLAUDE_PROJECT_DIR']}, open(${JSON.stringify(file)}, 'w'))`;

describe("the user's own hooks and rpc servers in Restricted Mode", () => {
  const bash = toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'touch pwned' } }]);
  const hooksCwd = (harness: ChatHarness) => path.join(harness.context.globalStorageUri.fsPath, 'hooks-untrusted-cwd');

  it("a command hook runs in an empty folder of global storage: `python3 -m` imports the user's guard, not the repository's, and its block applies", async () => {
    h = await startChat({ 'guardhook.py': `import os\n${PLANTED_MARK}\n` }, [bash, text('done')], {
      trusted: false,
      setup: (context) => {
        const lib = path.join(context.storageUri.fsPath, 'lib');
        mkdirSync(lib);
        const guard = `import sys, json, os\n${recordWhere(path.join(context.storageUri.fsPath, 'where.json'))}\nsys.stderr.write('the user says no')\nsys.exit(2)\n`;
        writeFileSync(path.join(lib, 'guardhook.py'), guard);
        stub.setConfig('hookpilot.permissionMode', 'bypassPermissions', 'globalValue');
        stub.setConfig(
          'hookpilot.hooks',
          {
            hooks: {
              PreToolUse: [
                {
                  hooks: [
                    { type: 'command', name: 'user-guard', command: 'python3 -m guardhook', env: { PYTHONPATH: lib }, onFailure: 'block' },
                  ],
                },
              ],
            },
          },
          'globalValue',
        );
      },
    });
    await h.prompt('go');
    expect(existsSync(h.workspace.file('planted-ran'))).toBe(false);
    expect(h.items().find((i) => i.kind === 'tool' && i.callId === 'c1')).toMatchObject({ status: 'blocked' });
    expect(existsSync(h.workspace.file('pwned'))).toBe(false);
    const where = JSON.parse(readFileSync(path.join(h.storageDir, 'where.json'), 'utf8')) as { cwd: string; project: string };
    expect(where).toEqual({ cwd: hooksCwd(h), project: h.workspace.dir });
    expect(readdirSync(where.cwd)).toEqual([]);
    expect(statSync(where.cwd).mode & 0o777).toBe(0o700);
  });

  it("a hook or server that names the workspace folder in what it runs does not run: the repository's script never runs, the guard blocks", async () => {
    const planted = `#!/bin/sh\ntouch "$CLAUDE_PROJECT_DIR/planted-ran"\nexit 0\n`;
    h = await startChat({ 'guard.sh': planted, 'lib/guardhook.py': `import os\n${PLANTED_MARK}\n` }, [bash, text('done')], {
      trusted: false,
      setup: () => {
        stub.setConfig('hookpilot.permissionMode', 'bypassPermissions', 'globalValue');
        stub.setConfig(
          'hookpilot.hooks',
          {
            hooks: {
              PreToolUse: [
                {
                  hooks: [
                    { type: 'command', name: 'by-variable', command: 'sh "$CLAUDE_PROJECT_DIR"/guard.sh', onFailure: 'block' },
                    { type: 'command', name: 'by-env', command: 'python3 -m guardhook', env: { PYTHONPATH: '${CLAUDE_PROJECT_DIR}/lib' } },
                  ],
                },
              ],
            },
            servers: { 'by-argument': { command: ['sh', '${CLAUDE_PROJECT_DIR}/guard.sh'], intercept: ['PreToolUse'] } },
          },
          'globalValue',
        );
      },
    });
    await h.prompt('go');
    const call = h.items().find((i) => i.kind === 'tool' && i.callId === 'c1');
    expect(call).toMatchObject({ status: 'blocked' });
    expect(JSON.stringify(call)).toContain('names the workspace folder in what it runs');
    expect(existsSync(h.workspace.file('pwned'))).toBe(false);
    const { records } = await h.root.engineHost.engine.audit.read(h.root.chat.currentSessionId ?? '');
    const errors = records.filter((r) => r.type === 'hook_run').map((r) => [r.hook_name, r.error ?? r.reason]);
    expect(errors).toContainEqual(['by-env', expect.stringContaining('"by-env" did not run: it names the workspace folder')]);
    expect(existsSync(h.workspace.file('planted-ran'))).toBe(false);
  });

  it('a guard of yours that does not run because it names the workspace still keeps the call from running', async () => {
    h = await startChat({}, [bash, text('done')], {
      trusted: false,
      setup: (context) => {
        const guard = path.join(context.storageUri.fsPath, 'guard.sh');
        // The user's own guard: it denies every Bash call (exit 2), told which project it guards.
        writeFileSync(guard, '#!/bin/sh\necho "the user says no" >&2\nexit 2\n');
        stub.setConfig('hookpilot.permissionMode', 'bypassPermissions', 'globalValue');
        stub.setConfig(
          'hookpilot.hooks',
          {
            hooks: {
              PreToolUse: [
                { matcher: 'Bash', hooks: [{ type: 'command', name: 'user-guard', command: `sh ${guard} --root "$CLAUDE_PROJECT_DIR"` }] },
              ],
            },
          },
          'globalValue',
        );
      },
    });
    await h.prompt('go');
    const call = h.items().find((i) => i.kind === 'tool' && i.callId === 'c1');
    // Trusted, the guard blocks this call; untrusted, its refusal must not be an allow.
    expect(existsSync(h.workspace.file('pwned'))).toBe(false);
    expect(call).toMatchObject({ status: 'blocked' });
  });

  it("an rpc server runs in the empty folder, the user's module answers; granting trust restarts it in the workspace", async () => {
    h = await startChat({ 'guardsrv.py': pythonRpcServer('allow', PLANTED_MARK) }, [bash, text('done')], {
      trusted: false,
      setup: (context) => {
        const lib = path.join(context.storageUri.fsPath, 'lib');
        mkdirSync(lib);
        writeFileSync(
          path.join(lib, 'guardsrv.py'),
          pythonRpcServer('deny', recordWhere(path.join(context.storageUri.fsPath, 'where.json'))),
        );
        stub.setConfig('hookpilot.permissionMode', 'bypassPermissions', 'globalValue');
        const state = path.join(context.storageUri.fsPath, 'fixture.json');
        stub.setConfig(
          'hookpilot.hooks',
          {
            servers: {
              guard: { command: ['python3', '-m', 'guardsrv'], env: { PYTHONPATH: lib }, intercept: ['PreToolUse'], onFailure: 'block' },
              // Says where each start of it ran.
              where: {
                command: [process.execPath, FIXTURE_SERVER],
                env: { FIXTURE_STATE: state, FIXTURE_CAPS: '{"observe":[],"intercept":[]}' },
              },
            },
          },
          'globalValue',
        );
      },
    });
    await h.prompt('go');
    expect(existsSync(h.workspace.file('planted-ran'))).toBe(false);
    const call = h.items().find((i) => i.kind === 'tool' && i.callId === 'c1');
    expect(call).toMatchObject({ status: 'blocked' });
    expect(JSON.stringify(call)).toContain(`deny from ${path.join(h.storageDir, 'lib', 'guardsrv.py')}`);
    const where = JSON.parse(readFileSync(path.join(h.storageDir, 'where.json'), 'utf8')) as { cwd: string; project: string };
    expect(where).toEqual({ cwd: hooksCwd(h), project: h.workspace.dir });
    const fixtureCwd = () => (JSON.parse(readFileSync(path.join(h!.storageDir, 'fixture.json'), 'utf8')) as { cwd: string }).cwd;
    await until(
      () => existsSync(path.join(h!.storageDir, 'fixture.json')) && fixtureCwd() === hooksCwd(h!),
      'the server started in the empty folder',
    );

    stub.setTrusted(true);
    await until(() => fixtureCwd() === h!.workspace.dir, 'the server restarted in the workspace folder');
  });
});
