import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HookEngine } from '../../src/core/engine/hook-engine';
import type { AgentHook } from '../../src/core/hooks/agent-hook';
import { toolPayload } from '../support/hook-fixtures';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function engineIn(): HookEngine {
  const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-sessions-'));
  const engine = new HookEngine({ projectDir: dir, storageDir: path.join(dir, '.storage'), trusted: true });
  cleanups.push(async () => {
    await engine.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return engine;
}

describe('HookEngine sessions', () => {
  it('clearSession removes the session hooks and what the dispatcher kept for the session, and nothing of another', async () => {
    const engine = engineIn();
    const seen: string[] = [];
    engine.addSessionHook('sess-1', { name: 'only-here', preToolUse: (p) => void seen.push(p.session_id) } as AgentHook);
    engine.addInProcessHook({ name: 'reporter', async: true, postToolUse: () => ({ additionalContext: 'late news' }) } as AgentHook);
    const pre = toolPayload('PreToolUse', 'Bash', { command: 'ls' });
    const post = toolPayload('PostToolUse', 'Bash', { command: 'ls' }, { tool_response: { stdout: '' } });
    await engine.dispatcher.dispatch(pre);
    await engine.dispatcher.dispatch(post);
    await engine.dispatcher.dispatch({ ...post, session_id: 'sess-2' });
    await engine.dispatcher.drain(1000);

    engine.clearSession('sess-1');

    await engine.dispatcher.dispatch(pre);
    expect(seen).toEqual(['sess-1']);
    expect(engine.dispatcher.takeAsyncContexts('sess-1')).toEqual([]);
    expect(engine.dispatcher.takeAsyncContexts('sess-2').map((c) => c.content)).toEqual(['late news']);
  });
});

/** How many files under `dir` this process holds open (Linux). */
function openFilesUnder(dir: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
    } catch {
      return false;
    }
  }).length;
}

describe.runIf(process.platform === 'linux')('HookEngine sessions: audit files', () => {
  it('a cleared session closes its audit file, and a later record of it appends after its last seq', async () => {
    const engine = engineIn();
    const storage = path.join(engine.audit.dir, '..');
    for (let i = 0; i < 50; i++) {
      await engine.dispatcher.dispatch({ ...toolPayload('PreToolUse', 'Bash', { command: 'ls' }), session_id: `chat-${i}` });
      engine.clearSession(`chat-${i}`);
    }
    await vi.waitFor(() => {
      expect(readdirSync(engine.audit.dir)).toHaveLength(50);
      expect(openFilesUnder(storage)).toBe(0);
    });

    await engine.dispatcher.dispatch({ ...toolPayload('PostToolUse', 'Bash', { command: 'ls' }), session_id: 'chat-0' });
    const { records, problems } = await engine.audit.read('chat-0');
    expect(problems).toEqual([]);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
  });
});
