import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBashTool, type BashInput } from '../../src/core/agent/tools/bash-tool';
import { resolveShell } from '../../src/core/agent/tools/shell-environment';
import type { ToolContext, ToolResult } from '../../src/core/agent/tools/tool';
import { PrestartedShells } from '../../src/core/process/prestarted-shells';
import { BASH_SHELLS_ARG } from '../../src/core/process/spawner/spawner-protocol';
import { SpawnerProcessRunner } from '../../src/core/process/spawner/spawner-process-runner';
import { untilWaiting } from '../support/prestarted';
import { SPAWNER_EXEC_ARGV, SPAWNER_SOURCE, untilViaHelper } from '../support/spawner';
import { useLeftoverProcesses, waitUntilDead } from '../support/process-liveness';

let dir: string;
const leftovers = useLeftoverProcesses();
/** Never hands out a shell: every command spawns bash afresh. */
const noShells = new PrestartedShells({ bash: true });
noShells.dispose();
const fresh = createBashTool(noShells);
const waitingShells = new PrestartedShells({ bash: true });
const prestarted = createBashTool(waitingShells);
/** A spawner helper with bash shells, as the CLI and the extension run the tool. */
const helper = new SpawnerProcessRunner({ modulePath: SPAWNER_SOURCE, execArgv: SPAWNER_EXEC_ARGV, args: [BASH_SHELLS_ARG] });
const viaHelper = createBashTool(helper);
let bash = fresh;
let throughWaitingShell = false;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'tools-bash-')));
});

