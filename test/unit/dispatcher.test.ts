import { describe, expect, it } from 'vitest';
import { actions, type AgentHook } from '../../src/core/hooks/agent-hook';
import { formatTaggedContext } from '../../src/core/hooks/dispatch-result';
import type { HookDefinition } from '../../src/core/hooks/types';
import { makeEngine, payload, toolPayload } from '../support/hook-fixtures';

const hook = (name: string, impl: Partial<AgentHook>): AgentHook => ({ name, ...impl }) as AgentHook;
const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('HookDispatcher', () => {
  it('touches only subscribers of the event', async () => {
    const { add, dispatcher } = makeEngine();
    const calls: string[] = [];
    add(hook('post', { postToolUse: () => void calls.push('post') }));
    add(hook('pre', { preToolUse: () => void calls.push('pre') }));
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(calls).toEqual(['pre']);
    expect(dispatcher.hasSubscribers('Stop')).toBe(false);
  });

  it('applies the tool matcher and content patterns', async () => {
    const { add, dispatcher } = makeEngine();
    const seen: string[] = [];
    add(hook('bash-only', { matcher: 'Bash', preToolUse: (p) => void seen.push(`bash:${p.tool_name}`) }));
    add(
      hook('env-files', {
        matcher: 'Read|Write',
        contentPatterns: ['file_path:.env'],
        preToolUse: (p) => void seen.push(`env:${String(p.tool_input.file_path)}`),
      }),
    );
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Read', { file_path: '/w/.env' }));
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Read', { file_path: '/w/a.ts' }));
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(seen).toEqual(['env:/w/.env', 'bash:Bash']);
  });

  it('merges decisions deny > ask > allow and keeps every reason', async () => {
    const { add, dispatcher } = makeEngine();
    add(hook('allow', { preToolUse: () => ({ decision: 'allow' }) }));
    add(hook('ask', { preToolUse: () => actions.ask('needs a look') }));
    let r = await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(r.decision).toBe('ask');
    add(hook('deny', { preToolUse: () => actions.block('no way') }));
    r = await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(r.decision).toBe('deny');
    expect(r.blocked).toBe(true);
    expect(r.blockingErrors).toEqual([{ hookName: 'deny', reason: 'no way' }]);
  });

  it('runs equal priorities in parallel and priority groups in order; a block stops later groups', async () => {
    const { add, dispatcher } = makeEngine();
    const order: string[] = [];
    const bStarted = deferred();
    // a waits for b to start: only possible if they run concurrently.
    add(
      hook('a', {
        priority: 1,
        preToolUse: async () => {
          await bStarted.promise;
          order.push('a');
        },
      }),
    );
    add(
      hook('b', {
        priority: 1,
        preToolUse: () => {
          bStarted.resolve();
          order.push('b');
        },
      }),
    );
    add(hook('first', { priority: 0, preToolUse: () => void order.push('first') }));
    add(
      hook('blocker', {
        priority: 2,
        preToolUse: () => {
          order.push('blocker');
          return actions.block('stop here');
        },
      }),
    );
    add(hook('late', { priority: 3, preToolUse: () => void order.push('late') }));
    const r = await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(order).toEqual(['first', 'b', 'a', 'blocker']);
    expect(r.runs.find((x) => x.hookName === 'late')?.status).toBe('skipped');
  });

  it('runs in-process hooks before process hooks whatever their priority', async () => {
    const order: string[] = [];
    const { add, addDefinitions, dispatcher } = makeEngine({
      handlers: {
        command: {
          run: async () => {
            order.push('command');
            return { status: 'success', effects: {}, trace: { durationMs: 1 } };
          },
        },
      },
    });
    add(hook('inproc', { priority: 10, preToolUse: () => void order.push('builtin') }));
    addDefinitions([commandDef('cmd', { priority: -5 })]);
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(order).toEqual(['builtin', 'command']);
  });

  it('tags contexts with their hook and event and de-duplicates them within one dispatch', async () => {
    const { add, dispatcher } = makeEngine();
    add(hook('one', { postToolUse: () => actions.injectContext('tests pass') }));
    add(hook('two', { postToolUse: () => actions.injectContext('tests pass') }));
    add(hook('three', { postToolUse: () => actions.injectContext('lint clean') }));
    const r = await dispatcher.dispatch(toolPayload('PostToolUse', 'Bash', { command: 'ls' }, { tool_response: {} }));
    expect(r.contexts.map(formatTaggedContext)).toEqual(['[Hook: one | PostToolUse] tests pass', '[Hook: three | PostToolUse] lint clean']);
  });

  it('keeps warnings and metadata from every hook', async () => {
    const { add, dispatcher } = makeEngine();
    add(hook('w', { postToolUse: () => actions.warning('slow tool') }));
    add(hook('m', { postToolUse: () => actions.metadata('lines', 42) }));
    const r = await dispatcher.dispatch(toolPayload('PostToolUse', 'Bash', { command: 'ls' }, { tool_response: {} }));
    expect(r.warnings).toContain('slow tool');
    expect(r.metadata).toEqual({ lines: 42 });
  });

  it('pipes a rewritten input into the next priority group', async () => {
    const { add, dispatcher } = makeEngine();
    let seen: unknown;
    add(hook('rewrite', { priority: 0, preToolUse: () => actions.mutateInput({ command: 'ls -la' }) }));
    add(hook('next', { priority: 1, preToolUse: (p) => void (seen = p.tool_input) }));
    const r = await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(seen).toEqual({ command: 'ls -la' });
    expect(r.updatedInput).toEqual({ command: 'ls -la' });
  });

  it("selects each group on the input it will see: an earlier group's rewrite brings a later guard's `if` into play, or out of it", async () => {
    const { builtin, addDefinitions, add, dispatcher } = makeEngine();
    add(
      hook('alias', {
        priority: 0,
        preToolUse: (p) => {
          const file = String((p.tool_input as { file_path: string }).file_path);
          return file.startsWith('@env/') ? actions.mutateInput({ file_path: `config/${file.slice(5)}.env` }) : undefined;
        },
      }),
    );
    const guarded: string[] = [];
    const guard: HookDefinition = {
      ...commandDef('env-guard'),
      spec: { type: 'builtin', builtin: 'env-guard' },
      priority: 1,
      if: 'Write(**/*.env)',
    };
    builtin.register(
      guard.id,
      hook('env-guard', {
        preToolUse: (p) => (guarded.push(String((p.tool_input as { file_path: string }).file_path)), actions.block('no .env')),
      }),
    );
    addDefinitions([guard]);

    const aliased = await dispatcher.dispatch(toolPayload('PreToolUse', 'Write', { file_path: '@env/prod' }));
    expect(guarded).toEqual(['config/prod.env']);
    expect(aliased.decision).toBe('deny');
    const plain = await dispatcher.dispatch(toolPayload('PreToolUse', 'Write', { file_path: 'notes.txt' }));
    expect(guarded).toEqual(['config/prod.env']);
    expect(plain.decision).toBeUndefined();
  });

  it('warns when two hooks of one group rewrite the same input', async () => {
    const { add, dispatcher } = makeEngine();
    add(hook('r1', { preToolUse: () => actions.mutateInput({ command: 'a' }) }));
    add(hook('r2', { preToolUse: () => actions.mutateInput({ command: 'b' }) }));
    const r = await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'x' }));
    expect(r.warnings.some((w) => w.includes('both rewrote the input'))).toBe(true);
  });

  it('a hook that hangs is cut at its timeout and fails open by default', async () => {
    const { add, dispatcher } = makeEngine();
    add(hook('hang', { timeoutMs: 50, preToolUse: () => new Promise(() => undefined) }));
    const r = await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(r.runs[0].status).toBe('timeout');
    expect(r.blocked).toBe(false);
    expect(r.warnings[0]).toMatch(/timed out/);
  });

  it('onFailure: block turns a crash into a deny', async () => {
    const { add, dispatcher } = makeEngine();
    add(
      hook('crash', {
        onFailure: 'block',
        preToolUse: () => {
          throw new Error('boom');
        },
      }),
    );
    const r = await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(r.decision).toBe('deny');
    expect(r.blockReason).toMatch(/crash.*boom/);
    expect(r.runs[0].failedClosed).toBe(true);
  });

  it('PermissionRequest: of equal answers the first wins, and a timed-out approval denies', async () => {
    const { add, dispatcher } = makeEngine({ timeouts: { approvalMs: 60 } });
    const slow = deferred();
    add(
      hook('slow-allow', {
        onPermissionRequest: async () => {
          await slow.promise;
          return actions.override('allow', 'late');
        },
      }),
    );
    add(
      hook('fast-allow', {
        onPermissionRequest: () => {
          setTimeout(slow.resolve, 5);
          return actions.override('allow', 'fine');
        },
      }),
    );
    add(hook('context', { onPermissionRequest: () => actions.injectContext('policy: reads are fine') }));
    let r = await dispatcher.dispatch(toolPayload('PermissionRequest', 'Read', { file_path: 'a' }));
    expect(r.permission).toMatchObject({ behavior: 'allow', hookName: 'fast-allow' });
    expect(r.contexts).toHaveLength(1);

    const timeoutEngine = makeEngine({ timeouts: { approvalMs: 40 } });
    timeoutEngine.add(hook('never', { onPermissionRequest: () => new Promise(() => undefined) }));
    r = await timeoutEngine.dispatcher.dispatch(toolPayload('PermissionRequest', 'Bash', { command: 'ls' }));
    expect(r.permission?.behavior).toBe('deny');
    expect(r.runs[0].status).toBe('timeout');
  });

  it('Stop: a block keeps the agent going with the reason', async () => {
    const { add, dispatcher } = makeEngine();
    add(hook('keep-going', { onStop: () => actions.blockStop('tests are failing') }));
    const r = await dispatcher.dispatch(payload('Stop', { stop_hook_active: false, last_assistant_message: 'done' }));
    expect(r.blocked).toBe(true);
    expect(r.blockReason).toBe('tests are failing');
  });

  it('observers never delay the caller', async () => {
    const { add, dispatcher } = makeEngine({ timeouts: { observerMs: 1000 } });
    const release = deferred();
    let finished = false;
    add(
      hook('slow-observer', {
        onTurnStart: async () => {
          await release.promise;
          finished = true;
        },
      }),
    );
    dispatcher.emit(payload('TurnStart', { turn_index: 0, prompt: 'hi' }));
    expect(finished).toBe(false);
    release.resolve();
    await dispatcher.drain(1000);
    expect(finished).toBe(true);
  });

  it('an async in-process hook (AsyncAgentHook) does not hold up an intercept event; its context arrives later', async () => {
    const { add, dispatcher } = makeEngine();
    const release = deferred();
    add({
      ...hook('reporter', {
        postToolUse: async () => {
          await release.promise;
          return { ...actions.block('ignored: async hooks cannot block'), additionalContext: 'reported upstream' };
        },
      }),
      async: true,
    });
    const result = await dispatcher.dispatch(toolPayload('PostToolUse', 'Bash', { command: 'ls' }, { tool_response: { stdout: '' } }));
    expect(result.blocked).toBe(false);
    expect(result.contexts).toEqual([]);
    expect(dispatcher.takeAsyncContexts('sess-1')).toEqual([]);
    release.resolve();
    await dispatcher.drain(1000);
    expect(dispatcher.takeAsyncContexts('sess-1').map((c) => c.content)).toEqual(['reported upstream']);
  });

  it('disabled and untrusted workspace hooks do not run; user hooks still do', async () => {
    const ran: string[] = [];
    const cmd = {
      run: async (inv: { hook: HookDefinition }) => {
        ran.push(inv.hook.name);
        return { status: 'success' as const, effects: {}, trace: { durationMs: 0 } };
      },
    };
    const { registry, addDefinitions, dispatcher } = makeEngine({ trusted: false, handlers: { command: cmd } });
    addDefinitions([
      commandDef('from-workspace', { source: { kind: 'hooksJson', file: '.vscode/hooks.json' } }),
      commandDef('from-user', { source: { kind: 'user' } }),
    ]);
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(ran).toEqual(['from-user']);
    expect(registry.current().find('from-workspace')?.inactiveReason).toBe('untrusted');
    registry.setTrusted(true);
    registry.setEnabled('from-user', false);
    ran.length = 0;
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(ran).toEqual(['from-workspace']);
  });

  it('a reload during a dispatch does not change the hooks that dispatch runs', async () => {
    const { add, registry, dispatcher } = makeEngine();
    const gate = deferred();
    const ran: string[] = [];
    add(
      hook('old', {
        preToolUse: async () => {
          await gate.promise;
          ran.push('old');
        },
      }),
    );
    const inFlight = dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    registry.load([]);
    gate.resolve();
    const r = await inFlight;
    expect(ran).toEqual(['old']);
    expect(r.runs).toHaveLength(1);
    const after = await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(after.runs).toHaveLength(0);
  });

  it('session hooks run only for their session and go away when it is cleared', async () => {
    const { registry, builtin, dispatcher } = makeEngine();
    const seen: string[] = [];
    const def: HookDefinition = {
      id: 'session:x:PreToolUse',
      name: 'temp',
      event: 'PreToolUse',
      priority: 0,
      enabled: true,
      source: { kind: 'session' },
      spec: { type: 'builtin', builtin: 'temp' },
    };
    builtin.register(def.id, hook('temp', { preToolUse: (p) => void seen.push(p.session_id) }));
    registry.addSessionHook('sess-1', def);
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    await dispatcher.dispatch({ ...toolPayload('PreToolUse', 'Bash', { command: 'ls' }), session_id: 'other' });
    registry.clearSession('sess-1');
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(seen).toEqual(['sess-1']);
  });

  it('forgetSession drops what a session kept: its once hooks may run again, its untaken async contexts are gone', async () => {
    const { builtin, addDefinitions, add, dispatcher } = makeEngine();
    const ran: string[] = [];
    const def: HookDefinition = { ...commandDef('first-only'), spec: { type: 'builtin', builtin: 'first-only' }, once: true };
    builtin.register(def.id, hook('first-only', { preToolUse: (p) => void ran.push(p.session_id) }));
    addDefinitions([def]);
    add({ ...hook('reporter', { postToolUse: () => ({ additionalContext: 'late news' }) }), async: true });

    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    const post = toolPayload('PostToolUse', 'Bash', { command: 'ls' }, { tool_response: { stdout: '' } });
    await dispatcher.dispatch(post);
    await dispatcher.dispatch({ ...post, session_id: 'sess-2' });
    await dispatcher.drain(1000);
    expect(ran).toEqual(['sess-1']);

    dispatcher.forgetSession('sess-1');
    expect(dispatcher.takeAsyncContexts('sess-1')).toEqual([]);
    expect(dispatcher.takeAsyncContexts('sess-2').map((c) => c.content)).toEqual(['late news']);
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }));
    expect(ran).toEqual(['sess-1', 'sess-1']);
  });

  it('audits the event, each hook run and the merged decision', async () => {
    const { add, dispatcher, audit } = makeEngine();
    add(hook('guard', { preToolUse: () => actions.block('rm -rf is not allowed') }));
    const r = await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'rm -rf /' }));
    expect(audit.entries.map((e) => e.type)).toEqual(['event', 'hook_run', 'dispatch']);
    expect(audit.entries.every((e) => !('dispatch_id' in e) || e.dispatch_id === r.dispatchId)).toBe(true);
    expect(audit.entries[1]).toMatchObject({ hook_name: 'guard', decision: 'deny', reason: 'rm -rf is not allowed' });
    expect(audit.entries[2]).toMatchObject({ decision: 'deny' });
  });

  it('an `if` filter on a non-tool event means the hook never runs (Claude Code)', async () => {
    const ran: string[] = [];
    const cmd = {
      run: async (inv: { hook: HookDefinition }) => {
        ran.push(inv.hook.name);
        return { status: 'success' as const, effects: {}, trace: { durationMs: 0 } };
      },
    };
    const { addDefinitions, dispatcher } = makeEngine({ handlers: { command: cmd } });
    addDefinitions([commandDef('if-on-stop', { event: 'Stop', if: 'Bash(git *)' }), commandDef('if-git', { if: 'Bash(git *)' })]);
    await dispatcher.dispatch(payload('Stop', { stop_hook_active: false, last_assistant_message: '' }));
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'npm test && git push' }));
    await dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'npm test' }));
    expect(ran).toEqual(['if-git']);
  });
});

