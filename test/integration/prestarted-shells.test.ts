import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PrestartedShells } from '../../src/core/process/prestarted-shells';
import { runProcess, type RunProcessOptions } from '../../src/core/process/run-process';
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

const request = (command: string, extra: Partial<RunProcessOptions> = {}): RunProcessOptions => ({ command, shell: true, cwd: dir, env: baseEnv, ...extra });

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
    const env = { PATH: baseEnv.PATH, HOME: '/nonexistent', HOOKPILOT_HOOK_EVENT: 'PostToolUse', ADDED: "it's \"quoted\" $HOME `id` \\ *", KEEP: 'same' };
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

  it('are not used for what sh -c would do differently: args, another shell, several lines, a variable the shell sets at start', async () => {
    await warm();
    const cases: Array<[string, Partial<RunProcessOptions>]> = [
      ['echo "[$0][$1]"', { args: ['a'] }],
      ['echo $0', { shell: 'bash' }],
      ['echo one\necho two', {}],
      ['echo "[$IFS]"', { env: { ...baseEnv, IFS: ':' } }],
      ['env | grep -c "^A-B=" || true', { env: { ...baseEnv, 'A-B': '1' } }],
      ['echo "$PWD"', { env: { ...baseEnv, PWD: '/' } }],
    ];
    for (const [command, extra] of cases) {
      const fresh = await runProcess(request(command, extra));
      const run = await runExpecting(false, request(command, extra));
      expect({ exitCode: run.exitCode, stdout: run.stdout }).toEqual({ exitCode: fresh.exitCode, stdout: fresh.stdout });
    }
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

  it('skip a shell that died while it waited', async () => {
    await warm();
    const [pid] = processesIn(dir);
    process.kill(pid, 'SIGKILL');
    expect(await waitUntilDead(pid, 2_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    const result = await runProcess(request('echo alive'), shells);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'alive\n' });
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
void runProcess({ command: 'true', shell: true, cwd: ${JSON.stringify(dir)}, env: process.env }, shells).then(() => setTimeout(() => console.log(shells.waiting), 300));
`,
    );
    const started = Date.now();
    const waiting = execFileSync(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, host], { encoding: 'utf8', timeout: 20_000 });
    expect(waiting.trim()).toBe('1');
    expect(Date.now() - started).toBeLessThan(15_000);
    const deadline = Date.now() + 2_000;
    while (processesIn(dir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(processesIn(dir)).toEqual([]);
  });
});