afterAll(() => {
  waitingShells.dispose();
  helper.dispose();
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function context(extra: Partial<ToolContext> = {}): ToolContext {
  return { workspaceRoot: dir, cwd: dir, signal: new AbortController().signal, env: process.env, sessionId: 's1', ...extra };
}

/**
 * Runs the command as the tool does. Through a waiting shell, a no-op first starts one for
 * this directory and environment, and the command must take it (when bash is on PATH).
 */
async function run(input: BashInput, extra: Partial<ToolContext> = {}): Promise<ToolResult> {
  if (!throughWaitingShell) return bash.run(bash.inputSchema.parse(input), context(extra));
  const bashOnPath = (extra.env ?? process.env).PATH === process.env.PATH;
  await bash.run({ command: 'true' }, context(extra));
  if (bashOnPath) await untilWaiting(waitingShells);
  const before = waitingShells.waiting;
  const result = bash.run(bash.inputSchema.parse(input), context(extra));
  if (!input.run_in_background) expect(waitingShells.waiting).toBe(bashOnPath ? before - 1 : before);
  return result;
}

function readPid(file: string): number {
  const pid = Number(readFileSync(file, 'utf8').trim());
  leftovers.push(pid);
  return pid;
}

describe.each([['spawned afresh'], ['from a waiting bash'], ['through the spawner helper']] as const)('Bash tool, %s', (mode) => {
  beforeEach(async () => {
    throughWaitingShell = mode === 'from a waiting bash';
    bash = mode === 'spawned afresh' ? fresh : mode === 'from a waiting bash' ? prestarted : viaHelper;
    if (mode === 'through the spawner helper') await untilHelperReady();
  });

  it('returns stdout and stderr in the Claude Code response shape', async () => {
    const result = await run({ command: 'echo hello; echo oops >&2', description: 'Say hello' });
    expect(result).toEqual({
      ok: true,
      content: 'hello\noops',
      response: { stdout: 'hello\n', stderr: 'oops\n', interrupted: false, isImage: false },
    });
  });

  it('runs with bash in the working directory', async () => {
    const result = await run({ command: 'pwd; echo "${BASH_VERSION:+bash}"' });
    expect(result.ok && result.content).toBe(`${dir}\nbash`);
  });

  it('falls back to sh when bash is not on PATH', async () => {
    const result = await run({ command: 'echo "$0"' }, { env: { ...process.env, PATH: join(dir, 'no-bin-here') } });
    expect(result.ok && result.content).toBe('/bin/sh');
  });

  it('says when a command printed nothing', async () => {
    expect(await run({ command: 'true' })).toMatchObject({ ok: true, content: '(no output)' });
  });

  it('reports a non-zero exit as "Exit code N" with the output', async () => {
    const result = await run({ command: 'echo partial; echo bad >&2; exit 3' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBe('Exit code 3\npartial\nbad');
    expect(result.interrupted).toBeUndefined();
    expect(result.response).toEqual({ stdout: 'partial\n', stderr: 'bad\n', interrupted: false, isImage: false });
  });

  it('reports death by signal as 128 + the signal number', async () => {
    const result = await run({ command: 'kill -TERM $$' });
    expect(!result.ok && result.error.split('\n')[0]).toBe('Exit code 143');
  });

  it('times out, killing a backgrounded grandchild too', async () => {
    const pidFile = join(dir, 'pid');
    const result = await run({ command: `sleep 30 & echo $! > "${pidFile}"; echo started; wait`, timeout: 300 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBe('Command timed out after 300 ms\nstarted');
    expect(result.interrupted).toBe(true);
    expect(result.response).toMatchObject({ stdout: 'started\n', interrupted: true });
    expect(await waitUntilDead(readPid(pidFile), 5_000)).toBe(true);
  });

  it('stops on abort and reports the call as interrupted', async () => {
    const pidFile = join(dir, 'pid');
    const controller = new AbortController();
    const running = run({ command: `sleep 30 & echo $! > "${pidFile}"; wait` }, { signal: controller.signal });
    // Aborted once the command runs (its background job is written down), not after a guessed delay.
    await vi.waitFor(() => expect(readFileSync(pidFile, 'utf8')).toMatch(/^\d+\n$/), { timeout: 10_000, interval: 10 });
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ ok: false, interrupted: true, error: expect.stringMatching(/^Command aborted/) });
    expect(await waitUntilDead(readPid(pidFile), 5_000)).toBe(true);
  });

  it('times out, killing also what left its process group: a job of its own (set -m), a new session (setsid)', async () => {
    const jobFile = join(dir, 'job');
    const sessionFile = join(dir, 'session');
    const result = await run({
      command: `set -m; sleep 30 & echo $! > "${jobFile}"; setsid sh -c 'echo $$ > "${sessionFile}"; exec sleep 30' & until [ -s "${sessionFile}" ]; do sleep 0.01; done; wait`,
      timeout: 300,
    });
    // Job control reports the setsid that forked and exited: "[2]+ Done ...".
    expect(!result.ok && result.error).toMatch(/^Command timed out after 300 ms/);
    expect(await waitUntilDead(readPid(jobFile), 5_000)).toBe(true);
    expect(await waitUntilDead(readPid(sessionFile), 5_000)).toBe(true);
  });

  it('stops on abort also what left its process group (setsid)', async () => {
    const pidFile = join(dir, 'pid');
    const controller = new AbortController();
    const running = run({ command: `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 30' & wait` }, { signal: controller.signal });
    await vi.waitFor(() => expect(readFileSync(pidFile, 'utf8')).toMatch(/^\d+\n$/), { timeout: 10_000, interval: 10 });
    controller.abort();
    expect(await running).toMatchObject({ ok: false, interrupted: true });
    expect(await waitUntilDead(readPid(pidFile), 5_000)).toBe(true);
  });

  it('caps the output the model sees, cutting the middle', async () => {
    const result = await run({ command: "echo START; head -c 100000 /dev/zero | tr '\\0' a; echo; echo END" });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.content.length).toBeLessThanOrEqual(30_000);
    expect(result.content.startsWith('START\naaa')).toBe(true);
    expect(result.content.endsWith('aaa\nEND')).toBe(true);
    expect(result.content).toMatch(/\[\d+ characters truncated\]/);
  });

  it('keeps credentials out of the environment', async () => {
    const secrets = {
      OPENAI_API_KEY: 'k1',
      GITHUB_TOKEN: 't1',
      CLIENT_SECRET: 's1',
      AWS_SECRET_ACCESS_KEY: 'a1',
      PGPASSWORD: 'p1',
      SENTRY_DSN: 'd1',
      MY_PRIVATE_KEY: 'pk1',
      NPM_AUTH_TOKEN: 'n1',
      NPM_CONFIG__AUTH: 'n2',
      GOOGLE_APPLICATION_CREDENTIALS: 'c1',
      MYSQL_PWD: 'm1',
      DB_PASS: 'dp1',
      DATABASE_URL: 'postgres://u:pw1@h/db',
      HTTPS_PROXY: 'http://me:proxypw@proxy:3128',
    };
    const env = {
      ...process.env,
      PLAIN_SETTING: 'visible',
      PLAIN_URL: 'https://example.invalid/x',
      TOKENIZERS_PARALLELISM: 'false',
      ...secrets,
    };
    const result = await run({ command: 'env' }, { env });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    for (const kept of ['PLAIN_SETTING=visible', 'PLAIN_URL=https://example.invalid/x', 'TOKENIZERS_PARALLELISM=false', `PWD=${dir}`])
      expect(result.content).toContain(kept);
    for (const name of Object.keys(secrets)) expect(result.content).not.toMatch(new RegExp(`^${name}=`, 'm'));
  });

  it('lets through the secret-looking variables the user passes by name, and no others', async () => {
    const env = { ...process.env, GITHUB_TOKEN: 'passed-token', NPM_AUTH_TOKEN: 'kept-back' };
    const result = await run({ command: 'echo "gh=$GITHUB_TOKEN npm=$NPM_AUTH_TOKEN"' }, { env, passEnv: ['GITHUB_TOKEN'] });
    expect(result).toMatchObject({ ok: true, content: 'gh=passed-token npm=' });
  });

  it('runs a command of several lines, a here-document included, as bash -c does', async () => {
    const result = await run({ command: 'cat <<EOF\nline one\n$((1 + 1))\nEOF\necho "[$0]"; exit 4' });
    expect(result).toMatchObject({ ok: false, error: `Exit code 4\nline one\n2\n[${resolveShell(process.env)}]` });
  });

  it('gives the command an empty stdin', async () => {
    expect(await run({ command: 'cat; echo "read $?"' })).toMatchObject({ ok: true, content: 'read 0' });
  });

  it('refuses run_in_background with an explanation', async () => {
    const marker = join(dir, 'ran');
    const result = await run({ command: `touch "${marker}"`, run_in_background: true });
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('run_in_background is not supported') });
    expect(() => readFileSync(marker)).toThrow();
  });

  it('validates the timeout bound in its schema', () => {
    expect(bash.inputSchema.safeParse({ command: 'ls', timeout: 600_001 }).success).toBe(false);
    expect(bash.inputSchema.safeParse({ command: 'ls', timeout: 600_000 }).success).toBe(true);
    expect(bash.inputSchema.safeParse({ timeout: 10 }).success).toBe(false);
  });
});

describe("Bash tool's git and a repository the model wrote outside a `.git` folder", () => {
  /** No global or system config of the person's: the test reads git's own defaults. */
  const gitEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    ...extra,
  });

  it('refuses a folder laid out as a bare repository, whose config names a program git would run', async () => {
    // What the Write tool may write in acceptEdits mode: no `.git` in any of these paths. Git
    // run in such a folder reads its config (an alias here; core.fsmonitor, a textconv driver).
    const marker = join(dir, 'config-program-ran');
    for (const sub of ['evil/objects', 'evil/refs']) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, 'evil', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(dir, 'evil', 'config'), `[core]\n\tbare = false\n\tworktree = ..\n[alias]\n\tst = "!touch '${marker}'"\n`);
    const result = await fresh.run({ command: 'cd evil && { git st; git status; }' }, context({ env: gitEnv() }));
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('cannot use bare repository') });
    expect(existsSync(marker)).toBe(false);
  });

  it('still works in an ordinary repository, and keeps the settings the environment gives git', async () => {
    const env = gitEnv({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'Env Person' });
    const result = await fresh.run(
      {
        command: 'git init -q && git status --porcelain=v1 --branch | head -c 2 && git config user.name && git config safe.bareRepository',
      },
      // GIT_CONFIG_KEY_0 looks like a credential's name: passed by name, as a person would.
      context({ env, passEnv: ['GIT_CONFIG_KEY_0'] }),
    );
    expect(result).toMatchObject({ ok: true, content: '##Env Person\nexplicit' });
  });
});

