import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HookEventName } from '../../src/core/hooks/events';
import { CommandHookHandler } from '../../src/core/hooks/handlers/command-handler';
import { TRACE_MAX_CHARS } from '../../src/core/hooks/protocol/interpret-command';
import type { HandlerSpec, HookOutcome, HookPayload } from '../../src/core/hooks/types';
import { useLeftoverProcesses, waitUntilDead } from '../support/process-liveness';

type CommandSpec = Extract<HandlerSpec, { type: 'command' }>;

let dir: string;
let projectDir: string;
const leftovers = useLeftoverProcesses();

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'command-hook-')));
  projectDir = join(dir, 'project');
  mkdirSync(projectDir);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes an executable sh script and returns its path. */
function script(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

interface RunOptions {
  event?: HookEventName;
  payload?: Record<string, unknown>;
  timeoutMs?: number;
  signal?: AbortSignal;
  handler?: CommandHookHandler;
  onFailure?: 'continue' | 'block';
}

function run(spec: Omit<CommandSpec, 'type'> | string, options: RunOptions = {}): Promise<HookOutcome> {
  const event = options.event ?? 'PreToolUse';
  const fullSpec: CommandSpec = typeof spec === 'string' ? { type: 'command', command: `"${spec}"` } : { type: 'command', ...spec };
  const payload: HookPayload = {
    hook_event_name: event,
    session_id: 'session-42',
    transcript_path: join(dir, 'transcript.jsonl'),
    cwd: projectDir,
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    ...options.payload,
  };
  const handler = options.handler ?? new CommandHookHandler({ spillDir: join(dir, 'spill') });
  return handler.run({
    hook: {
      id: 'h1',
      name: 'test hook',
      event,
      priority: 0,
      enabled: true,
      source: { kind: 'user' },
      spec: fullSpec,
      onFailure: options.onFailure,
    },
    payload,
    signal: options.signal ?? new AbortController().signal,
    timeoutMs: options.timeoutMs ?? 10_000,
    projectDir,
  });
}

function effectsOf(outcome: HookOutcome) {
  if (outcome.status !== 'success' && outcome.status !== 'blocking-error')
    throw new Error(`expected effects, got ${JSON.stringify(outcome)}`);
  return outcome.effects;
}

function readPid(file: string): number {
  const pid = Number(readFileSync(file, 'utf8').trim());
  leftovers.push(pid);
  return pid;
}

describe('CommandHookHandler: execution', () => {
  it('sends the payload as JSON on stdin', async () => {
    const out = join(dir, 'stdin.json');
    await run(script('h.sh', `cat > "${out}"`), { payload: { tool_input: { command: 'rm -rf /' } } });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({
      hook_event_name: 'PreToolUse',
      session_id: 'session-42',
      tool_input: { command: 'rm -rf /' },
    });
  });

  it('sets Claude Code and Hookpilot variables and passes the environment as Claude Code does, secrets included', async () => {
    const out = join(dir, 'env.txt');
    const handler = new CommandHookHandler({
      env: {
        PATH: process.env.PATH,
        HARMLESS: 'yes',
        OPENAI_API_KEY: 'sk-1',
        HOOKPILOT_API_KEY: 'hp',
        GITHUB_TOKEN: 'gh',
        AWS_SECRET: 's',
        my_api_key: 'k',
        GH_TOKEN: 'orig',
      },
    });
    const outcome = await run(
      { command: `env > "${out}"`, env: { GH_TOKEN: '${GITHUB_TOKEN}-from-env', EXTRA: 'at ${CLAUDE_PROJECT_DIR}' } },
      { handler, event: 'PostToolUse' },
    );
    expect(outcome.status).toBe('success');
    const env = Object.fromEntries(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(env).toMatchObject({
      HARMLESS: 'yes',
      CLAUDE_PROJECT_DIR: projectDir,
      HOOKPILOT_PROJECT_DIR: projectDir,
      CLAUDECODE: '1',
      CLAUDE_CODE_SESSION_ID: 'session-42',
      HOOKPILOT_SESSION_ID: 'session-42',
      HOOKPILOT_HOOK_EVENT: 'PostToolUse',
      // A hook is the user's own code: it gets tokens and keys, and its own `env` still wins.
      OPENAI_API_KEY: 'sk-1',
      HOOKPILOT_API_KEY: 'hp',
      GITHUB_TOKEN: 'gh',
      AWS_SECRET: 's',
      my_api_key: 'k',
      GH_TOKEN: 'gh-from-env',
      EXTRA: `at ${projectDir}`,
    });
  });

  it('runs in the payload cwd while CLAUDE_PROJECT_DIR stays at the project root', async () => {
    const sub = join(projectDir, 'sub');
    mkdirSync(sub);
    const outcome = await run({ command: 'echo "$(pwd)|$CLAUDE_PROJECT_DIR"' }, { event: 'SessionStart', payload: { cwd: sub } });
    expect(effectsOf(outcome).additionalContext).toBe(`${sub}|${projectDir}`);
  });

  it('resolves spec.cwd against the project directory', async () => {
    mkdirSync(join(projectDir, 'hooks'));
    const outcome = await run({ command: 'pwd', cwd: 'hooks' }, { event: 'SessionStart', payload: { cwd: dir } });
    expect(effectsOf(outcome).additionalContext).toBe(join(projectDir, 'hooks'));
  });

  it('passes exec-form args verbatim, substituting only the project placeholders', async () => {
    const outcome = await run(
      {
        command: 'printf',
        args: ['%s\\n', '$HOME', '`id`', '"quoted" it', '${CLAUDE_PROJECT_DIR}/a', '${HOOKPILOT_PROJECT_DIR}/b', '$CLAUDE_PROJECT_DIR'],
      },
      { event: 'UserPromptSubmit' },
    );
    expect(effectsOf(outcome).additionalContext).toBe(
      ['$HOME', '`id`', '"quoted" it', `${projectDir}/a`, `${projectDir}/b`, '$CLAUDE_PROJECT_DIR'].join('\n'),
    );
  });

  it('starts sibling hooks concurrently (each waits for the other to have started)', async () => {
    const a = join(dir, 'a.started');
    const b = join(dir, 'b.started');
    const wait = (mine: string, theirs: string) =>
      script(`${mine === a ? 'a' : 'b'}.sh`, `touch "${mine}"; while [ ! -e "${theirs}" ]; do sleep 0.02; done`);
    const [first, second] = await Promise.all([run(wait(a, b), { timeoutMs: 5_000 }), run(wait(b, a), { timeoutMs: 5_000 })]);
    expect([first.status, second.status]).toEqual(['success', 'success']);
  });

  it('runs the no-op fixture script', async () => {
    const outcome = await run(join(__dirname, '../fixtures/hooks/noop.sh'));
    expect(outcome).toMatchObject({ status: 'success', effects: {}, trace: { exitCode: 0 } });
  });
});

describe('CommandHookHandler: stdout protocol (exit 0)', () => {
  it('parses JSON after leading whitespace', async () => {
    const outcome = await run(script('h.sh', `printf '  \\n {"continue":false,"stopReason":"enough"}'`));
    expect(outcome).toMatchObject({ status: 'success', effects: { stop: { reason: 'enough' } } });
  });

  it('treats arrays and JSON strings as plain text', async () => {
    expect(effectsOf(await run(script('a.sh', "echo '[1,2]'"), { event: 'UserPromptSubmit' }))).toEqual({ additionalContext: '[1,2]' });
    expect(effectsOf(await run(script('s.sh', `echo '"x"'`), { event: 'UserPromptSubmit' }))).toEqual({ additionalContext: '"x"' });
  });

  it('ignores a banner followed by JSON, without error', async () => {
    const outcome = await run(
      script('h.sh', `echo banner; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}'`),
    );
    expect(outcome).toMatchObject({ status: 'success', effects: {} });
  });

  it('with stdoutJson "lastLine" (AtomCode), reads a JSON last line after log lines as the answer; other stdout as usual', async () => {
    const deny = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`;
    const logged = script('l.sh', `echo 'checking...'; echo; echo '${deny}'; echo`);
    expect(effectsOf(await run({ command: `"${logged}"`, stdoutJson: 'lastLine' }))).toEqual({ decision: 'deny', reason: 'no' });
    // The same output under Claude Code's rule is text, no decision.
    expect(await run({ command: `"${logged}"` })).toMatchObject({ status: 'success', effects: {} });
    // A last line that is not a JSON object: stdout is read whole, as plain text or as JSON.
    const text = script('t.sh', `echo '${deny}'; echo 'done'`);
    expect(await run({ command: `"${text}"`, stdoutJson: 'lastLine' }, { event: 'UserPromptSubmit' })).toMatchObject({
      status: 'success',
      effects: { additionalContext: `${deny}\ndone` },
    });
    const pretty = script('p.sh', `printf '{\\n  "decision": "block",\\n  "reason": "r"\\n}\\n'`);
    expect(effectsOf(await run({ command: `"${pretty}"`, stdoutJson: 'lastLine' }, { event: 'UserPromptSubmit' }))).toEqual({
      decision: 'block',
      reason: 'r',
    });
  });

  it('adds plain stdout as context only on context events', async () => {
    expect(effectsOf(await run(script('h.sh', 'echo "remember this"'), { event: 'SessionStart' }))).toEqual({
      additionalContext: 'remember this',
    });
    const ignored = await run(script('p.sh', 'echo "not context"'), { event: 'PreToolUse' });
    expect(ignored).toMatchObject({ status: 'success', effects: {}, trace: { stdout: 'not context\n' } });
  });

  it('keeps stderr of a successful hook in the trace only', async () => {
    const outcome = await run(script('h.sh', 'echo debug >&2'), { event: 'UserPromptSubmit' });
    expect(outcome).toMatchObject({ status: 'success', effects: {}, trace: { stderr: 'debug\n', exitCode: 0 } });
  });

  it('reports schema-invalid JSON as a non-blocking error', async () => {
    const outcome = await run(script('h.sh', `echo '{"continue":"no"}'`));
    expect(outcome.status).toBe('error');
    expect(outcome.status === 'error' && outcome.error).toMatch(/invalid hook output/);
  });

  it('rejects hookSpecificOutput for another event', async () => {
    const outcome = await run(script('h.sh', `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"x"}}'`));
    expect(outcome.status === 'error' && outcome.error).toMatch(/hookEventName must be "PreToolUse"/);
  });

  it('applies a PreToolUse decision from JSON', async () => {
    const outcome = await run(
      script(
        'h.sh',
        `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check","updatedInput":{"command":"ls -la"}}}'`,
      ),
    );
    expect(effectsOf(outcome)).toEqual({ decision: 'ask', reason: 'check', updatedInput: { command: 'ls -la' } });
  });

  it('keeps continue:false next to an allow (the stop wins downstream)', async () => {
    const outcome = await run(
      script('h.sh', `echo '{"continue":false,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`),
    );
    expect(effectsOf(outcome)).toMatchObject({ stop: {}, decision: 'allow' });
  });

  it('gives suppressOutput no observable effect', async () => {
    expect(await run(script('h.sh', `echo '{"suppressOutput":true}'`))).toMatchObject({ status: 'success', effects: {} });
  });

  it('reads JSON cut off mid-object as plain text (Claude Code), but as a failure when onFailure is "block"', async () => {
    const cut = script('h.sh', `printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "de'`);
    expect(await run(cut)).toMatchObject({ status: 'success', effects: {} });
    expect(await run(cut, { onFailure: 'block' })).toMatchObject({
      status: 'error',
      error: 'hook stdout starts with "{" but is not valid JSON (cut off?); with onFailure "block" that is a failure',
    });
    expect(await run(script('ok.sh', `echo 'all good'`), { onFailure: 'block' })).toMatchObject({ status: 'success' });
  });

  it('ignores non-JSON garbage on a non-context event', async () => {
    const outcome = await run(script('h.sh', `printf '\\377\\376garbage{{{'`));
    expect(outcome).toMatchObject({ status: 'success', effects: {} });
  });
});

