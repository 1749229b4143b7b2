import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { directProcessRunner, type ProcessRunner } from '../../src/core/process/process-runner';
import type { RunProcessOptions } from '../../src/core/process/run-process';
import { ThroughPrestartedShell } from '../support/prestarted';
import { isProcessAlive, useLeftoverProcesses, waitUntilDead } from '../support/process-liveness';
import { startSpawnerFromSource } from '../support/spawner';

let dir: string;
const leftovers = useLeftoverProcesses();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'run-process-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const spawner = startSpawnerFromSource();
const prestarted = new ThroughPrestartedShell();
beforeAll(() => spawner.ready());
afterAll(() => {
  spawner.runner.dispose();
  prestarted.dispose();
});

function readPid(file: string): number {
  const pid = Number(readFileSync(file, 'utf8').trim());
  leftovers.push(pid);
  return pid;
}

// Every behaviour holds whether the process is spawned here, by the spawner helper, or
// is a shell started ahead of the run.
describe.each([
  ['spawned directly', () => directProcessRunner],
  ['spawned by the spawner helper', () => spawner.runner],
  ['run by a prestarted shell', () => prestarted],
])('runProcess, %s', (_name, runnerOf: () => ProcessRunner) => {
  const runProcess = (options: RunProcessOptions) => runnerOf().run(options);
  const sh = (command: string, extra: Partial<RunProcessOptions> = {}) =>
    runProcess({ command, shell: true, cwd: dir, env: process.env, ...extra });

  it('reports exit codes and both streams', async () => {
    const result = await sh('echo out; echo err >&2; exit 3');
    expect(result).toMatchObject({ exitCode: 3, signal: null, stdout: 'out\n', stderr: 'err\n', timedOut: false, aborted: false });
    expect(result.spawnError).toBeUndefined();
    expect((await sh('true')).exitCode).toBe(0);
  });

  it('feeds input on stdin and closes it', async () => {
    const result = await sh('cat', { input: '{"a":1}' });
    expect(result.stdout).toBe('{"a":1}');
    // Without input, stdin is closed at once, so a reader sees EOF instead of hanging.
    expect((await sh('cat; echo done', { timeoutMs: 5_000 })).stdout).toBe('done\n');
  });

  it('ignores a child that never reads its stdin (EPIPE)', async () => {
    const result = await sh('exit 0', { input: 'x'.repeat(4 * 1024 * 1024) });
    expect(result.exitCode).toBe(0);
    expect(result.spawnError).toBeUndefined();
  });

  it('runs in cwd with the given env', async () => {
    const result = await sh('pwd; echo "$HP_TEST_VAR"', { env: { PATH: process.env.PATH, HP_TEST_VAR: 'v1' } });
    expect(result.stdout.split('\n').slice(0, 2)).toEqual([realpathSync(dir), 'v1']);
  });

  it('uses a named shell and passes args as positional parameters', async () => {
    const result = await runProcess({
      command: 'echo "[$1][$2] ${BASH_VERSION:+bash}"',
      args: ['a b', '$HOME'],
      shell: 'bash',
      cwd: dir,
      env: process.env,
    });
    expect(result.stdout).toBe('[a b][$HOME] bash\n');
  });

  it('passes exec-form args verbatim, without a shell', async () => {
    const result = await runProcess({ command: 'printf', args: ['%s|', '$HOME', '`id`', '"q"', 'a;b'], cwd: dir, env: process.env });
    expect(result.stdout).toBe('$HOME|`id`|"q"|a;b|');
  });

  it('times out, killing the whole process group including a grandchild', async () => {
    const pidFile = join(dir, 'pid');
    const result = await sh(`sleep 30 & echo $! > "${pidFile}"; wait`, { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.aborted).toBe(false);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(await waitUntilDead(readPid(pidFile), 5_000)).toBe(true);
  });

  it('on timeout or abort, also kills what left the group (setsid), found by the run marker it carries', async () => {
    const timedOutFile = join(dir, 'timed-out');
    const timedOut = await sh(
      `echo "$HOOKPILOT_RUN_ID"; setsid sh -c 'echo $$ > "${timedOutFile}"; exec sleep 30' & until [ -s "${timedOutFile}" ]; do sleep 0.01; done; wait`,
      {
        timeoutMs: 300,
        runMarker: 'run-1',
      },
    );
    expect(timedOut).toMatchObject({ timedOut: true, stdout: 'run-1\n' });
    expect(await waitUntilDead(readPid(timedOutFile), 5_000)).toBe(true);

    const abortedFile = join(dir, 'aborted');
    const controller = new AbortController();
    const running = sh(`setsid sh -c 'echo $$ > "${abortedFile}"; exec sleep 30' & wait`, {
      signal: controller.signal,
      runMarker: 'run-2',
    });
    await vi.waitFor(() => expect(readFileSync(abortedFile, 'utf8')).toMatch(/^\d+\n$/), { timeout: 10_000, interval: 10 });
    controller.abort();
    expect((await running).aborted).toBe(true);
    expect(await waitUntilDead(readPid(abortedFile), 5_000)).toBe(true);
  });

  it('escalates to SIGKILL for a grandchild that ignores SIGTERM', async () => {
    const pidFile = join(dir, 'pid');
    const result = await sh(`sh -c 'trap "" TERM; sleep 30' & echo $! > "${pidFile}"; wait`, { timeoutMs: 200, killGraceMs: 200 });
    expect(result.timedOut).toBe(true);
    expect(await waitUntilDead(readPid(pidFile), 5_000)).toBe(true);
  });

  it('resolves even when a backgrounded grandchild keeps stdout open', async () => {
    const pidFile = join(dir, 'pid');
    const result = await sh(`sleep 30 & echo $! > "${pidFile}"; echo parent done`);
    const pid = readPid(pidFile);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('parent done\n');
    expect(isProcessAlive(pid)).toBe(true);
  });

  it('caps 50 MB of output per stream and reports truncation', async () => {
    const result = await sh('head -c 52428800 /dev/zero; head -c 3000000 /dev/zero >&2', { maxOutputBytes: 1024 * 1024 });
    expect(result.exitCode).toBe(0);
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stdout.length).toBe(1024 * 1024);
    expect(result.stderrTruncated).toBe(true);
    expect(result.stderr.length).toBe(1024 * 1024);
  });

  it('does not flag output that fits exactly', async () => {
    const result = await sh('printf 12345', { maxOutputBytes: 5 });
    expect(result).toMatchObject({ stdout: '12345', stdoutTruncated: false });
  });

  it('kills the group on abort and reports it as aborted, not timed out', async () => {
    const pidFile = join(dir, 'pid');
    const controller = new AbortController();
    const running = sh(`sleep 30 & echo $! > "${pidFile}"; wait`, { signal: controller.signal, timeoutMs: 20_000 });
    // Aborted once the group has its grandchild, whatever the machine's load.
    await vi.waitFor(() => expect(readFileSync(pidFile, 'utf8')).toMatch(/^\d+\n$/), { timeout: 10_000, interval: 10 });
    controller.abort();
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(await waitUntilDead(readPid(pidFile), 5_000)).toBe(true);
  });

  it('does not start when the signal is already aborted', async () => {
    const marker = join(dir, 'ran');
    const result = await sh(`touch "${marker}"`, { signal: AbortSignal.abort() });
    expect(result.aborted).toBe(true);
    expect(() => readFileSync(marker)).toThrow();
  });

  it('reports a missing executable as a spawn error without throwing', async () => {
    const result = await runProcess({ command: join(dir, 'missing-binary'), cwd: dir, env: process.env });
    expect(result.spawnError).toMatch(/ENOENT/);
    expect(result.exitCode).toBeNull();
  });

  it('reports a non-executable file in exec form as a spawn error', async () => {
    const script = join(dir, 'not-exec.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n');
    chmodSync(script, 0o644);
    const result = await runProcess({ command: script, cwd: dir, env: process.env });
    expect(result.spawnError).toMatch(/EACCES/);
  });

  it('names a missing working directory', async () => {
    const result = await sh('true', { cwd: join(dir, 'nope') });
    expect(result.spawnError).toContain('working directory does not exist');
  });

  it('reports death by signal', async () => {
    const result = await sh('kill -SEGV $$');
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGSEGV');
  });
});