const untilHelperReady = () => untilViaHelper(helper);

describe('Bash tool through the spawner helper', () => {
  it('runs the command in a bash the helper started ahead of need, not in this process', async () => {
    await untilHelperReady();
    await viaHelper.run({ command: 'true' }, context());
    // The helper starts the next shell once the run is over; give it the time to.
    await vi.waitFor(
      async () => {
        const result = await viaHelper.run(
          { command: 'echo "$PPID $(cut -d" " -f22 /proc/$$/stat) $(cut -d" " -f22 /proc/self/stat)"' },
          context(),
        );
        const [parent, shellStart, commandStart] = (result.ok ? result.content : '').split(' ').map(Number);
        expect(parent).toBe(helper.helperPid);
        // Started before the command line it runs (clock ticks since boot).
        expect(shellStart).toBeLessThan(commandStart);
      },
      { timeout: 10_000, interval: 50 },
    );
  });
});

describe("Bash tool with a session's marker", () => {
  it("sets it in every command, tells each command's group as it starts and ends, and a shell started for one command still fits the next", async () => {
    const shells = new PrestartedShells({ bash: true });
    const groups: number[] = [];
    const ended: number[] = [];
    const tool = createBashTool(shells, {
      marker: 'session-1',
      onRunStarted: (pgid) => groups.push(pgid),
      onRunEnded: (pgid) => ended.push(pgid),
    });
    try {
      expect(await tool.run({ command: 'echo "$HOOKPILOT_BASH_SESSION"' }, context())).toMatchObject({ ok: true, content: 'session-1' });
      await untilWaiting(shells);
      const result = tool.run({ command: 'echo "$HOOKPILOT_BASH_SESSION"' }, context());
      expect(shells.waiting).toBe(0);
      expect(await result).toMatchObject({ ok: true, content: 'session-1' });
      expect(groups).toHaveLength(2);
      expect(ended).toEqual(groups);
    } finally {
      shells.dispose();
    }
  });
});