describe('CommandHookHandler: exit codes', () => {
  it('blocks on exit 2 with stderr as the reason', async () => {
    const outcome = await run(script('h.sh', 'echo "rm is not allowed" >&2; exit 2'));
    expect(outcome).toMatchObject({ status: 'blocking-error', reason: 'rm is not allowed', effects: {} });
  });

  it('uses a default reason when exit 2 has no stderr', async () => {
    expect(await run(script('h.sh', 'exit 2'))).toMatchObject({ status: 'blocking-error', reason: 'blocked by hook' });
  });

  it('still blocks on exit 2 with schema-invalid JSON, reason from stderr', async () => {
    const outcome = await run(script('h.sh', `echo '{"continue":"maybe"}'; echo "bad thing" >&2; exit 2`));
    expect(outcome).toMatchObject({ status: 'blocking-error', reason: 'bad thing' });
  });

  it('is not overridden by a JSON allow on exit 2', async () => {
    const outcome = await run(
      script('h.sh', `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'; echo nope >&2; exit 2`),
    );
    expect(outcome).toMatchObject({ status: 'blocking-error', reason: 'nope' });
    expect(effectsOf(outcome).decision).toBeUndefined();
  });

  it('takes the block reason from JSON when exit 2 has one', async () => {
    const outcome = await run(script('h.sh', `echo '{"decision":"block","reason":"tests fail"}'; echo stderr-text >&2; exit 2`), {
      event: 'Stop',
    });
    expect(outcome).toMatchObject({ status: 'blocking-error', reason: 'tests fail', effects: { decision: 'block' } });
  });

  it('shows exit-2 stderr as a warning where exit 2 cannot block', async () => {
    const outcome = await run(script('h.sh', 'echo "heads up" >&2; exit 2'), { event: 'SessionStart' });
    expect(outcome).toMatchObject({ status: 'success', effects: { warnings: ['heads up'] } });
    expect(effectsOf(outcome).decision).toBeUndefined();
  });

  it('lets valid JSON decide on exit 1', async () => {
    const outcome = await run(
      script(
        'h.sh',
        `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'; exit 1`,
      ),
    );
    expect(outcome).toMatchObject({ status: 'success', effects: { decision: 'deny', reason: 'no' } });
  });

  it('reports exit 1 without JSON as a non-blocking error with the first stderr line', async () => {
    const outcome = await run(script('h.sh', 'echo "first problem" >&2; echo "second" >&2; exit 1'));
    expect(outcome).toMatchObject({ status: 'error', error: 'Failed with non-blocking status code 1: first problem' });
  });

  it('reports a missing script (127) as a non-blocking error', async () => {
    const outcome = await run(join(dir, 'does-not-exist.sh'));
    expect(outcome.status === 'error' && outcome.error).toMatch(/^Failed with non-blocking status code 127: .*does-not-exist\.sh/);
  });

  it('reports a non-executable script (126) as a non-blocking error', async () => {
    const file = script('h.sh', 'echo hi');
    chmodSync(file, 0o644);
    const outcome = await run(file);
    expect(outcome).toMatchObject({ status: 'error', trace: { exitCode: 126 } });
    expect(outcome.status === 'error' && outcome.error).toMatch(/^Failed with non-blocking status code 126: .*Permission denied/);
  });

  it('reports an exec-form spawn failure as an error', async () => {
    const outcome = await run({ command: join(dir, 'missing-binary'), args: [] });
    expect(outcome.status === 'error' && outcome.error).toMatch(/^failed to start hook: .*ENOENT/);
  });

  it('reports a crash by signal', async () => {
    const crash = script('h.sh', 'echo dying >&2; kill -SEGV $$');
    // Exec form: the hook itself is the child, so the signal is seen directly.
    const direct = await run({ command: crash, args: [] });
    expect(direct).toMatchObject({
      status: 'error',
      error: 'Terminated by signal SIGSEGV: dying',
      trace: { signal: 'SIGSEGV', exitCode: null },
    });
    // Shell form: sh reports the crash of its child as 128 + signal number.
    expect(await run(crash)).toMatchObject({ status: 'error', error: 'Failed with non-blocking status code 139: dying' });
  });

  it('reports garbage with a failing exit code as an error', async () => {
    const outcome = await run(script('h.sh', `printf '{not json'; exit 3`));
    expect(outcome).toMatchObject({ status: 'error', error: 'Failed with non-blocking status code 3: no stderr output' });
  });
});

