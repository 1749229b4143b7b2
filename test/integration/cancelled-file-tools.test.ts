import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditTool } from '../../src/core/agent/tools/edit-tool';
import type { ToolContext } from '../../src/core/agent/tools/tool';
import { createWriteTool } from '../../src/core/agent/tools/write-tool';

// Defence in depth: the executor runs no call of a cancelled turn, and Write and Edit change
// nothing should one reach them anyway.

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'cancelled-file-tools-')));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

function cancelledContext(): ToolContext {
  const controller = new AbortController();
  controller.abort();
  return { workspaceRoot: ws, cwd: ws, signal: controller.signal, env: process.env, sessionId: 's1' };
}

describe('file tools of a cancelled turn', () => {
  it('Write neither creates nor replaces a file', async () => {
    const write = createWriteTool();
    writeFileSync(join(ws, 'kept.env'), 'A=1\n');
    for (const file_path of ['new.env', 'kept.env']) {
      const result = await write.run({ file_path, content: 'A=evil\n' }, cancelledContext());
      expect(result).toEqual({ ok: false, error: `Did not write ${join(ws, file_path)}: the turn was cancelled.`, interrupted: true });
    }
    expect(existsSync(join(ws, 'new.env'))).toBe(false);
    expect(readFileSync(join(ws, 'kept.env'), 'utf8')).toBe('A=1\n');
  });

  it('Edit neither creates nor changes a file', async () => {
    const edit = createEditTool();
    writeFileSync(join(ws, 'kept.env'), 'A=1\n');
    const changed = await edit.run({ file_path: 'kept.env', old_string: 'A=1', new_string: 'A=evil' }, cancelledContext());
    expect(changed).toEqual({ ok: false, error: `Did not edit ${join(ws, 'kept.env')}: the turn was cancelled.`, interrupted: true });
    const created = await edit.run({ file_path: 'new.env', old_string: '', new_string: 'A=evil\n' }, cancelledContext());
    expect(created.ok).toBe(false);
    expect(readFileSync(join(ws, 'kept.env'), 'utf8')).toBe('A=1\n');
    expect(existsSync(join(ws, 'new.env'))).toBe(false);
  });
});
