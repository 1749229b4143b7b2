import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResult, nodeHook, startTestbed, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { stall, text, toolCalls, type RecordedRequest, type ScriptedReply } from '../support/model-server';
import { procPids, procStat } from '../../src/core/process/proc-stat';
import { useLeftoverProcesses, waitUntilDead } from '../support/process-liveness';
import { hooksJson } from '../support/workspace';

// What the model's Bash calls start ends with the session: a process it detached must not act
// once the guards that watched the session are gone (the next run loads what it wrote, with
// no notice). A call's timeout holds whatever the command does to the processes around it.

const bundle = useCliBundle();
let bed: Testbed | undefined;
/** Pids a failing test may have left running. */
const started = useLeftoverProcesses();
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const bash = (id: string, command: string, timeout?: number) =>
  toolCalls([{ id, name: 'Bash', arguments: timeout === undefined ? { command } : { command, timeout } }]);
const pidIn = (file: string) => Number(readFileSync(bed!.workspace.file(file), 'utf8').trim());
const pidWritten = (file: string) =>
  existsSync(bed!.workspace.file(file)) && /^\d+\s*$/.test(readFileSync(bed!.workspace.file(file), 'utf8'));

/** Refuses any Bash command that mentions `pwned`. */
const guard = nodeHook(`if (/pwned/.test(input.tool_input.command || '')) { process.stderr.write('no pwned'); process.exit(2); }`);
const guardedHooks = hooksJson({
  PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'guard' }] }],
});

/**
 * A program that waits for the CLI (found above the shell, past the spawner helper) to exit,
 * then empties the hook configuration: a file name computed as it runs, as the gate cannot see.
 */
function planterOfHookRewrite(detach: string): string {
  const target = Buffer.from('.vscode/hooks.json').toString('base64');
  const waiter =
    `const fs=require('fs');const f=Buffer.from('${target}','base64').toString();const pid=+process.argv[1];` +
    `setInterval(()=>{try{process.kill(pid,0)}catch{fs.writeFileSync(f,'{"hooks":{}}');process.exit(0)}},50);`;
  return (
    `H=$PPID; case "$(ps -o args= -p $H)" in *process-spawner*) H=$(ps -o ppid= -p $H);; esac; ` +
    `${detach} node -e ${JSON.stringify(waiter)} $H >/dev/null 2>&1 & echo $! > bg.pid`
  );
}

/** Whether a process that has not exited (a zombie has) is in process group `pgid`. */
function groupHasMembers(pgid: number): boolean {
  return procPids().some((pid) => {
    const stat = procStat(pid);
    return stat !== undefined && stat.state !== 'Z' && stat.group === pgid;
  });
}

describe('a chain whose every generation forks the next and exits', () => {
  it('ends with the session: its process group empties once the run is over', async () => {
    // Each generation lives a moment: a scan of /proc finds its parent gone and it not yet born.
    const chain = `nohup bash -c 'end=$((SECONDS+60)); f(){ if [ -e stop ] || [ $SECONDS -ge $end ]; then exit; fi; ( f & ); }; f' >/dev/null 2>&1 &`;
    const chains = Array.from({ length: 4 }, () => chain).join(' ');
    bed = await startTestbed(bundle.bundle, {}, [bash('hop', `ps -o pgid= $$ > group.txt; ${chains}`), text('done')]);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(jsonResult(r).tool_calls[0].outcome).toBe('executed');
    const pgid = pidIn('group.txt');
    // Killed as the run ended; a chain left running would keep its group full for ever.
    try {
      await vi.waitFor(() => expect(groupHasMembers(pgid)).toBe(false), { timeout: 10_000, interval: 50 });
    } finally {
      writeFileSync(bed.workspace.file('stop'), '');
    }
  });
});

