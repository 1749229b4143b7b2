import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { selects } from '../../src/core/hooks/hook-selection';
import type { HookDefinition } from '../../src/core/hooks/types';
import { toolPayload } from '../support/hook-fixtures';

// A hook's `if` is one permission rule matched as a deny rule is: a file or search tool's path as
// given and as symlinks resolve it. A guard scoped to .env files must run for a Write that lands on one.

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(tmpdir(), 'hookpilot-if-')));
  mkdirSync(path.join(ws, 'config'));
  writeFileSync(path.join(ws, 'config/prod.env'), 'API_URL=https://prod.example\n');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const guard = (rule: string): HookDefinition => ({
  id: 'env-guard',
  name: 'env-guard',
  event: 'PreToolUse',
  priority: 0,
  enabled: true,
  source: { kind: 'user' },
  spec: { type: 'command', command: 'true' },
  if: rule,
});
const runsFor = (rule: string, tool: string, input: Record<string, unknown>) =>
  selects(guard(rule), toolPayload('PreToolUse', tool, input, { cwd: ws }), { projectDir: ws, home: path.join(ws, 'home') });

describe("a hook's `if` on a file path", () => {
  it('runs for a Write through a link that leads to a file the rule names', () => {
    symlinkSync('config/prod.env', path.join(ws, 'notes.txt'));
    expect(runsFor('Write(**/*.env)', 'Write', { file_path: 'notes.txt', content: 'x' })).toBe(true);
    expect(runsFor('Write(**/*.env)', 'Write', { file_path: path.join(ws, 'notes.txt'), content: 'x' })).toBe(true);
  });

  it('runs for a Write spelled through /proc/self/root', () => {
    expect(runsFor('Write(**/*.env)', 'Write', { file_path: `/proc/self/root${ws}/config/prod.env`, content: 'x' })).toBe(true);
  });

  it('runs for a search of a folder reached through a link, as Read(...) covers searches', () => {
    symlinkSync('config', path.join(ws, 'cfg'));
    expect(runsFor('Read(config/**)', 'Grep', { pattern: 'API', path: 'cfg' })).toBe(true);
  });

  it('runs when the path cannot be resolved (a link loop): where the Write lands cannot be told', () => {
    symlinkSync('loop-b', path.join(ws, 'loop-a'));
    symlinkSync('loop-a', path.join(ws, 'loop-b'));
    expect(runsFor('Write(**/*.env)', 'Write', { file_path: 'loop-a/x', content: 'x' })).toBe(true);
  });

  it('still skips a call whose path neither as given nor as resolved matches', () => {
    writeFileSync(path.join(ws, 'readme.txt'), 'hi\n');
    symlinkSync('readme.txt', path.join(ws, 'notes.txt'));
    expect(runsFor('Write(**/*.env)', 'Write', { file_path: 'notes.txt', content: 'x' })).toBe(false);
    expect(runsFor('Write(**/*.env)', 'Bash', { command: 'cat notes.txt' })).toBe(false);
    expect(runsFor('Bash(git *)', 'Bash', { command: 'npm test' })).toBe(false);
  });
});
