import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { denyingApprover, type ApprovalRequest } from '../../src/core/agent/permissions/permission-settings';
import { loadReplaySource } from '../../src/core/replay/replay-source';
import { replayInScratchCopy } from '../../src/core/replay/scratch-replay';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const line = (message: unknown) => JSON.stringify({ type: 'x', timestamp: 't', message });

/** A transcript whose one turn runs `command` in Bash. */
function recordingOf(dir: string, command: string): string {
  const file = path.join(dir, 'recorded.jsonl');
  const text = [
    line({ role: 'user', content: 'tidy up' }),
    line({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Bash', arguments: JSON.stringify({ command }) } }],
    }),
    line({ role: 'tool', tool_call_id: 'c1', content: 'ok' }),
    line({ role: 'assistant', content: 'Done.' }),
  ].join('\n');
  writeFileSync(file, `${text}\n`);
  return file;
}

describe('replayInScratchCopy: the storage folders it is given', () => {
  it("keeps every one out of the replayed commands' reach, not only the workspace's own storage", async () => {
    const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'hookpilot-replay-storage-')));
    dirs.push(base);
    const projectDir = path.join(base, 'project');
    const storageDir = path.join(base, 'storage', 'this-window');
    const otherWorkspace = path.join(base, 'storage', 'other-window');
    for (const dir of [projectDir, storageDir, otherWorkspace]) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(otherWorkspace, 'audit.jsonl'), '{}\n');
    const asked: ApprovalRequest[] = [];

    const result = await replayInScratchCopy({
      source: await loadReplaySource(recordingOf(base, `rm -rf ${otherWorkspace}`)),
      projectDir,
      storageDir,
      storageRoots: [storageDir, otherWorkspace],
      trusted: true,
      env: { PATH: process.env.PATH, HOME: base },
      log: () => undefined,
      secretValues: [],
      configs: () => [],
      permissions: { mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] },
      approver: { request: (request, signal) => (asked.push(request), denyingApprover.request(request, signal)) },
      signal: new AbortController().signal,
    });

    // Only a person may let a command reach Hookpilot's records: asked in bypassPermissions mode, and denied.
    expect(asked.map((request) => [request.system, request.input.command])).toEqual([[true, `rm -rf ${otherWorkspace}`]]);
    expect(result.turns.map((turn) => turn.reason)).toEqual(['completed']);
    expect(existsSync(path.join(otherWorkspace, 'audit.jsonl'))).toBe(true);
  }, 60_000);
});
