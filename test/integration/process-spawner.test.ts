import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { childProcessesOf } from '../../src/core/process/child-processes';
import type { RunProcessOptions } from '../../src/core/process/run-process';
import { SpawnerPool } from '../../src/core/process/spawner/spawner-pool';
import { SpawnerProcessRunner } from '../../src/core/process/spawner/spawner-process-runner';
import { waitUntilDead } from '../support/process-liveness';
import { SPAWNER_EXEC_ARGV, SPAWNER_SOURCE, startSpawnerFromSource, untilViaHelper } from '../support/spawner';

const execFileAsync = promisify(execFile);
let dir: string;
let logs: string[];
const log = (level: 'info' | 'warn', message: string) => logs.push(`${level}: ${message}`);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spawner-'));
  logs = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** After one run the helper keeps shells waiting: the run that follows takes one of them. */
async function untilShellsWait(runner: SpawnerProcessRunner, helperPid: number): Promise<void> {
  expect((await runner.run({ command: 'true', shell: true, cwd: dir, env: process.env })).exitCode).toBe(0);
  await vi.waitFor(() => expect(childProcessesOf(helperPid).length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
}

function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

async function waitForFile(file: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const text = readFileSync(file, 'utf8').trim();
      if (text) return text;
    } catch {
      // Not written yet.
    }
    if (Date.now() > deadline) throw new Error(`${file} never appeared`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the process spawner helper', () => {
  it('runs processes in the helper, not in the host', async () => {
    const spawner = startSpawnerFromSource(log);
    try {
      await spawner.ready();
      const result = await spawner.runner.run({ command: 'echo $PPID', shell: true, cwd: dir, env: process.env });
      expect(Number(result.stdout.trim())).toBe(spawner.runner.helperPid);
      expect(spawner.runner.helperPid).not.toBe(process.pid);
    } finally {
      spawner.runner.dispose();
    }
  });

  it("holds no credential of the host's in its own environment, which what it starts can read", async () => {
    process.env.SPAWNER_TEST_API_KEY = 'sk-spawner-test-4b1d9e';
    const spawner = startSpawnerFromSource(log);
    try {
      await spawner.ready();
      const env = { PATH: process.env.PATH };
      const result = await spawner.runner.run({ command: 'tr "\\0" "\\n" < /proc/$PPID/environ', shell: true, cwd: dir, env });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('ELECTRON_RUN_AS_NODE=1');
      expect(result.stdout).not.toContain('sk-spawner-test-4b1d9e');
    } finally {
      spawner.runner.dispose();
      delete process.env.SPAWNER_TEST_API_KEY;
    }
  });

  it('kills the running process group when the helper dies, reports it, and starts a new helper', async () => {
    const spawner = startSpawnerFromSource(log);
    try {
      await spawner.ready();
      const firstHelper = spawner.runner.helperPid!;
      await untilShellsWait(spawner.runner, firstHelper);
      const pidFile = join(dir, 'pid');
      const running = spawner.runner.run({
        command: `sleep 30 & echo $! > "${pidFile}"; wait`,
        shell: true,
        cwd: dir,
        env: process.env,
        timeoutMs: 20_000,
      });
      const grandchild = Number(await waitForFile(pidFile));
      process.kill(firstHelper, 'SIGKILL');
      const result = await running;
      expect(result.spawnError).toMatch(/process spawner stopped while the process ran \(killed by SIGKILL\)/);
      expect(await waitUntilDead(grandchild, 5_000)).toBe(true);
      expect(logs.join('\n')).toMatch(/warn: process spawner stopped \(killed by SIGKILL\); it restarts on the next hook/);

      await spawner.ready();
      expect(spawner.runner.helperPid).not.toBe(firstHelper);
      expect((await spawner.runner.run({ command: 'echo again', shell: true, cwd: dir, env: process.env })).stdout).toBe('again\n');
    } finally {
      spawner.runner.dispose();
    }
  });

  it('a helper that dies before its start report is read: the run is not started a second time, and its process group is killed', async () => {
    const spawner = startSpawnerFromSource(log);
    try {
      await spawner.ready();
      const helperPid = spawner.runner.helperPid!;
      // The helper's first run: no shell waits yet, so one is started for it, reported before it has the command.
      const pidFile = join(dir, 'pid');
      const ranFile = join(dir, 'ran');
      const running = spawner.runner.run({
        command: `echo ran >> "${ranFile}"; sleep 30 & echo $! > "${pidFile}"; wait`,
        shell: true,
        cwd: dir,
        env: process.env,
        timeoutMs: 5_000,
      });
      // This host's event loop stays busy until the helper is dead: its report and its exit wait to be read together.
      const deadline = Date.now() + 15_000;
      while (!/^\d+\n$/.test(readIfThere(pidFile))) if (Date.now() > deadline) throw new Error('the hook never started');
      process.kill(helperPid, 'SIGKILL');
      while (!/^\d+ \(.*\) Z/.test(readIfThere(`/proc/${helperPid}/stat`)))
        if (Date.now() > deadline) throw new Error('the helper never died');
      const result = await running;
      expect(result.spawnError).toMatch(/process spawner stopped while the process ran \(killed by SIGKILL\)/);
      expect(readFileSync(ranFile, 'utf8')).toBe('ran\n');
      expect(await waitUntilDead(Number(readFileSync(pidFile, 'utf8')), 5_000)).toBe(true);
    } finally {
      spawner.runner.dispose();
    }
  });

  describe('a helper stopped by what it runs (kill -STOP $PPID) does not hang the run', () => {
    async function stoppedHelperRun(extra: Partial<RunProcessOptions>) {
      const spawner = startSpawnerFromSource(log);
      await spawner.ready();
      const helperPid = spawner.runner.helperPid!;
      const pidFile = join(dir, 'pid');
      const running = spawner.runner.run({
        // A process that left every group of the run: only its marker finds it.
        command: `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 30' & kill -STOP ${helperPid}; wait`,
        shell: true,
        cwd: dir,
        env: process.env,
        runMarker: randomUUID(),
        ...extra,
      });
      const detached = Number(await waitForFile(pidFile));
      await vi.waitFor(() => expect(readIfThere(`/proc/${helperPid}/stat`)).toMatch(/^\d+ \(.*\) T/), { timeout: 10_000, interval: 20 });
      return { spawner, helperPid, running, detached };
    }

    async function expectReplaced(spawner: ReturnType<typeof startSpawnerFromSource>, helperPid: number) {
      expect(await waitUntilDead(helperPid, 5_000)).toBe(true);
      await vi.waitFor(() => expect(spawner.runner.helperPid).not.toBe(helperPid), { timeout: 10_000, interval: 20 });
      await spawner.ready();
      expect((await spawner.runner.run({ command: 'echo again', shell: true, cwd: dir, env: process.env })).stdout).toBe('again\n');
    }

    it('its timeout still ends it: what it started is killed and the helper is replaced', async () => {
      const { spawner, helperPid, running, detached } = await stoppedHelperRun({ timeoutMs: 500 });
      try {
        expect(await running).toMatchObject({ timedOut: true, aborted: false });
        expect(await waitUntilDead(detached, 5_000)).toBe(true);
        await expectReplaced(spawner, helperPid);
      } finally {
        spawner.runner.dispose();
      }
    });

    it('an abort still ends it: what it started is killed and the helper is replaced', async () => {
      const controller = new AbortController();
      const { spawner, helperPid, running, detached } = await stoppedHelperRun({ signal: controller.signal });
      try {
        controller.abort();
        expect(await running).toMatchObject({ timedOut: false, aborted: true });
        expect(await waitUntilDead(detached, 5_000)).toBe(true);
        await expectReplaced(spawner, helperPid);
      } finally {
        spawner.runner.dispose();
      }
    });
  });

  it('on dispose, answers runs in flight as aborted and the helper kills their processes and exits', async () => {
    const spawner = startSpawnerFromSource(log);
    await spawner.ready();
    const helperPid = spawner.runner.helperPid!;
    const pidFile = join(dir, 'pid');
    const running = spawner.runner.run({ command: `sleep 30 & echo $! > "${pidFile}"; wait`, shell: true, cwd: dir, env: process.env });
    const grandchild = Number(await waitForFile(pidFile));
    spawner.runner.dispose();
    expect((await running).aborted).toBe(true);
    expect(await waitUntilDead(grandchild, 15_000)).toBe(true);
    expect(await waitUntilDead(helperPid, 15_000)).toBe(true);
    // A disposed runner still runs what it is given, directly.
    expect((await spawner.runner.run({ command: 'echo direct', shell: true, cwd: dir, env: process.env })).stdout).toBe('direct\n');
  });

  it('on dispose, kills what a hung helper started even when its start was never reported, and the helper', async () => {
    const runner = new SpawnerProcessRunner({ modulePath: join(__dirname, '../fixtures/spawner/deaf-helper.js'), log });
    await untilViaHelper(runner);
    const helperPid = runner.helperPid!;
    const pidFile = join(dir, 'pid');
    const running = runner.run({ command: `sleep 30 & echo $! > "${pidFile}"; wait`, shell: true, cwd: dir, env: process.env });
    const grandchild = Number(await waitForFile(pidFile));
    runner.dispose();
    expect((await running).aborted).toBe(true);
    expect(await waitUntilDead(grandchild, 15_000)).toBe(true);
    expect(await waitUntilDead(helperPid, 15_000)).toBe(true);
  });

  it('on dispose, also kills what in a group ignored SIGTERM', async () => {
    const spawner = startSpawnerFromSource(log);
    await spawner.ready();
    const pidFile = join(dir, 'pid');
    const running = spawner.runner.run({
      command: `(trap "" TERM; exec sleep 30) & echo $! > "${pidFile}"; wait`,
      shell: true,
      cwd: dir,
      env: process.env,
      killGraceMs: 200,
    });
    const stubborn = Number(await waitForFile(pidFile));
    spawner.runner.dispose();
    await running;
    expect(await waitUntilDead(stubborn, 15_000)).toBe(true);
  });

  it('when the host goes away, kills at once what ignored the SIGTERM of a run already answered, not after its grace', async () => {
    const spawner = startSpawnerFromSource(log);
    await spawner.ready();
    const helperPid = spawner.runner.helperPid!;
    const pidFile = join(dir, 'pid');
    const controller = new AbortController();
    const running = spawner.runner.run({
      command: `(trap "" TERM; exec sleep 60) & echo $! > "${pidFile}"; wait`,
      shell: true,
      cwd: dir,
      env: process.env,
      signal: controller.signal,
      killGraceMs: 120_000,
    });
    const stubborn = Number(await waitForFile(pidFile));
    controller.abort();
    // The shell leading the run dies of SIGTERM, so the run is answered while its SIGKILL waits.
    expect(await running).toMatchObject({ aborted: true });
    spawner.runner.dispose();
    expect(await waitUntilDead(helperPid, 15_000)).toBe(true);
    expect(await waitUntilDead(stubborn, 15_000)).toBe(true);
  });

  it('on dispose, signals nothing later once the helper stopped its runs and left: their numbers may name other programs by then', async () => {
    const spawner = startSpawnerFromSource(log);
    await spawner.ready();
    const helperPid = spawner.runner.helperPid!;
    let group: number | undefined;
    const running = spawner.runner.run({ command: 'sleep 30', shell: true, cwd: dir, env: process.env, onSpawn: (pid) => (group = pid) });
    await vi.waitFor(() => expect(group).toBeDefined(), { timeout: 10_000 });
    const kill = vi.spyOn(process, 'kill');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      spawner.runner.dispose();
      expect((await running).aborted).toBe(true);
      // Reaped, not only dead: the host has handled the helper's exit.
      const reaped = () => {
        try {
          process.kill(helperPid, 0);
          return false;
        } catch {
          return true;
        }
      };
      await vi.waitFor(() => expect(reaped()).toBe(true), { timeout: 15_000, interval: 25 });
      // Past the deadline for a helper that never leaves.
      vi.advanceTimersByTime(60_000);
      expect(kill).not.toHaveBeenCalledWith(-group!, 'SIGKILL');
    } finally {
      vi.useRealTimers();
      kill.mockRestore();
    }
  });

  it('answers a request it cannot run instead of leaving it pending', async () => {
    const spawner = startSpawnerFromSource(log);
    try {
      await spawner.ready();
      const result = await spawner.runner.run({ command: 'echo never', shell: true, cwd: dir, env: process.env, timeoutMs: Number.NaN });
      expect(result.spawnError).toMatch(/^invalid spawn request: /);
      expect(spawner.runner.load).toBe(0);
    } finally {
      spawner.runner.dispose();
    }
  });

  it('spawns directly when the helper is not built', async () => {
    const runner = new SpawnerProcessRunner({ modulePath: join(dir, 'missing.js'), log });
    runner.warmUp();
    expect(runner.viaHelper).toBe(false);
    expect((await runner.run({ command: 'echo ok', shell: true, cwd: dir, env: process.env })).stdout).toBe('ok\n');
    expect(logs).toEqual([
      expect.stringMatching(/^info: process spawner .*missing\.js is not built; hook processes are spawned directly$/),
    ]);
    runner.dispose();
  });

  it('gives up on a helper that keeps dying and spawns directly from then on', async () => {
    const runner = new SpawnerProcessRunner({ modulePath: join(__dirname, '../fixtures/spawner/crash-at-start.js'), log });
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        runner.warmUp();
        const pid = runner.helperPid!;
        expect(pid).toBeGreaterThan(0);
        expect(await waitUntilDead(pid, 5_000)).toBe(true);
        // The runner has seen the exit: the next warmUp counts it and starts another helper.
        await vi.waitFor(() => expect(runner.helperPid).toBeUndefined(), { timeout: 5_000, interval: 10 });
      }
      runner.warmUp();
      expect(runner.helperPid).toBeUndefined();
      expect((await runner.run({ command: 'echo still runs', shell: true, cwd: dir, env: process.env })).stdout).toBe('still runs\n');
      expect(logs.at(-1)).toMatch(/process spawner stopped \(exit code 7\); hook processes are spawned directly from now on/);
    } finally {
      runner.dispose();
    }
  });

  it("spreads processes that run at the same time over the pool's helpers, and restarts a helper that died", async () => {
    const pool = new SpawnerPool({ modulePath: SPAWNER_SOURCE, execArgv: SPAWNER_EXEC_ARGV, size: 2 });
    try {
      pool.warmUp();
      await vi.waitFor(() => expect(pool.ready).toBe(true), { timeout: 20_000, interval: 20 });
      const parents = await Promise.all(
        [1, 2].map(() => pool.run({ command: 'sleep 0.3; echo $PPID', shell: true, cwd: dir, env: process.env })),
      );
      const pids = parents.map((r) => Number(r.stdout.trim()));
      expect(new Set(pids).size).toBe(2);
      expect(pids).not.toContain(process.pid);

      // A helper that dies is started again by the next run, not only by the next reload.
      process.kill(pids[0], 'SIGKILL');
      expect(await waitUntilDead(pids[0], 5_000)).toBe(true);
      await vi.waitFor(() => expect(pool.ready).toBe(false), { timeout: 5_000, interval: 10 });
      expect((await pool.run({ command: 'echo still', shell: true, cwd: dir, env: process.env })).stdout).toBe('still\n');
      await vi.waitFor(() => expect(pool.ready).toBe(true), { timeout: 20_000, interval: 20 });
    } finally {
      pool.dispose();
    }
  });

  it('gives consecutive runs to the helper used longest ago, not to the one starting its replacement shell', async () => {
    const pool = new SpawnerPool({ modulePath: SPAWNER_SOURCE, execArgv: SPAWNER_EXEC_ARGV, size: 2 });
    try {
      pool.warmUp();
      await vi.waitFor(() => expect(pool.ready).toBe(true), { timeout: 20_000, interval: 20 });
      const parents: number[] = [];
      for (let i = 0; i < 4; i++)
        parents.push(Number((await pool.run({ command: 'echo $PPID', shell: true, cwd: dir, env: process.env })).stdout.trim()));
      expect(new Set(parents).size).toBe(2);
      expect(parents[0]).not.toBe(parents[1]);
      expect(parents[2]).toBe(parents[0]);
      expect(parents[3]).toBe(parents[1]);
    } finally {
      pool.dispose();
    }
  });

  it('does not keep an idle host alive, and the helper leaves with its host', async () => {
    const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', join(__dirname, '../fixtures/spawner/idle-host.ts')], {
      cwd: join(__dirname, '../..'),
      timeout: 20_000,
    });
    const report = JSON.parse(stdout) as { helperPid: number; stdout: string };
    expect(report.stdout).toBe('ran\n');
    expect(await waitUntilDead(report.helperPid, 5_000)).toBe(true);
  });
});
