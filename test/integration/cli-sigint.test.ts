import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeHook, startTestbed, type CliResult, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { stall, text, toolCalls } from '../support/model-server';
import { waitUntilDead } from '../support/process-liveness';
import { killSessionProcesses } from '../../src/core/process/marked-processes';
import { procStat } from '../../src/core/process/proc-stat';
import { hooksJson } from '../support/workspace';

// Ctrl-C cancels the turn: the model stream, the tool and hook processes stop, SessionEnd runs, exit 130.

const sessionEndHook = nodeHook(`fs.writeFileSync('session-end.txt', input.reason);`);
const interruptHook = nodeHook(`fs.writeFileSync('interrupt.txt', input.hook_event_name + ' ' + input.turn_index);`);

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

function processesRunning(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'));
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts the run, waits until `ready`, sends SIGINT, and returns how the CLI ended. */
async function interruptWhen(ready: () => boolean, what: string, args: string[]): Promise<{ result: CliResult }> {
  let child: ChildProcess | undefined;
  const running = bed!.run(args, { onSpawn: (c) => (child = c), timeoutMs: 30_000 });
  await waitFor(ready, what);
  child!.kill('SIGINT');
  return { result: await running };
}

const withSessionEnd = (extra: Record<string, unknown> = {}) =>
  hooksJson({ SessionEnd: [{ hooks: [{ type: 'command', command: 'node hooks/end.js' }] }], ...extra });

describe('Ctrl-C during hookpilot run', () => {
  it('stops a long Bash call: exit 130, no sleep left behind, InterruptReceived and SessionEnd ran', async () => {
    const files = {
      'hooks/end.js': sessionEndHook,
      'hooks/interrupt.js': interruptHook,
      '.vscode/hooks.json': withSessionEnd({ interrupt_received: [{ hooks: [{ type: 'command', command: 'node hooks/interrupt.js' }] }] }),
    };
    bed = await startTestbed(bundle.bundle, files, [
      toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'sleep 37.25' } }]),
      text('never'),
    ]);
    // The sleep outlives the run's 30 s limit: a CLI that waited for it fails the run.
    const { result } = await interruptWhen(() => processesRunning('sleep 37.25').length > 0, 'the sleep to start', [
      'wait',
      '--permission-mode',
      'bypassPermissions',
    ]);
    expect(result.code).toBe(130);
    expect(result.stderr.trim().split('\n').pop()).toBe('hookpilot: interrupted (SIGINT): the turn was cancelled and the session ended');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    await waitFor(() => processesRunning('sleep 37.25').length === 0, 'the sleep to be gone');
    expect(readFileSync(bed.workspace.file('session-end.txt'), 'utf8')).toBe('cancelled');
    expect(readFileSync(bed.workspace.file('interrupt.txt'), 'utf8')).toBe('InterruptReceived 0');
    expect(bed.server.requests).toHaveLength(1);
  });

  it('stops a PreToolUse hook process that is still running', async () => {
    bed = await startTestbed(
      bundle.bundle,
      {
        'hooks/end.js': sessionEndHook,
        '.vscode/hooks.json': withSessionEnd({ PreToolUse: [{ hooks: [{ type: 'command', command: 'sleep 41.75', timeout: 120 }] }] }),
      },
      [toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'touch made.txt' } }]), text('never')],
    );
    const { result } = await interruptWhen(() => processesRunning('sleep 41.75').length > 0, 'the hook to start', [
      'go',
      '--permission-mode',
      'bypassPermissions',
      '--output-format',
      'json',
    ]);
    expect(result.code).toBe(130);
    expect(JSON.parse(result.stdout)).toMatchObject({ is_error: true, stop_reason: 'cancelled' });
    await waitFor(() => processesRunning('sleep 41.75').length === 0, 'the hook process to be gone');
    expect(() => readFileSync(bed!.workspace.file('made.txt'))).toThrow();
    expect(readFileSync(bed.workspace.file('session-end.txt'), 'utf8')).toBe('cancelled');
  });

  it('a second Ctrl-C quits at once; the async hooks still running and the guard that ignored SIGTERM are stopped on the way out', async () => {
    const asyncSleeper = `#!/bin/sh
echo $$ > async.pid
sleep 30
`;
    // A guard that outlives SIGTERM for a while: the first Ctrl-C cannot end the turn at once.
    const stubbornGuard = `#!/bin/sh
echo $$ > guard.pid
trap 'echo term > term.txt' TERM
while :; do sleep 1; done
`;
    bed = await startTestbed(
      bundle.bundle,
      {
        'hooks/async.sh': asyncSleeper,
        'hooks/guard.sh': stubbornGuard,
        '.vscode/hooks.json': hooksJson({
          PostToolUse: [{ matcher: 'Glob', hooks: [{ type: 'command', command: './hooks/async.sh', async: true }] }],
          // Under a shell that waits for it, which SIGTERM ends: the run is over while the guard lives on.
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './hooks/guard.sh; exit $?', timeout: 120 }] }],
        }),
      },
      [
        toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]),
        toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'true' } }]),
        text('never'),
      ],
    );
    let child: ChildProcess | undefined;
    const running = bed.run(['go', '--permission-mode', 'bypassPermissions'], { onSpawn: (c) => (child = c), timeoutMs: 30_000 });
    const pidOf = (name: string) => Number(readFileSync(bed!.workspace.file(name), 'utf8'));
    const written = (name: string) =>
      existsSync(bed!.workspace.file(name)) && /^\d+\s*$/.test(readFileSync(bed!.workspace.file(name), 'utf8'));
    await waitFor(() => written('async.pid') && written('guard.pid'), 'both hooks to start');
    const guard = pidOf('guard.pid');
    // The guard may run under the shell that started it: its session, not its own pid, names all of it.
    const guardSession = procStat(guard)?.session;
    try {
      child!.kill('SIGINT');
      await waitFor(() => existsSync(bed!.workspace.file('term.txt')), 'the guard to get SIGTERM');
      child!.kill('SIGINT');
      expect((await running).code).toBe(130);
      expect(await waitUntilDead(pidOf('async.pid'), 5_000)).toBe(true);
      // Its SIGKILL was still waiting out the grace period when the CLI quit.
      expect(await waitUntilDead(guard, 5_000)).toBe(true);
    } finally {
      if (guardSession !== undefined) killSessionProcesses(guardSession);
    }
  });

  it('stops a model stream that hangs', async () => {
    bed = await startTestbed(bundle.bundle, { 'hooks/end.js': sessionEndHook, '.vscode/hooks.json': withSessionEnd() }, [stall(1)]);
    const { result } = await interruptWhen(() => bed!.server.requests.length > 0, 'the model request', ['hello']);
    expect(result.code).toBe(130);
    expect(readFileSync(bed.workspace.file('session-end.txt'), 'utf8')).toBe('cancelled');
    await waitFor(() => bed!.server.requests[0].clientClosedEarly, 'the client to close the stream', 3_000);
  });
});
