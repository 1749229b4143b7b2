import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startAnthropicServer } from './anthropic-server';
import { startOpenAiServer } from './openai-server';
import { cpuPerStep, processTreeCpuMs } from './process-tree-cpu';
import { percentiles, type BenchRow, type BenchSuite } from './types';

/**
 * Long sessions, and Hookpilot side by side with Claude Code: the built CLI (dist/cli.js)
 * and `claude -p` each run the same scripted session of Bash `true` calls against a model
 * server on 127.0.0.1, with no hooks and with a no-op command hook on PreToolUse and
 * PostToolUse. One tool call's cost is the gap between two model requests (the client's
 * whole round: stream, hooks, tool, request), the same measure for both; its CPU cost is what
 * the client and every process it started used over those calls (Linux, from /proc), which a
 * busy or slowed machine changes less than wall time. Claude Code is
 * installed on demand into .tools/ (never a dependency of the project).
 */

const CALLS = 200;
const LONG_CALLS = 1000;
const CAPPED_HEAP_MB = 64;
const CLAUDE_CODE_VERSION = '2.1.328';
const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');
const NOOP_SCRIPT = join(ROOT, 'test/fixtures/hooks/noop.sh');
const CLAUDE_DIR = join(ROOT, '.tools/claude-code');
const CLAUDE_BIN = join(CLAUDE_DIR, 'node_modules/.bin/claude');
const SESSION_TIMEOUT_MS = 600_000;

const TWO_HOOKS = {
  PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `"${NOOP_SCRIPT}"` }] }],
  PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `"${NOOP_SCRIPT}"` }] }],
};

/** The first request of the measured calls: the ones before it are process start and warm-up. */
const FIRST_GAP = 5;

/** Gaps between consecutive requests, without the first few (process start, warm-up). */
function gaps(arrivals: readonly number[], from = FIRST_GAP, to = arrivals.length): number[] {
  const out: number[] = [];
  for (let i = Math.max(1, from); i < Math.min(to, arrivals.length); i++) out.push(arrivals[i] - arrivals[i - 1]);
  return out;
}

function run(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; onSpawn?: (pid: number) => void },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
    child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), SESSION_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolveRun({ code, output });
    });
  });
}

/**
 * The process tree's CPU time at the two requests `cpuPerCall` compares, and only there:
 * reading /proc on every request would add the bench's own work to each step.
 */
function sampleCpu(cpuAt: Array<number | undefined>, index: number, calls: number, pid: number | undefined): void {
  if (index === FIRST_GAP || index === calls) cpuAt[index] = pid === undefined ? undefined : processTreeCpuMs(pid);
}

function rssKb(pid: number | undefined): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

interface HookpilotSession {
  arrivals: number[];
  /** The CLI's process tree's CPU time at the requests sampleCpu samples (index = request). */
  cpuAt: Array<number | undefined>;
  /** Audit bytes written before the model request of step n (index n). */
  auditBytesAt: number[];
  rssAt: Map<number, number | undefined>;
}

