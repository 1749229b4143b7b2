import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAuditFile } from '../src/core/audit/audit-reader';
import { AuditWriter } from '../src/core/audit/audit-writer';
import type { AuditEntry } from '../src/core/audit/records';
import { Redactor } from '../src/core/audit/redactor';
import { percentiles, type BenchRow, type BenchSuite } from './types';

const THROUGHPUT_RECORDS = 200_000;
const LATENCY_RECORDS = 100_000;
const LATENCY_BURST = 500;
const TARGET_PER_SECOND = 50_000;

// What the engine logs for one command hook on PreToolUse: payload, effects, stdout.
function hookRun(i: number): AuditEntry {
  const sessionId = 'bench-session';
  return {
    type: 'hook_run',
    session_id: sessionId,
    dispatch_id: `d-${i}`,
    event: 'PreToolUse',
    hook_id: 'workspace:PreToolUse:0:3f9a1c',
    hook_name: 'guard-dangerous-bash',
    handler: 'command',
    source: 'workspace',
    status: 'success',
    decision: 'allow',
    input: {
      hook_event_name: 'PreToolUse',
      session_id: sessionId,
      transcript_path: '/home/dev/.hookpilot/transcripts/bench-session.jsonl',
      cwd: '/home/dev/project',
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command: `npm test -- --reporter=dot --shard=${i % 8}`, description: 'Run the unit tests', timeout: 120_000 },
      tool_use_id: `toolu_01${i.toString(36).padStart(10, '0')}`,
    },
    effects: { decision: 'allow', additionalContext: ['Tests must pass before any commit.'] },
    stdout:
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"command is on the allow list"}}\n',
    stderr: '',
    exit_code: 0,
    duration_ms: 18.4,
    started_ms: 1_767_312_000_000 + i,
  };
}

function redactor(): Redactor {
  // A realistic setup: the model API key and a few .env values registered.
  return new Redactor({ secretValues: ['sk-live-model-api-key-0123456789', 'dotenv-database-password', 'dotenv-webhook-secret-value'] });
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function throughput(dir: string): Promise<{ rows: BenchRow[]; file: string }> {
  const writer = new AuditWriter({ dir, sessionId: 'throughput', redactor: redactor() });
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  // Built in the loop, as the engine does: the record is garbage once appended.
  for (let i = 0; i < THROUGHPUT_RECORDS; i++) writer.append(hookRun(i));
  await writer.flush();
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  await writer.close();
  const value = THROUGHPUT_RECORDS / seconds;
  const label = `${THROUGHPUT_RECORDS.toLocaleString('en-US')} hook_run records`;
  return {
    rows: [
      {
        name: `append + flush (${label})`,
        unit: 'records/s',
        value,
        target: `>= ${TARGET_PER_SECOND.toLocaleString('en-US')}/s`,
        ok: value >= TARGET_PER_SECOND,
      },
      // Per second of this process's CPU: what a busy machine's wall clock hides.
      { name: `append + flush, CPU time (${label})`, unit: 'records/cpu-s', value: THROUGHPUT_RECORDS / ((cpu.user + cpu.system) / 1e6) },
    ],
    file: writer.path,
  };
}

// Bursts with a turn of the event loop between them, so group commits run in between, as in the engine.
async function appendCost(dir: string): Promise<BenchRow> {
  const writer = new AuditWriter({ dir, sessionId: 'latency', redactor: redactor() });
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_RECORDS; i++) {
    const entry = hookRun(i);
    const t0 = performance.now();
    writer.append(entry);
    samples.push((performance.now() - t0) * 1000);
    if (i % LATENCY_BURST === LATENCY_BURST - 1) await tick();
  }
  await writer.close();
  return { name: 'append() call (redact + serialize + queue)', unit: 'µs', ...percentiles(samples) };
}

async function readBack(file: string): Promise<BenchRow> {
  const start = performance.now();
  const { records } = await readAuditFile(file);
  const seconds = (performance.now() - start) / 1000;
  return {
    name: `readAuditFile (${records.length.toLocaleString('en-US')} records, validated)`,
    unit: 'records/s',
    value: records.length / seconds,
  };
}

const suite: BenchSuite = {
  title: 'audit',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'audit-bench-'));
    try {
      const { rows, file } = await throughput(dir);
      return [...rows, await appendCost(dir), await readBack(file)];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
