import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { killMarkedProcesses, markedProcesses, markerEntry } from '../../src/core/process/marked-processes';
import { isProcessAlive, waitUntilDead } from '../support/process-liveness';

let dir: string;
const leftovers: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'marked-processes-'));
});

afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
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
    const host = join(dir, 'host.ts');
    writeFileSync(
      host,
      `import { killMarkedProcessesAtExit, markerEntry } from ${JSON.stringify(join(__dirname, '../../src/core/process/marked-processes'))};
killMarkedProcessesAtExit(markerEntry(${JSON.stringify(MARKER)}, ${JSON.stringify(value)}));
process.exit(0);
`,
    );
    execFileSync(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, host], { timeout: 20_000 });
    expect(await waitUntilDead(marked, 5_000)).toBe(true);
  });

  it('leaves them running once the host no longer asks', async () => {
    const value = randomUUID();
    const [marked] = await startDetached('setsid sleep 30 & echo $! >> PIDS', value, 1);
    const host = join(dir, 'host.ts');
    writeFileSync(
      host,
      `import { killMarkedProcessesAtExit, markerEntry } from ${JSON.stringify(join(__dirname, '../../src/core/process/marked-processes'))};
killMarkedProcessesAtExit(markerEntry(${JSON.stringify(MARKER)}, ${JSON.stringify(value)})).dispose();
process.exit(0);
`,
    );
    execFileSync(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, host], { timeout: 20_000 });
    expect(isProcessAlive(marked)).toBe(true);
  });
});
