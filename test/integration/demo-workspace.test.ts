import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookEngine } from '../../src/core/engine/hook-engine';
import { loadWorkspaceConfigs } from '../../src/core/hooks/config/workspace-config-files';
import type { HookPayload } from '../../src/core/hooks/types';

const repo = path.resolve(__dirname, '../..');
const demo = path.join(repo, 'examples', 'demo-workspace');

// The demo's hooks, loaded as the extension loads them, each test-fired for real.
describe('examples/demo-workspace', () => {
  let engine: HookEngine;
  let storage: string;
  let receiver: ChildProcess;

  beforeAll(async () => {
    storage = mkdtempSync(path.join(tmpdir(), 'hookpilot-demo-'));
    receiver = spawn(process.execPath, [path.join(demo, 'tools', 'audit-receiver.js')], { env: { ...process.env, HOOKPILOT_DEMO_RECEIVER_PORT: '7777' }, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => receiver.stdout?.once('data', () => resolve()));
    engine = new HookEngine({ projectDir: demo, storageDir: storage, trusted: true });
    await engine.reload(loadWorkspaceConfigs(demo));
  });

  afterAll(async () => {
    await engine.dispose();
    receiver.kill();
    rmSync(storage, { recursive: true, force: true });
    rmSync(path.join(demo, '.hookpilot-demo'), { recursive: true, force: true });
  });

  const payload = (event: HookPayload['hook_event_name'], extra: Record<string, unknown>): HookPayload => ({ hook_event_name: event, session_id: 'demo-test', transcript_path: '', cwd: demo, permission_mode: 'default', ...extra });
  const hookId = (name: string, event: string) => {
    const state = engine.registry.current().states.find((s) => s.hook.name === name && s.hook.event === event);
    if (!state) throw new Error(`no ${name} hook for ${event}`);
    return state.hook.id;
  };

  it('loads without errors and has a hook of every handler type', () => {
    expect(engine.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const types = new Set(engine.registry.current().states.filter((s) => s.hook.source.kind !== 'builtin' || s.hook.name === 'bash-audit-note').map((s) => s.hook.spec.type));
    expect([...types].sort()).toEqual(['builtin', 'command', 'http', 'rpc']);
  });

  it('the command guard blocks rm -rf and reading .env, and allows ls', async () => {
    const id = hookId('guard', 'PreToolUse');
    const rm = await engine.testFire(id, payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' }, tool_use_id: 't1' }));
    expect(rm.outcome).toMatchObject({ status: 'blocking-error' });
    const env = await engine.testFire(id, payload('PreToolUse', { tool_name: 'Read', tool_input: { file_path: path.join(demo, '.env') }, tool_use_id: 't2' }));
    expect(env.outcome.status).toBe('blocking-error');
    const ls = await engine.testFire(id, payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't3' }));
    expect(ls.outcome.status).toBe('success');
  });

  it('the formatter normalizes a written file and reports it as context', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-fmt-'));
    const file = path.join(dir, 'a.js');
    writeFileSync(file, 'let a = 1;   \n\n\n');
    const { outcome } = await engine.testFire(hookId('formatter', 'PostToolUse'), payload('PostToolUse', { tool_name: 'Write', tool_input: { file_path: file }, tool_response: {}, tool_use_id: 't4' }));
    expect(readFileSync(file, 'utf8')).toBe('let a = 1;\n');
    expect(outcome.status === 'success' && outcome.effects.additionalContext).toMatch(/formatter: normalized whitespace/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the rpc policy server denies rm -rf', async () => {
    const { outcome } = await engine.testFire('rpc:policy:PreToolUse', payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, tool_use_id: 't5' }));
    expect(outcome.status === 'success' && outcome.effects.decision).toBe('deny');
  });

  it('the http audit webhook reaches the local receiver', async () => {
    const { outcome } = await engine.testFire(hookId('audit-webhook', 'PostToolUse'), payload('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: 'x' }, tool_use_id: 't6' }));
    expect(outcome.status).toBe('success');
    const log = readFileSync(path.join(demo, '.hookpilot-demo', 'webhook-audit.jsonl'), 'utf8');
    expect(log).toContain('"tool_use_id":"t6"');
  });

  it('the .env secret of the workspace is redacted from the audit log', async () => {
    const secret = 'demo-secret-value-1234567890';
    await engine.testFire(hookId('guard', 'PreToolUse'), payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: `echo ${secret}` }, tool_use_id: 't7' }));
    await engine.audit.writerFor('demo-test').flush();
    const text = readFileSync(path.join(storage, 'audit', 'demo-test.jsonl'), 'utf8');
    expect(text).toContain('t7');
    expect(text).not.toContain(secret);
  });
});