describe('Bash tool from waiting shells, as the model attacks it', () => {
  it('never runs a command in a shell that started with a variable its run does not have (/proc/$$/environ keeps it)', async () => {
    const shells = new PrestartedShells({ bash: true });
    const tool = createBashTool(shells);
    try {
      const env = { ...process.env, GITHUB_TOKEN: 'ghp_passedonlyonce0123' };
      // Passed by name once: the shell started after it has the token in its start environment.
      await tool.run({ command: 'true' }, context({ env, passEnv: ['GITHUB_TOKEN'] }));
      await untilWaiting(shells);
      const result = await tool.run({ command: `tr '\\0' '\\n' < /proc/$$/environ; echo "[$GITHUB_TOKEN]"` }, context({ env }));
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.content).toContain('[]');
      expect(result.content).not.toContain('ghp_passedonlyonce0123');
    } finally {
      shells.dispose();
    }
  });

  it('keeps the command off its command line: a NUL in a command is refused as bash -c refuses it', async () => {
    const result = await prestarted.run({ command: 'echo a\0echo b' }, context());
    const freshResult = await fresh.run({ command: 'echo a\0echo b' }, context());
    expect(result.ok).toBe(false);
    expect(result).toEqual(freshResult);
  });
});

describe('resolveShell', () => {
  it('keeps the shell it found on a PATH: a bash planted later in an earlier folder is not picked up; another PATH is searched again', () => {
    const planted = join(dir, 'planted');
    const other = join(dir, 'other');
    for (const folder of [planted, other]) mkdirSync(folder);
    const bin = '/usr/bin:/bin';
    const found = resolveShell({ PATH: `${planted}:${bin}` });
    expect(found).toMatch(/\/bash$/);
    writeFileSync(join(planted, 'bash'), '#!/bin/sh\necho planted\n', { mode: 0o755 });
    expect(resolveShell({ PATH: `${planted}:${bin}` })).toBe(found);
    writeFileSync(join(other, 'bash'), '#!/bin/sh\necho other\n', { mode: 0o755 });
    expect(resolveShell({ PATH: `${other}:${bin}` })).toBe(join(other, 'bash'));
    // Each PATH keeps its own: going back to the first one does not pick up the planted bash.
    expect(resolveShell({ PATH: `${planted}:${bin}` })).toBe(found);
    // The shell it kept is gone: the same PATH is searched again.
    rmSync(join(other, 'bash'));
    expect(resolveShell({ PATH: `${other}:${bin}` })).toBe(found);
  });

  it('never takes bash from a relative PATH folder, which the command would resolve in the workspace', () => {
    mkdirSync(join(dir, 'tools'));
    writeFileSync(join(dir, 'tools', 'bash'), '#!/bin/sh\necho planted\n', { mode: 0o755 });
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(resolveShell({ PATH: 'tools:/usr/bin:/bin' })).toMatch(/^\/(usr\/)?bin\/bash$/);
    } finally {
      process.chdir(cwd);
    }
  });
});
