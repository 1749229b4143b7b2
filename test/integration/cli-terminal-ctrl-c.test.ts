import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, expect, it, vi } from 'vitest';
import { startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { SCRIPTED_MODEL_ID, stall } from '../support/model-server';
import { isProcessAlive } from '../support/process-liveness';
import { killSessionProcesses } from '../../src/core/process/marked-processes';
import { procStat } from '../../src/core/process/proc-stat';
import { hooksJson } from '../support/workspace';

// A terminal's Ctrl-C signals its whole foreground process group, not only the CLI: the spawner
// helpers live in sessions of their own, so the first one cancels the turn as the CLI decides,
// and at the second, neither a SessionEnd hook still running nor an async one that ignores
// SIGTERM outlives the CLI.

const bundle = useCliBundle();
let bed: Testbed | undefined;
const sessions: number[] = [];
afterEach(async () => {
  for (const sid of sessions.splice(0)) killSessionProcesses(sid);
  await bed?.close();
  bed = undefined;
});

it('a second Ctrl-C from a terminal leaves no SessionEnd hook running', async () => {
  bed = await startTestbed(
    bundle.bundle,
    {
      'hooks/end.sh': '#!/bin/sh\necho $$ > end.pid\nsleep 30\n',
      'hooks/async-end.sh': "#!/bin/sh\ntrap '' TERM\necho $$ > async-end.pid\nwhile :; do sleep 1; done\n",
      '.vscode/hooks.json': hooksJson({
        SessionEnd: [
          {
            hooks: [
              { type: 'command', command: './hooks/end.sh', timeout: 60 },
              { type: 'command', command: './hooks/async-end.sh', async: true },
            ],
          },
        ],
      }),
    },
    [stall(1)],
  );
  const args = [
    'run',
    'hello',
    '--cwd',
    bed.workspace.dir,
    '--base-url',
    bed.server.url,
    '--model',
    SCRIPTED_MODEL_ID,
    '--max-retries',
    '0',
  ];
  // As a shell with job control starts it: a process group of its own, the terminal's foreground group.
  const cli = spawn(process.execPath, [bundle.bundle, ...args], { env: bed.env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  cli.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => cli.on('exit', (code) => resolve(code)));
  const ctrlC = () => process.kill(-cli.pid!, 'SIGINT');
  try {
    await vi.waitFor(() => expect(bed!.server.requests.length).toBeGreaterThan(0), { timeout: 15_000, interval: 50 });
    ctrlC();
    const pidOf = (name: string) => {
      const file = bed!.workspace.file(name);
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (!/^\d+\n$/.test(text)) throw new Error(`${name} not written yet`);
      return Number(text);
    };
    const [end, asyncEnd] = await vi.waitFor(() => [pidOf('end.pid'), pidOf('async-end.pid')], { timeout: 15_000, interval: 25 });
    for (const pid of [end, asyncEnd]) {
      const sid = procStat(pid)?.session;
      if (sid !== undefined) sessions.push(sid);
    }
    ctrlC();
    expect(await exited).toBe(130);
    await vi.waitFor(
      () => expect({ end: isProcessAlive(end), asyncEnd: isProcessAlive(asyncEnd) }).toEqual({ end: false, asyncEnd: false }),
      { timeout: 5_000, interval: 50 },
    );
  } finally {
    if (cli.exitCode === null) process.kill(-cli.pid!, 'SIGKILL');
  }
}, 60_000);