describe('CommandHookHandler: limits', () => {
  it('kills a hanging hook at the timeout and leaves no process behind', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const outcome = await run(script('h.sh', `sleep 60 & echo $! > "${pidFile}"; wait`), { timeoutMs: 300 });
    expect(outcome).toMatchObject({ status: 'timeout', error: 'hook timed out after 300 ms' });
    expect(await waitUntilDead(readPid(pidFile), 5_000)).toBe(true);
  });

  it('cancels via the AbortSignal, distinct from a timeout', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const controller = new AbortController();
    const running = run(script('h.sh', `sleep 60 & echo $! > "${pidFile}"; wait`), { signal: controller.signal });
    // Aborted once the hook runs, with its grandchild, whatever the machine's load.
    await vi.waitFor(() => expect(readFileSync(pidFile, 'utf8')).toMatch(/^\d+\n$/), { timeout: 10_000, interval: 10 });
    controller.abort();
    expect((await running).status).toBe('cancelled');
    expect(await waitUntilDead(readPid(pidFile), 5_000)).toBe(true);
  });

  it('counts an abort with a TimeoutError reason as a timeout', async () => {
    const outcome = await run(script('h.sh', 'sleep 60'), { signal: AbortSignal.timeout(150), timeoutMs: 10_000 });
    expect(outcome).toMatchObject({ status: 'timeout', error: 'hook timed out after 10000 ms' });
  });

  it('keeps memory bounded for 50 MB of output and flags the truncation', async () => {
    const outcome = await run(script('h.sh', `head -c 52428800 /dev/zero | tr '\\0' 'a'`), { event: 'UserPromptSubmit' });
    expect(outcome.status).toBe('success');
    expect(outcome.trace.truncated).toBe(true);
    expect(outcome.trace.stdout?.length).toBe(TRACE_MAX_CHARS);
    const effects = effectsOf(outcome);
    expect(effects.warnings?.[0]).toMatch(/exceeded the output size cap/);
    expect(effects.additionalContext?.length).toBeLessThan(3_000);
  });

  it('treats JSON cut off at the output cap as invalid JSON', async () => {
    const body = `printf '{"reason":"'; head -c 3000000 /dev/zero | tr '\\0' 'a'; printf '"}'`;
    const outcome = await run(script('h.sh', body));
    expect(outcome.status === 'error' && outcome.error).toMatch(/exceeded the output size cap/);
    // Exit 2 still blocks, with stderr as the reason.
    expect(await run(script('h2.sh', `${body}; echo too big >&2; exit 2`))).toMatchObject({ status: 'blocking-error', reason: 'too big' });
  });

  it('spills a 12,000-char additionalContext to a file and keeps a preview', async () => {
    const text = 'x'.repeat(11_000) + 'END';
    const outcome = await run(
      script('h.sh', `printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"%s"}}' "${text}"`),
      { event: 'PostToolUse' },
    );
    const context = effectsOf(outcome).additionalContext ?? '';
    expect(context.length).toBeLessThan(2_500);
    expect(context.startsWith('x'.repeat(2_000))).toBe(true);
    const file = /saved in (\S+)\]$/.exec(context)?.[1] ?? '';
    expect(readdirSync(join(dir, 'spill'))).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('spills long plain-text context too, and truncates without a spill directory', async () => {
    const hook = script('h.sh', `head -c 12000 /dev/zero | tr '\\0' 'y'`);
    const spilled = effectsOf(await run(hook, { event: 'SessionStart' })).additionalContext ?? '';
    expect(spilled).toMatch(/the full 12,000 chars are saved in /);
    const truncated = effectsOf(await run(hook, { event: 'SessionStart', handler: new CommandHookHandler() })).additionalContext ?? '';
    expect(truncated).toMatch(/12,000 chars, showing the first 2000\]$/);
    expect(truncated.length).toBeLessThan(2_500);
  });
});
