import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { killMarkedProcesses, markedProcesses, markerEntry, RunGroups } from '../../src/core/process/marked-processes';
import { procStat } from '../../src/core/process/proc-stat';
import { isProcessAlive, useLeftoverProcesses, waitUntilDead } from '../support/process-liveness';

let dir: string;
const leftovers = useLeftoverProcesses();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'marked-processes-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const MARKER = 'HP_TEST_MARKER';

/** Starts `command` with MARKER=value (when given) and returns the pids it wrote, one a line, to `pids`. */
async function startDetached(command: string, value: string | undefined, count: number): Promise<number[]> {
  const pidFile = join(dir, `pids-${randomUUID()}`);
  const env = value === undefined ? { ...process.env } : { ...process.env, [MARKER]: value };
  spawn('sh', ['-c', command.replaceAll('PIDS', `"${pidFile}"`)], { env, stdio: 'ignore', detached: true }).unref();
  let pids: number[] = [];
  await vi.waitFor(
    () => {
      pids = readFileSync(pidFile, 'utf8').trim().split('\n').filter(Boolean).map(Number);
      expect(pids).toHaveLength(count);
    },
    { timeout: 10_000, interval: 20 },
  );
  leftovers.push(...pids);
  return pids;
}

/** A host process that asks for MARKER=value's processes to be killed as it exits (or no longer, `dispose`), then exits. */
function exitingHost(value: string, { dispose }: { dispose: boolean }): void {
  const host = join(dir, 'host.ts');
  const module = JSON.stringify(join(__dirname, '../../src/core/process/marked-processes'));
  const kill = `killMarkedProcessesAtExit(markerEntry(${JSON.stringify(MARKER)}, ${JSON.stringify(value)}))${dispose ? '.dispose()' : ''};`;
  writeFileSync(host, `import { killMarkedProcessesAtExit, markerEntry } from ${module};\n${kill}\nprocess.exit(0);\n`);
  execFileSync(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, host], { timeout: 20_000 });
}

describe('processes found by a marker variable', () => {
  it('kills every process that carries it, whatever its group or session (setsid, a double fork), and none other', async () => {
    const value = randomUUID();
    const marked = await startDetached('setsid sleep 30 & echo $! >> PIDS; (sh -c "sleep 30 & echo \\$! >> PIDS" &)', value, 2);
    const [otherValue] = await startDetached('setsid sleep 30 & echo $! >> PIDS', randomUUID(), 1);
    const [unmarked] = await startDetached('setsid sleep 30 & echo $! >> PIDS', undefined, 1);
    expect(markedProcesses(markerEntry(MARKER, value))).toEqual(expect.arrayContaining(marked));
    killMarkedProcesses(markerEntry(MARKER, value));
    for (const pid of marked) expect(await waitUntilDead(pid, 5_000)).toBe(true);
    expect(isProcessAlive(otherValue)).toBe(true);
    expect(isProcessAlive(unmarked)).toBe(true);
  });

  it('kills them as the host exits, when asked to (process.exit, as a second Ctrl-C ends the CLI)', async () => {
    const value = randomUUID();
    const [marked] = await startDetached('setsid sleep 30 & echo $! >> PIDS', value, 1);
    exitingHost(value, { dispose: false });
    expect(await waitUntilDead(marked, 5_000)).toBe(true);
  });

  it('leaves them running once the host no longer asks', async () => {
    const value = randomUUID();
    const [marked] = await startDetached('setsid sleep 30 & echo $! >> PIDS', value, 1);
    exitingHost(value, { dispose: true });
    expect(isProcessAlive(marked)).toBe(true);
  });
});

/**
 * Starts `script` with sh in a process group of its own, without MARKER; its stdin stays open
 * for `go`. `reaped` settles once the leader has exited and been reaped: until then its zombie
 * holds the number and shows the group to be the run's.
 */
function startGroup(script: string): { pgid: number; go: () => void; reaped: Promise<unknown> } {
  const child = spawn('sh', ['-c', script], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  leftovers.push(child.pid!);
  return { pgid: child.pid!, go: () => child.stdin.end('go\n'), reaped: once(child, 'exit') };
}

/** The pid `sh` wrote to `file` once it is there. */
async function pidWritten(file: string): Promise<number> {
  let pid = NaN;
  await vi.waitFor(() => expect((pid = Number(readFileSync(file, 'utf8')))).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
  leftovers.push(pid);
  return pid;
}

describe("the process groups of a session's runs", () => {
  it('kills what a run left in its group, marker or none, once the run has ended', async () => {
    const groups = new RunGroups(markerEntry(MARKER, randomUUID()));
    const pidFile = join(dir, 'left');
    const run = startGroup(`sleep 30 >/dev/null 2>&1 & echo $! > "${pidFile}"`);
    groups.started(run.pgid);
    const left = await pidWritten(pidFile);
    await run.reaped;
    groups.ended(run.pgid);
    expect(groups.killAll()).toEqual([run.pgid]);
    expect(await waitUntilDead(left, 5_000)).toBe(true);
  });

  it("leaves alone a group that holds nothing seen in it while it was the run's, nor a marker: a stopped one stays stopped", async () => {
    const groups = new RunGroups(markerEntry(MARKER, randomUUID()));
    const pidFile = join(dir, 'later');
    // Seen while only its leader was in it; what it holds later started after, as in a group
    // that took over the number once the run's group had emptied.
    // It ignores SIGHUP: the kernel sends one to a stopped process whose group its leader's exit
    // leaves orphaned, which on a busy machine can come after the stop below.
    const run = startGroup(`read go; trap '' HUP; sleep 30 >/dev/null 2>&1 & echo $! > "${pidFile}"`);
    groups.started(run.pgid);
    await new Promise((resolve) => setTimeout(resolve, 50));
    run.go();
    const later = await pidWritten(pidFile);
    await run.reaped;
    process.kill(later, 'SIGSTOP');
    await vi.waitFor(() => expect(procStat(later)?.state).toBe('T'), { timeout: 5_000 });
    expect(groups.killAll()).toEqual([]);
    expect(procStat(later)?.state).toBe('T');
  });
});