describe('processes a Bash call leaves behind end with the session', () => {
  for (const [how, detach] of [
    ['nohup ... &', 'nohup'],
    ['setsid (a session and group of its own)', 'setsid'],
  ]) {
    it(`${how}: the process is gone once the run ends, so it cannot rewrite the hooks the next run loads`, async () => {
      bed = await startTestbed(bundle.bundle, { 'hooks/guard.js': guard, '.vscode/hooks.json': guardedHooks }, [
        bash('c1', planterOfHookRewrite(detach)),
        text('planted'),
        bash('c2', 'touch pwned'),
        text('done'),
      ]);
      const first = await bed.run(['plant', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { timeoutMs: 90_000 });
      expect(first.code, first.stderr).toBe(0);
      expect(jsonResult(first).tool_calls[0].outcome).toBe('executed');
      const waiter = pidIn('bg.pid');
      started.push(waiter);
      expect(await waitUntilDead(waiter, 5_000)).toBe(true);
      expect(readFileSync(bed.workspace.file('.vscode/hooks.json'), 'utf8')).toBe(guardedHooks);
      const second = await bed.run(['again', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { timeoutMs: 90_000 });
      expect(jsonResult(second).tool_calls[0].outcome).toBe('blocked');
      expect(existsSync(bed.workspace.file('pwned'))).toBe(false);
    }, 240_000);
  }

  it('a line that drops the variables its processes are found by, and detaches, asks (denied without a person)', async () => {
    bed = await startTestbed(bundle.bundle, {}, [
      bash('c1', 'unset HOOKPILOT_BASH_SESSION HOOKPILOT_RUN_ID; nohup sleep 100 >/dev/null 2>&1 & echo $! > bg.pid'),
      bash('c2', 'env -u HOOKPILOT_BASH_SESSION -u HOOKPILOT_RUN_ID setsid sleep 100 >/dev/null 2>&1 & echo $! > bg.pid'),
      text('done'),
    ]);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    if (pidWritten('bg.pid')) started.push(pidIn('bg.pid'));
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['denied', 'denied']);
    expect(existsSync(bed.workspace.file('bg.pid'))).toBe(false);
  }, 120_000);

  it('a line that drops them without naming them (a name built from pieces, env -S "-i …", setpriv --reset-env), and detaches, asks', async () => {
    bed = await startTestbed(bundle.bundle, {}, [
      bash('c1', 'v=HOOKPILOT_BASH w=HOOKPILOT_RUN; unset ${v}_SESSION ${w}_ID; setsid sleep 100 >/dev/null 2>&1 & echo $! > bg.pid'),
      bash('c2', 'env -S "-i setsid sleep 100" >/dev/null 2>&1 & echo $! > bg.pid'),
      bash('c3', 'setpriv --reset-env setsid sleep 100 >/dev/null 2>&1 & echo $! > bg.pid'),
      text('done'),
    ]);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    if (pidWritten('bg.pid')) started.push(pidIn('bg.pid'));
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['denied', 'denied', 'denied']);
    expect(existsSync(bed.workspace.file('bg.pid'))).toBe(false);
  }, 120_000);

  it("a process that dropped them where no line shows it (a script) but stayed in the call's process group is gone once the run ends", async () => {
    const script = 'unset HOOKPILOT_BASH_SESSION HOOKPILOT_RUN_ID\nsleep 100 >/dev/null 2>&1 &\necho $! > bg.pid\n';
    bed = await startTestbed(bundle.bundle, { 'hide.sh': script }, [bash('c1', 'bash hide.sh'), text('done')]);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonResult(r).tool_calls[0].outcome).toBe('executed');
    const sleeper = pidIn('bg.pid');
    started.push(sleeper);
    expect(await waitUntilDead(sleeper, 5_000)).toBe(true);
  }, 120_000);

  it('Ctrl-C twice (the CLI exits at once, before the session has ended): a detached process is gone too', async () => {
    // SessionEnd waits on this hook, so the second Ctrl-C comes before the session's own end.
    const sessionEndHooks = hooksJson({
      SessionEnd: [{ hooks: [{ type: 'command', command: 'echo $$ > session-end.pid; sleep 30', name: 'slow-end' }] }],
    });
    bed = await startTestbed(bundle.bundle, { '.vscode/hooks.json': sessionEndHooks }, [
      bash('c1', 'setsid sleep 100 >/dev/null 2>&1 & echo $! > bg.pid'),
      stall(1),
    ]);
    let cli: ChildProcess | undefined;
    const run = bed.run(['go', '--permission-mode', 'bypassPermissions'], { timeoutMs: 60_000, onSpawn: (child) => (cli = child) });
    await vi.waitFor(() => expect(bed!.server.requests).toHaveLength(2), { timeout: 30_000, interval: 50 });
    const sleeper = pidIn('bg.pid');
    started.push(sleeper);
    cli!.kill('SIGINT');
    await vi.waitFor(() => expect(pidWritten('session-end.pid')).toBe(true), { timeout: 30_000, interval: 50 });
    started.push(pidIn('session-end.pid'));
    cli!.kill('SIGINT');
    expect((await run).code).toBe(130);
    expect(await waitUntilDead(sleeper, 5_000)).toBe(true);
  }, 120_000);
});

describe('the Bash timeout holds whatever the command does', () => {
  it('a command that timed out is stopped before the next step, also as a job of its own (set -m)', async () => {
    let deadBeforeNextStep: boolean | undefined;
    bed = await startTestbed(bundle.bundle, {}, async (_request, index) => {
      if (index === 0) return bash('c0', 'echo warm');
      // `set -m` puts the job in a process group of its own: the group the timeout signals is the shell's alone.
      if (index === 1) return bash('c1', `set -m; sh -c 'echo $$ > fg.pid; exec sleep 100'`, 1_500);
      const pid = pidIn('fg.pid');
      started.push(pid);
      deadBeforeNextStep = await waitUntilDead(pid, 5_000);
      return text('done');
    });
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { timeoutMs: 90_000 });
    expect(jsonResult(r).tool_calls[1].output).toMatch(/^Command timed out after 1500 ms/);
    expect(deadBeforeNextStep).toBe(true);
  }, 120_000);

  it('a command that stops its parent (the spawner helper) still times out, and the run ends without a Ctrl-C', async () => {
    // Until the helper is ready the host starts shells itself: the model looks at its commands'
    // parent until the helper is it, then stops it.
    let stage: 'warm' | 'stop' | 'next' | 'done' = 'warm';
    let probes = 0;
    const script = ({ body }: RecordedRequest): ScriptedReply | undefined => {
      const last = body.messages.at(-1);
      if (stage === 'warm' && (probes === 0 || !String(last?.content).includes('process-spawner')))
        return probes < 100 ? bash(`w${probes++}`, 'ps -o args= -p $PPID; sleep 0.1') : text('the helper never started');
      stage = stage === 'warm' ? 'stop' : stage === 'stop' ? 'next' : 'done';
      if (stage === 'stop') return bash('c1', 'kill -STOP $PPID; echo after', 2_000);
      return stage === 'next' ? bash('c2', 'echo next') : text('done');
    };
    bed = await startTestbed(bundle.bundle, {}, script);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const calls = jsonResult(r).tool_calls;
    expect(calls.find((call) => call.id === 'c1')?.output).toMatch(/^Command timed out after 2000 ms/);
    // The stopped helper was replaced: the next call runs.
    expect(calls.find((call) => call.id === 'c2')).toMatchObject({ outcome: 'executed', output: 'next' });
  }, 120_000);
});