describe('PermissionRequest across hooks', () => {
  type Answer = 'allow' | 'deny' | 'ask' | undefined;
  /** Command hooks whose answers come from `answers` by hook name; `ran` records who ran. */
  function permissionHooks(answers: Record<string, Answer>, delays: Record<string, number> = {}) {
    const ran: string[] = [];
    const cmd = {
      run: async (inv: { hook: HookDefinition }) => {
        await new Promise((resolve) => setTimeout(resolve, delays[inv.hook.name] ?? 0));
        ran.push(inv.hook.name);
        const behavior = answers[inv.hook.name];
        const effects = behavior ? { permission: { behavior, message: `${inv.hook.name} says ${behavior}` } } : {};
        return { status: 'success' as const, effects, trace: { durationMs: 0 } };
      },
    };
    const engine = makeEngine({ handlers: { command: cmd } });
    const def = (name: string, over: Partial<HookDefinition> = {}) => commandDef(name, { event: 'PermissionRequest', ...over });
    return { ...engine, ran, def };
  }
  const request = () => toolPayload('PermissionRequest', 'Bash', { command: 'echo pwned > pwned.txt' });

  it("a workspace hook that answers allow first does not pre-empt the user's deny", async () => {
    const { addDefinitions, dispatcher, ran, def } = permissionHooks({ 'ws-allow': 'allow', 'user-deny': 'deny' });
    addDefinitions([
      def('ws-allow', { priority: -10, source: { kind: 'hooksJson', file: '.vscode/hooks.json' } }),
      def('user-deny', { source: { kind: 'user' } }),
    ]);
    const r = await dispatcher.dispatch(request());
    expect(ran).toEqual(['ws-allow', 'user-deny']);
    expect(r.permission).toMatchObject({ behavior: 'deny', hookName: 'user-deny', message: 'user-deny says deny' });
  });

  it('within a group, a deny that comes later still wins over an allow', async () => {
    const { addDefinitions, dispatcher, def } = permissionHooks({ 'fast-allow': 'allow', 'slow-deny': 'deny' }, { 'slow-deny': 30 });
    addDefinitions([def('slow-deny'), def('fast-allow')]);
    expect((await dispatcher.dispatch(request())).permission).toMatchObject({ behavior: 'deny', hookName: 'slow-deny' });
  });

  it('ask wins over allow; among equal answers the first stays; a deny ends the later groups', async () => {
    const { addDefinitions, dispatcher, ran, def } = permissionHooks({ first: 'allow', asker: 'ask', second: 'ask', denier: 'deny' });
    addDefinitions([def('first', { priority: -1 }), def('asker'), def('second', { priority: 1 })]);
    expect((await dispatcher.dispatch(request())).permission).toMatchObject({ behavior: 'ask', hookName: 'asker' });
    addDefinitions([def('denier', { priority: 2 }), def('never', { priority: 3 })]);
    ran.length = 0;
    const r = await dispatcher.dispatch(request());
    expect(r.permission).toMatchObject({ behavior: 'deny', hookName: 'denier' });
    expect(ran).toEqual(['first', 'asker', 'second', 'denier']);
    expect(r.runs.find((run) => run.hookName === 'never')?.status).toBe('skipped');
  });

  it('a failing hook denies, whatever another hook allowed', async () => {
    const cmd = {
      run: async (inv: { hook: HookDefinition }) =>
        inv.hook.name === 'crash'
          ? { status: 'error' as const, error: 'boom', trace: { durationMs: 0 } }
          : { status: 'success' as const, effects: { permission: { behavior: 'allow' as const } }, trace: { durationMs: 0 } },
    };
    const { addDefinitions, dispatcher } = makeEngine({ handlers: { command: cmd } });
    addDefinitions([
      commandDef('allow', { event: 'PermissionRequest', priority: -1 }),
      commandDef('crash', { event: 'PermissionRequest' }),
    ]);
    const r = await dispatcher.dispatch(toolPayload('PermissionRequest', 'Bash', { command: 'ls' }));
    expect(r.permission).toMatchObject({ behavior: 'deny', hookName: 'crash' });
  });
});