/** One `hookpilot run` of `calls` Bash `true` calls. */
async function hookpilotSession(
  calls: number,
  hooks: boolean,
  rssSteps: number[] = [],
  nodeFlags: string[] = [],
): Promise<HookpilotSession> {
  const home = mkdtempSync(join(tmpdir(), 'hookpilot-side-'));
  const workspace = join(home, 'ws');
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  if (hooks) writeFileSync(join(workspace, '.vscode/hooks.json'), JSON.stringify({ hooks: TWO_HOOKS }));
  const rssAt = new Map<number, number | undefined>();
  const cpuAt: Array<number | undefined> = [];
  let pid: number | undefined;
  const server = await startOpenAiServer(calls, (index) => {
    sampleCpu(cpuAt, index, calls, pid);
    if (rssSteps.includes(index + 1)) rssAt.set(index + 1, rssKb(pid));
  });
  try {
    const env = { PATH: process.env.PATH, HOME: home, HOOKPILOT_HOME: join(home, '.hookpilot'), HOOKPILOT_API_KEY: 'bench-key' };
    const args = [
      ...nodeFlags,
      CLI,
      'run',
      '--cwd',
      workspace,
      '--base-url',
      server.url,
      '--model',
      'scripted-model',
      '--permission-mode',
      'bypassPermissions',
      '--max-steps',
      String(calls + 5),
      '--output-format',
      'json',
      'run true',
    ];
    const result = await run(process.execPath, args, { cwd: workspace, env, onSpawn: (p) => (pid = p) });
    const { arrivals } = server;
    if (result.code !== 0 || arrivals.length !== calls + 1)
      throw new Error(`hookpilot run ended with ${result.code} after ${arrivals.length} requests: ${result.output}`);
    return { arrivals, cpuAt, auditBytesAt: auditBytesByStep(join(home, '.hookpilot')), rssAt };
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** From the session's audit file: the bytes written before each step's BeforeLLM record. */
function auditBytesByStep(hookpilotHome: string): number[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.jsonl') && dir.endsWith('audit')) files.push(join(dir, entry.name));
    }
  };
  walk(hookpilotHome);
  const at: number[] = [];
  let bytes = 0;
  for (const line of readFileSync(files[0], 'utf8').split('\n')) {
    const step = /"event":"BeforeLLM","payload":\{.*?"step":(\d+)/.exec(line.slice(0, 2000))?.[1];
    if (step !== undefined && line.includes('"type":"event"')) at[Number(step)] = bytes;
    bytes += Buffer.byteLength(line) + 1;
  }
  return at;
}

/** Installs Claude Code into .tools/ once; the reason it cannot run otherwise. */
async function ensureClaudeCode(): Promise<string | undefined> {
  if (!existsSync(CLAUDE_BIN)) {
    process.stderr.write(`installing @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} into .tools/claude-code...\n`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const result = await run(npm, ['install', '--no-save', '--prefix', CLAUDE_DIR, `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`], {
      cwd: ROOT,
      env: process.env,
    });
    if (result.code !== 0) return `npm install failed: ${result.output.trim().split('\n').slice(-3).join(' ')}`;
  }
  const version = await run(CLAUDE_BIN, ['--version'], { cwd: ROOT, env: { PATH: process.env.PATH, HOME: tmpdir() } });
  if (!version.output.includes(CLAUDE_CODE_VERSION))
    return `claude --version printed ${JSON.stringify(version.output.trim())} (exit ${version.code})`;
  return undefined;
}

/** One `claude -p` of `calls` Bash `true` calls, offline: only the scripted server on 127.0.0.1. */
async function claudeCodeSession(calls: number, hooks: boolean): Promise<{ arrivals: number[]; cpuAt: Array<number | undefined> }> {
  const home = mkdtempSync(join(tmpdir(), 'claude-side-'));
  const workspace = join(home, 'ws');
  mkdirSync(workspace);
  const settings = join(home, 'settings.json');
  writeFileSync(settings, JSON.stringify(hooks ? { hooks: TWO_HOOKS } : {}));
  const cpuAt: Array<number | undefined> = [];
  let pid: number | undefined;
  const server = await startAnthropicServer(calls, (index) => sampleCpu(cpuAt, index, calls, pid));
  try {
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-bench-dummy',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    const args = [
      '-p',
      'run true',
      '--settings',
      settings,
      '--allowedTools',
      'Bash',
      '--max-turns',
      String(calls + 5),
      '--output-format',
      'json',
    ];
    const result = await run(CLAUDE_BIN, args, { cwd: workspace, env, onSpawn: (p) => (pid = p) });
    if (result.code !== 0 || server.arrivals.length !== calls + 1) {
      throw new Error(
        `claude -p ended with ${result.code} after ${server.arrivals.length} requests: ${result.output} ${server.unexpected.join(', ')}`,
      );
    }
    return { arrivals: server.arrivals, cpuAt };
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const ms = (samples: number[]) => percentiles(samples);
/** CPU per tool call over the same calls `gaps` measures: the machine's work, whatever its load. */
const cpuPerCall = (session: { arrivals: number[]; cpuAt: Array<number | undefined> }) =>
  cpuPerStep(session.cpuAt, FIRST_GAP, session.arrivals.length - 1);
const median = (samples: number[]) => percentiles(samples).p50;

const suite: BenchSuite = {
  title: 'CLI sessions, side by side',
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    // The long session first: storage and per-step time over 1,000 steps.
    const long = await hookpilotSession(LONG_CALLS, false, [50, LONG_CALLS]);
    const bytesPerStep = (from: number, to: number) => (long.auditBytesAt[to] - long.auditBytesAt[from]) / (to - from);
    const early = bytesPerStep(40, 50);
    const late = bytesPerStep(LONG_CALLS - 10, LONG_CALLS);
    rows.push({ name: `hookpilot ${LONG_CALLS} steps: audit bytes per step at step 50`, unit: 'B', value: early });
    rows.push({
      name: `hookpilot ${LONG_CALLS} steps: audit bytes per step at step ${LONG_CALLS}`,
      unit: 'B',
      value: late,
      target: 'within 20% of step 50',
      ok: Math.abs(late - early) <= 0.2 * early,
    });
    const stepEarly = median(gaps(long.arrivals, 30, 70));
    const stepLate = median(gaps(long.arrivals, LONG_CALLS - 40, LONG_CALLS));
    rows.push({ name: `hookpilot ${LONG_CALLS} steps: one step around step 50`, unit: 'ms', value: stepEarly });
    rows.push({
      name: `hookpilot ${LONG_CALLS} steps: one step around step ${LONG_CALLS}`,
      unit: 'ms',
      value: stepLate,
      target: '<= 1.5x step 50',
      ok: stepLate <= 1.5 * stepEarly,
    });
    const rss50 = long.rssAt.get(50);
    const rssLate = long.rssAt.get(LONG_CALLS);
    if (rss50 !== undefined && rssLate !== undefined) {
      rows.push({
        name: `hookpilot ${LONG_CALLS} steps: CLI resident memory at step 50 / step ${LONG_CALLS}`,
        unit: 'MB',
        p50: rss50 / 1024,
        p99: rssLate / 1024,
      });
    }

    // Bounded memory: V8 grows its heap lazily, so resident memory rises over a long run even
    // when little of it is live. The same session with the heap capped must still finish.
    const capped = await hookpilotSession(LONG_CALLS, false, [50, LONG_CALLS], [`--max-old-space-size=${CAPPED_HEAP_MB}`]);
    const cappedEarly = capped.rssAt.get(50);
    const cappedLate = capped.rssAt.get(LONG_CALLS);
    if (cappedEarly !== undefined && cappedLate !== undefined) {
      rows.push({
        name: `hookpilot ${LONG_CALLS} steps, heap capped at ${CAPPED_HEAP_MB} MB: finished; resident memory at step 50 / step ${LONG_CALLS}`,
        unit: 'MB',
        p50: cappedEarly / 1024,
        p99: cappedLate / 1024,
        target: 'finishes; step 1000 within 1.2x step 50',
        ok: cappedLate <= 1.2 * cappedEarly,
      });
    }

    // The two clients take turns, setup by setup, so each ratio compares sessions run minutes
    // apart at most: this machine's speed drifts by a third within an hour.
    const problem = await ensureClaudeCode().catch((error: unknown) => String(error));
    const hpNoneSession = await hookpilotSession(CALLS, false);
    const ccNoneSession = problem === undefined ? await claudeCodeSession(CALLS, false) : undefined;
    const hp = { none: hpNoneSession, hooks: await hookpilotSession(CALLS, true) };
    const cc = ccNoneSession && { none: ccNoneSession, hooks: await claudeCodeSession(CALLS, true) };
    const hpNone = ms(gaps(hp.none.arrivals));
    const hpHooks = ms(gaps(hp.hooks.arrivals));
    rows.push({ name: `hookpilot ${CALLS} calls, no hooks: one tool call (request to request)`, unit: 'ms', ...hpNone });
    rows.push({ name: `hookpilot ${CALLS} calls, 2 command hooks: one tool call (request to request)`, unit: 'ms', ...hpHooks });
    rows.push({
      name: 'hookpilot: added by the 2 command hooks (p50 - no hooks p50)',
      unit: 'ms',
      value: hpHooks.p50 - hpNone.p50,
      target: '<= 5 ms',
      ok: hpHooks.p50 - hpNone.p50 <= 5,
    });

    const hpCpu = { none: cpuPerCall(hp.none), hooks: cpuPerCall(hp.hooks) };
    const cpuName = (who: string, setup: string) =>
      `${who} ${CALLS} calls, ${setup}: CPU per tool call (the CLI and every process it started)`;
    if (hpCpu.none !== undefined) rows.push({ name: cpuName('hookpilot', 'no hooks'), unit: 'ms', value: hpCpu.none });
    if (hpCpu.hooks !== undefined) rows.push({ name: cpuName('hookpilot', '2 command hooks'), unit: 'ms', value: hpCpu.hooks });

    if (!cc) {
      rows.push({ name: `claude code ${CLAUDE_CODE_VERSION}: not run (${problem})`, unit: '' });
      return rows;
    }
    const ccNone = ms(gaps(cc.none.arrivals));
    const ccHooks = ms(gaps(cc.hooks.arrivals));
    rows.push({
      name: `claude code ${CLAUDE_CODE_VERSION} ${CALLS} calls, no hooks: one tool call (request to request)`,
      unit: 'ms',
      ...ccNone,
    });
    rows.push({
      name: `claude code ${CLAUDE_CODE_VERSION} ${CALLS} calls, 2 command hooks: one tool call (request to request)`,
      unit: 'ms',
      ...ccHooks,
    });
    const ccCpu = { none: cpuPerCall(cc.none), hooks: cpuPerCall(cc.hooks) };
    const ccName = `claude code ${CLAUDE_CODE_VERSION}`;
    if (ccCpu.none !== undefined) rows.push({ name: cpuName(ccName, 'no hooks'), unit: 'ms', value: ccCpu.none });
    if (ccCpu.hooks !== undefined) rows.push({ name: cpuName(ccName, '2 command hooks'), unit: 'ms', value: ccCpu.hooks });
    if (hpCpu.hooks !== undefined && ccCpu.hooks !== undefined)
      rows.push({
        name: 'ratio hookpilot / claude code, 2 command hooks (CPU per tool call)',
        unit: 'x',
        value: hpCpu.hooks / ccCpu.hooks,
      });
    rows.push({ name: 'ratio hookpilot / claude code, no hooks (p50)', unit: 'x', value: hpNone.p50 / ccNone.p50 });
    rows.push({
      name: 'ratio hookpilot / claude code, 2 command hooks (p50)',
      unit: 'x',
      value: hpHooks.p50 / ccHooks.p50,
      target: '<= 0.25',
      ok: hpHooks.p50 / ccHooks.p50 <= 0.25,
    });
    return rows;
  },
};

export default suite;
