import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PrestartedShells } from '../../src/core/process/prestarted-shells';
import { ownStartingEnvironment } from '../../src/core/process/proc-stat';
import { runProcess, type RunProcessOptions } from '../../src/core/process/run-process';
import { shellForksSingleCommands } from '../../src/core/process/shell-fork-probe';
import { untilWaiting } from '../support/prestarted';
import { isProcessAlive, waitUntilDead } from '../support/process-liveness';

let dir: string;
let shells: PrestartedShells;
const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', HOOKPILOT_HOOK_EVENT: 'PreToolUse', KEEP: 'same' };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'prestarted-'));
  shells = new PrestartedShells();
});

afterEach(() => {
  shells.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const request = (command: string, extra: Partial<RunProcessOptions> = {}): RunProcessOptions => ({
  command,
  shell: true,
  cwd: dir,
  env: baseEnv,
  ...extra,
});

/** Runs once so a shell is started for this directory and env, and waits for it. */
async function warm(extra: Partial<RunProcessOptions> = {}, count = 1): Promise<void> {
  await runProcess(request('true', extra), shells);
  await untilWaiting(shells, count);
}

/** A run that must (or must not) take a waiting shell, and its result. */
async function runExpecting(taken: boolean, options: RunProcessOptions) {
  const before = shells.waiting;
  const result = runProcess(options, shells);
  expect(shells.waiting).toBe(taken ? before - 1 : before);
  return result;
}

/** Live processes whose working directory is `cwd`: the shells waiting there. */
function processesIn(cwd: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === cwd && isProcessAlive(Number(pid));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** What `sh -c` shows of itself: every shell variable, exported or not, and the arguments. */
const INTROSPECT = 'echo "[$0][$#][$*]"; set; echo ---; env | sort';

describe('prestarted shells', () => {
  it('a run whose process is reported, with no shell waiting, starts as a shell that waits for its command', async () => {
    shells.probe();
    await shells.whenSettled();
    const ran = join(dir, 'ran');
    let reported: string[] = [];
    const result = await runProcess(
      request(`echo ran > "${ran}"`, {
        // What the reported process is running: a spawned command would be running already.
        onSpawn: (pid) => (reported = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')),
      }),
      shells,
    );
    expect(reported[0]).toBe('/bin/sh');
    expect(reported.join(' ')).toContain('read -r __hookpilot_line');
    expect(reported.join(' ')).not.toContain('echo ran');
    expect(result.exitCode).toBe(0);
    expect(readFileSync(ran, 'utf8')).toBe('ran\n');
  });

  it('run a command exactly as sh -c does: same shell variables, environment, $0 and arguments', async () => {
    const fresh = await runProcess(request(INTROSPECT));
    await warm();
    const prestarted = await runExpecting(true, request(INTROSPECT));
    expect(prestarted.stdout).toBe(fresh.stdout);
    expect(prestarted.stdout).toContain(`PWD='${dir}'`);
    // The line the shell read is gone before the command runs.
    expect(prestarted.stdout).not.toContain('__hookpilot_line');
  });

  it('apply what differs in the environment: changed, added and removed variables', async () => {
    await warm();
    const env = {
      PATH: baseEnv.PATH,
      HOME: '/nonexistent',
      HOOKPILOT_HOOK_EVENT: 'PostToolUse',
      ADDED: 'it\'s "quoted" $HOME `id` \\ *',
      KEEP: 'same',
    };
    const fresh = await runProcess(request(INTROSPECT, { env }));
    const prestarted = await runExpecting(true, request(INTROSPECT, { env }));
    expect(prestarted.stdout).toBe(fresh.stdout);
    expect(prestarted.stdout).toContain('HOOKPILOT_HOOK_EVENT=PostToolUse');
    const removed = await (async () => {
      await untilWaiting(shells);
      return runExpecting(true, request('echo "[${KEEP-unset}]"', { env: { PATH: baseEnv.PATH } }));
    })();
    expect(removed.stdout).toBe('[unset]\n');
  });

  it('feed the run its stdin after the command line, and report exit codes, output and shell errors as sh -c does', async () => {
    await warm();
    const cat = await runExpecting(true, request('cat; echo " read"', { input: '{"tool_name":"Bash"}\nsecond line' }));
    expect(cat.stdout).toBe('{"tool_name":"Bash"}\nsecond line read\n');
    for (const command of ['echo out; echo err >&2; exit 2', 'nosuchcommand-hookpilot', 'if then', `'${dir}'`]) {
      const fresh = await runProcess(request(command));
      await untilWaiting(shells);
      const prestarted = await runExpecting(true, request(command));
      expect({ exitCode: prestarted.exitCode, stdout: prestarted.stdout }).toEqual({ exitCode: fresh.exitCode, stdout: fresh.stdout });
      // The shell names itself the same way; only errors it reports from inside eval say so.
      expect(prestarted.stderr.replace('eval: ', '')).toBe(fresh.stderr);
    }
  });

  it('are not used for what sh -c would do differently: args, another shell, several lines, an env a line cannot express', async () => {
    const cases: Array<[string, Partial<RunProcessOptions>]> = [
      ['echo "[$0][$1]"', { args: ['a'] }],
      ['echo $0', { shell: 'bash' }],
      ['echo one\necho two', {}],
      ['echo "[$IFS]"', { env: { ...baseEnv, IFS: ':' } }],
      ['env | grep -c "^A-B=" || true', { env: { ...baseEnv, 'A-B': '1' } }],
      ['echo "$PWD"', { env: { ...baseEnv, PWD: '/' } }],
      ['printf "[%s]" "$MULTI"; cat', { env: { ...baseEnv, MULTI: 'line one\nline two' }, input: '{"payload":1}' }],
      ['echo "$SHELLOPTS"', { env: { ...baseEnv, SHELLOPTS: 'braceexpand' } }],
    ];
    for (const [command, extra] of cases) {
      await warm();
      const waitingPids = processesIn(dir);
      const fresh = await runProcess(request(command, extra));
      let pid: number | undefined;
      const run = await runProcess(request(command, { ...extra, onSpawn: (p) => (pid = p) }), shells);
      expect(waitingPids).not.toContain(pid);
      expect({ command, exitCode: run.exitCode, stdout: run.stdout }).toEqual({ command, exitCode: fresh.exitCode, stdout: fresh.stdout });
    }
  });

  it('after a run they could not serve, start again from its environment', async () => {
    const unusual = { ...baseEnv, IFS: ':' };
    await warm({ env: unusual });
    // Started with IFS=':': a run without it cannot use them, and the next shells start from it.
    await runProcess(request('true'), shells);
    await untilWaiting(shells);
    expect((await runExpecting(true, request('echo "[$IFS]" | od -c | head -1'))).exitCode).toBe(0);
  });

  it('start as many shells as runs went in parallel, for the directory last used', async () => {
    await Promise.all([1, 2, 3].map(() => runProcess(request('true'), shells)));
    await untilWaiting(shells, 3);
    const other = mkdtempSync(join(tmpdir(), 'prestarted-other-'));
    try {
      const pids: number[] = [];
      await Promise.all([1, 2, 3].map(() => runProcess(request('echo $$', { onSpawn: (pid) => pids.push(pid) }), shells)));
      // In another directory, the waiting shells of the first are retired.
      const result = await runExpecting(false, request('pwd', { cwd: other }));
      expect(result.stdout).toBe(`${other}\n`);
      await untilWaiting(shells, 1);
      expect((await runExpecting(true, request('pwd', { cwd: other }))).stdout).toBe(`${other}\n`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('are not used once their directory was removed or replaced', async () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    await warm({ cwd: project });
    rmSync(project, { recursive: true });
    mkdirSync(project);
    writeFileSync(join(project, 'new-file'), '');
    // The stale shell would list the removed directory: nothing.
    expect((await runProcess(request('ls', { cwd: project }), shells)).stdout).toBe('new-file\n');
    await untilWaiting(shells);
    expect((await runExpecting(true, request('ls', { cwd: project }))).stdout).toBe('new-file\n');
  });

  it('skip a shell that died while it waited, even before this process has seen it exit', async () => {
    await warm();
    const [pid] = processesIn(dir);
    process.kill(pid, 'SIGKILL');
    // No await until the run: the exit event cannot have been delivered yet.
    for (const deadline = Date.now() + 2_000; isProcessAlive(pid) && Date.now() < deadline;);
    expect(isProcessAlive(pid)).toBe(false);
    const result = await runProcess(request('echo alive'), shells);
    expect(result).toMatchObject({ exitCode: 0, signal: null, stdout: 'alive\n' });
  });

  it('tell when the start that follows a run is over: shells waiting, or none if they cannot start', async () => {
    await runProcess(request('true'), shells);
    await shells.whenSettled();
    expect(shells.waiting).toBe(1);
    await Promise.all([1, 2].map(() => runProcess(request('true'), shells)));
    await shells.whenSettled();
    expect(shells.waiting).toBe(2);
    await runProcess(request('true', { cwd: join(dir, 'missing') }), shells);
    await shells.whenSettled();
    expect(shells.waiting).toBe(0);
    // Nothing due: settled at once, also after dispose.
    await shells.whenSettled();
    shells.dispose();
    await shells.whenSettled();
  });

  it('survive shells that cannot start: a directory that is a file, no file descriptors left', async () => {
    const file = join(dir, 'not-a-directory');
    writeFileSync(file, '');
    const result = await runProcess(request('true', { cwd: file }), shells);
    expect(result.spawnError).toBeDefined();
    // The start that followed the run tried the same directory and failed.
    await shells.whenSettled();
    expect(shells.waiting).toBe(0);
    expect((await runProcess(request('echo fine'), shells)).stdout).toBe('fine\n');

    // Out of descriptors, starting the next shell fails with an 'error' event: heard, not fatal.
    const host = join(dir, 'fd-host.ts');
    writeFileSync(
      host,
      `import { openSync, closeSync } from 'node:fs';
import { PrestartedShells } from ${JSON.stringify(join(__dirname, '../../src/core/process/prestarted-shells'))};
import { runProcess } from ${JSON.stringify(join(__dirname, '../../src/core/process/run-process'))};
const shells = new PrestartedShells();
const options = { command: 'true', shell: true, cwd: ${JSON.stringify(dir)}, env: process.env };
void (async () => {
  await runProcess(options, shells);
  await shells.whenSettled();
  if (shells.waiting === 0) throw new Error('no shell started with descriptors to spare');
  const fds: number[] = [];
  try { for (;;) fds.push(openSync('/dev/null', 'r')); } catch {}
  const taken = await runProcess(options, shells);
  // The next shell's start ran (and failed) while no descriptor was left.
  await shells.whenSettled();
  for (const fd of fds) closeSync(fd);
  console.log(JSON.stringify({ taken: taken.exitCode, waiting: shells.waiting }));
  shells.dispose();
})();
`,
    );
    const out = execFileSync(
      'sh',
      ['-c', 'ulimit -n 256 && exec "$0" --import "$1" "$2"', process.execPath, pathToFileURL(require.resolve('tsx')).href, host],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(JSON.parse(out.trim().split('\n').pop() ?? '')).toEqual({ taken: 0, waiting: 0 });
  });

  it('stand for sh -c only where it forks for a single command (dash), not where it execs it (bash)', async () => {
    expect(await shellForksSingleCommands('/bin/sh')).toBe(realpathSync('/bin/sh').endsWith('dash'));
    expect(await shellForksSingleCommands('/bin/bash')).toBe(false);
    expect(await shellForksSingleCommands('/bin/dash')).toBe(true);
    // No answer (the shell is missing, or the probe timed out): unknown, asked again later.
    expect(await shellForksSingleCommands(join(dir, 'no-such-shell'))).toBeUndefined();
  });

  it("hold in their own environment only what their host's already shows, or a line cannot set: a run's values never wait in /proc/PID/environ", async () => {
    // A hook's own env (a webhook URL from its configuration) must not outlive its run in a
    // shell any process of the user can read while it waits, the model's commands included.
    await warm({ env: { ...baseEnv, NOTIFY_WEBHOOK: 'https://hooks.example.invalid/T0/secret' } });
    const [pid] = processesIn(dir);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    expect(environ.some((entry) => entry.startsWith('NOTIFY_WEBHOOK='))).toBe(false);
    // HOME differs from the host's own; PATH is the host's, which /proc/PID/environ shows for the host too.
    expect(environ.some((entry) => entry.startsWith('HOME='))).toBe(false);
    expect(environ).toContain(`PATH=${ownStartingEnvironment().PATH}`);
    // The run that takes it still sees exactly its environment.
    const env = { ...baseEnv, NOTIFY_WEBHOOK: 'https://hooks.example.invalid/T0/secret' };
    const fresh = await runProcess(request(INTROSPECT, { env }));
    const prestarted = await runExpecting(true, request(INTROSPECT, { env }));
    expect(prestarted.stdout).toBe(fresh.stdout);
  });

  it("read a short line: a run in its host's own environment plus a hook's value costs the shell a few reads, not one per byte of it", async () => {
    // dash's `read` takes one byte per system call: a line exporting the host's whole environment would cost thousands.
    const host = join(dir, 'reads-host.ts');
    writeFileSync(
      host,
      `import { PrestartedShells } from ${JSON.stringify(join(__dirname, '../../src/core/process/prestarted-shells'))};
import { runProcess } from ${JSON.stringify(join(__dirname, '../../src/core/process/run-process'))};
const shells = new PrestartedShells();
const env = { ...process.env, HOOK_VALUE: 'from the hook' };
const options = { command: 'grep syscr /proc/$$/io; echo "$HOOK_VALUE"', shell: true, cwd: ${JSON.stringify(dir)}, env };
void (async () => {
  await runProcess({ ...options, command: 'true' }, shells);
  await shells.whenSettled();
  const waiting = shells.waiting;
  const result = await runProcess(options, shells);
  console.log(JSON.stringify({ waiting, stdout: result.stdout }));
  shells.dispose();
})();
`,
    );
    const bigEnvironment = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`HOST_VALUE_${i}`, 'v'.repeat(64)]));
    const out = execFileSync(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, host], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, ...bigEnvironment },
    });
    const { waiting, stdout } = JSON.parse(out.trim().split('\n').pop() ?? '') as { waiting: number; stdout: string };
    expect(waiting).toBeGreaterThan(0);
    const [reads, value] = stdout.trim().split('\n');
    expect(value).toBe('from the hook');
    expect(Number(reads.replace('syscr:', '').trim())).toBeLessThan(200);
  });

  it('are killed on dispose, and never keep their host alive', async () => {
    await warm();
    const [pid] = processesIn(dir);
    expect(isProcessAlive(pid)).toBe(true);
    shells.dispose();
    expect(await waitUntilDead(pid, 2_000)).toBe(true);

    // A host that ran a hook and has nothing left to do exits at once; its shell follows.
    const host = join(dir, 'host.ts');
    writeFileSync(
      host,
      `import { PrestartedShells } from ${JSON.stringify(join(__dirname, '../../src/core/process/prestarted-shells'))};
import { runProcess } from ${JSON.stringify(join(__dirname, '../../src/core/process/run-process'))};
const shells = new PrestartedShells();
void runProcess({ command: 'true', shell: true, cwd: ${JSON.stringify(dir)}, env: process.env }, shells)
  .then(() => shells.whenSettled())
  .then(() => console.log(shells.waiting));
`,
    );
    // A host kept alive by its shell would never exit: execFileSync's timeout fails the test then.
    const waiting = execFileSync(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, host], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(waiting.trim()).toBe('1');
    await vi.waitFor(() => expect(processesIn(dir)).toEqual([]), { timeout: 2_000, interval: 25 });
  });

  describe('for the Bash tool (bash)', () => {
    const bashPath = execFileSync('sh', ['-c', 'command -v bash'], { encoding: 'utf8' }).trim();
    let bashShells: PrestartedShells;
    beforeEach(() => {
      bashShells = new PrestartedShells({ bash: true });
    });
    afterEach(() => bashShells.dispose());

    const bashRequest = (command: string, extra: Partial<RunProcessOptions> = {}) => request(command, { shell: bashPath, ...extra });
    async function takeBash(options: RunProcessOptions) {
      await runProcess({ ...options, command: 'true' }, bashShells);
      await untilWaiting(bashShells);
      const result = runProcess(options, bashShells);
      expect(bashShells.waiting).toBe(0);
      return result;
    }

    it('run bash -c commands the same: environment, $0, arguments, directory, stdin, exit codes, errors', async () => {
      const commands = [
        'echo "[$0][$#][$*]"; pwd; env | sort',
        'cat; echo "[$?]"',
        'echo out; echo err >&2; exit 2',
        'nosuchcommand-hookpilot',
        'echo one\necho two',
      ];
      for (const command of commands) {
        const fresh = await runProcess(bashRequest(command));
        const prestarted = await takeBash(bashRequest(command));
        expect({ command, exitCode: prestarted.exitCode, stdout: prestarted.stdout, stderr: prestarted.stderr }).toEqual({
          command,
          exitCode: fresh.exitCode,
          stdout: fresh.stdout,
          stderr: fresh.stderr,
        });
      }
    });

    it('end a command killed by a signal with the same shell status, 128 + n', async () => {
      const status = (r: { exitCode: number | null; signal: NodeJS.Signals | null }) =>
        r.exitCode ?? 128 + (r.signal === 'SIGKILL' ? 9 : -128);
      for (const command of ['kill -9 $$', 'sh -c "kill -9 \\$\\$"']) {
        const fresh = await runProcess(bashRequest(command));
        const prestarted = await takeBash(bashRequest(command));
        expect({ command, status: status(prestarted) }).toEqual({ command, status: status(fresh) });
      }
    });

    it('on timeout, also kill a job that job control moved to a group of its own (a subshell that never execs)', async () => {
      // The run's marker is exported in the line the shell evals, so such a subshell does not
      // carry it in /proc/PID/environ; it is still in the run's session.
      const pidFile = join(dir, 'sub.pid');
      // It waits on a descriptor opened once (no process per turn of the loop), and ends itself
      // after a minute: a failing run leaves no busy process behind.
      const loop = `exec 9<> <(:); for i in $(seq 300); do read -t 0.2 -u 9 x; done`;
      const command = `set -m; (echo $BASHPID > "${pidFile}"; ${loop}) & sleep 30`;
      const result = await takeBash(bashRequest(command, { timeoutMs: 1_000, runMarker: 'run-job-control' }));
      expect(result.timedOut).toBe(true);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      try {
        expect(await waitUntilDead(pid, 5_000)).toBe(true);
      } finally {
        if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
      }
    });

    it('are not used for sh, for args, or for a run whose environment differs in any variable', async () => {
      for (const options of [
        request('true'),
        bashRequest('echo "$1"', { args: ['a'] }),
        bashRequest('true', { env: { ...baseEnv, KEEP: 'changed' } }),
      ]) {
        await runProcess(bashRequest('true'), bashShells);
        await untilWaiting(bashShells);
        const waitingPids = processesIn(dir);
        let pid: number | undefined;
        await runProcess({ ...options, onSpawn: (p) => (pid = p) }, bashShells);
        expect(waitingPids).not.toContain(pid);
      }
      // After a run in another environment, the waiting shells start from that one.
      const other = { ...baseEnv, KEEP: 'changed' };
      await runProcess(bashRequest('true', { env: other }), bashShells);
      await untilWaiting(bashShells);
      expect((await takeBash(bashRequest('echo "$KEEP"', { env: other }))).stdout).toBe('changed\n');
    });
  });
});
