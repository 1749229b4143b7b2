import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { isProcessAlive, useLeftoverProcesses } from '../support/process-liveness';

// A run its host started never outlives the host: one aborted by an `exit` listener (the CLI's
// second Ctrl-C cancelling its async hooks) is SIGKILLed at once, since no timer fires after
// `exit` and a listener added while it is emitted is never called; one still going is killed.

let dir: string;
const leftovers = useLeftoverProcesses();
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kill-at-exit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `host` (which exits 130 once its run wrote its pid to `pidFile`) and waits until that run is gone. */
async function expectGoneAfterExit(host: string, pidFile: string): Promise<void> {
  let code = 0;
  try {
    execFileSync(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, host], { timeout: 20_000 });
  } catch (error) {
    code = (error as { status: number }).status;
  }
  expect(code).toBe(130);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  leftovers.push(pid);
  await vi.waitFor(() => expect(isProcessAlive(pid)).toBe(false), { timeout: 3_000, interval: 50 });
}

it('a run aborted by an exit listener (the CLI cancelling async hooks on a second Ctrl-C) is still SIGKILLed', () => {
  const pidFile = join(dir, 'pid');
  const host = join(dir, 'host.ts');
  writeFileSync(
    host,
    `import { existsSync, readFileSync } from 'node:fs';
import { LocalProcessRunner } from ${JSON.stringify(join(__dirname, '../../src/core/process/process-runner'))};
const runner = new LocalProcessRunner();
const controller = new AbortController();
// An async SessionEnd hook that ignores SIGTERM.
void runner.run({
  command: ${JSON.stringify(`trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.05; done`)},
  shell: true,
  cwd: ${JSON.stringify(dir)},
  env: process.env,
  signal: controller.signal,
});
const wait = setInterval(() => {
  if (!existsSync(${JSON.stringify(pidFile)}) || !/\\d+\\n/.test(readFileSync(${JSON.stringify(pidFile)}, 'utf8'))) return;
  clearInterval(wait);
  // As run.ts: process.once('exit', stopAsyncOnExit) -> dispatcher.cancelAsync -> abort.
  process.once('exit', () => controller.abort(new Error('the CLI exited')));
  // The second Ctrl-C.
  process.exit(130);
}, 20);
`,
  );
  return expectGoneAfterExit(host, pidFile);
});

it('a run still going when its host exits (no abort: a sync SessionEnd hook at a second Ctrl-C) does not outlive the host', () => {
  const pidFile = join(dir, 'pid');
  const host = join(dir, 'host.ts');
  writeFileSync(
    host,
    `import { existsSync, readFileSync } from 'node:fs';
import { runProcess } from ${JSON.stringify(join(__dirname, '../../src/core/process/run-process'))};
void runProcess({
  command: ${JSON.stringify(`echo $$ > ${pidFile}; while :; do sleep 0.05; done`)},
  shell: true,
  cwd: ${JSON.stringify(dir)},
  env: process.env,
});
const wait = setInterval(() => {
  if (!existsSync(${JSON.stringify(pidFile)}) || !/\\d+\\n/.test(readFileSync(${JSON.stringify(pidFile)}, 'utf8'))) return;
  clearInterval(wait);
  process.exit(130);
}, 20);
`,
  );
  return expectGoneAfterExit(host, pidFile);
});
