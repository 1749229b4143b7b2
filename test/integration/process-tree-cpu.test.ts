import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { cpuPerStep, processTreeCpuMs } from '../../bench/process-tree-cpu';

describe.runIf(process.platform === 'linux')('processTreeCpuMs (bench)', () => {
  it("counts what a process's children used, while they run and after they were waited for", async () => {
    // The child spins until it has used 300 ms of CPU, then waits on stdin, which the test never
    // ends; the shell then sleeps: both live until killed. The shell itself uses next to no CPU.
    const spin = 'while (process.cpuUsage().user < 300000); console.log("spun"); process.stdin.resume();';
    const shell = spawn('/bin/sh', ['-c', `${JSON.stringify(process.execPath)} -e '${spin}'; echo reaped; exec sleep infinity`], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let output = '';
    shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await vi.waitFor(() => expect(output).toContain('spun'), { timeout: 20_000 });
      expect(processTreeCpuMs(shell.pid!)).toBeGreaterThanOrEqual(300);
      const child = Number(readFileSync(`/proc/${shell.pid}/task/${shell.pid}/children`, 'utf8').trim());
      process.kill(child, 'SIGKILL');
      await vi.waitFor(() => expect(output).toContain('reaped'), { timeout: 20_000 });
      expect(processTreeCpuMs(shell.pid!)).toBeGreaterThanOrEqual(300);
    } finally {
      shell.kill('SIGKILL');
    }
  });

  it('is undefined for a process that is gone', async () => {
    const child = spawn('/bin/true');
    await new Promise((resolve) => child.on('close', resolve));
    expect(processTreeCpuMs(child.pid!)).toBeUndefined();
  });
});

describe('cpuPerStep (bench)', () => {
  it('is the mean CPU per step between two sampled steps, undefined when a sample is missing', () => {
    expect(cpuPerStep([0, 10, 30, 60], 1, 3)).toBe(25);
    expect(cpuPerStep([0, 10, 30, 60], 1, 10)).toBe(25);
    expect(cpuPerStep([undefined, 10, 30], 0, 2)).toBeUndefined();
  });
});