describe('default timeouts by scope', () => {
  it("the workspace's defaults time its own hooks; the user's and the built-ins keep theirs", () => {
    const { dispatcher } = makeEngine();
    dispatcher.setTimeouts({ commandMs: 20_000 }, { commandMs: 1, interceptorMs: 1, observerMs: 1 });
    const workspace = { kind: 'hooksJson', file: '.vscode/hooks.json' } as const;
    expect(dispatcher.timeoutFor(commandDef('user'))).toBe(20_000);
    expect(dispatcher.timeoutFor(commandDef('ws', { source: workspace }))).toBe(1);
    const builtin = commandDef('Cancellation', { source: { kind: 'builtin' }, spec: { type: 'builtin', builtin: 'Cancellation' } });
    expect(dispatcher.timeoutFor(builtin)).toBe(5_000);
    expect(dispatcher.timeoutFor({ ...builtin, source: workspace })).toBe(1);
    expect(dispatcher.timeoutFor(commandDef('claude', { source: { kind: 'claudeUser' }, event: 'Stop' }))).toBe(20_000);
  });

  it("the managed policy's hooks keep Hookpilot's defaults, never the person's or the workspace's", () => {
    const { dispatcher } = makeEngine();
    const managed = { kind: 'managed', file: '/etc/hookpilot/managed-settings.json' } as const;
    const policyServer = commandDef('policy', { source: managed, spec: { type: 'rpc', server: 'policy', mode: 'intercept' } });
    dispatcher.setTimeouts({ commandMs: 1, interceptorMs: 1 }, { commandMs: 1, interceptorMs: 1 });
    expect(dispatcher.timeoutFor(commandDef('guard', { source: managed }))).toBe(600_000);
    expect(dispatcher.timeoutFor(policyServer)).toBe(5_000);
  });
});

function commandDef(name: string, over: Partial<HookDefinition> = {}): HookDefinition {
  return {
    id: name,
    name,
    event: 'PreToolUse',
    priority: 0,
    enabled: true,
    source: { kind: 'user' },
    spec: { type: 'command', command: 'true' },
    ...over,
  };
}
