import { linkSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonResult, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';

// A cloned repository may contain symlinks and hard links; the model may plant them too. File
// tools must act on what the links lead to, checked against the workspace and the protected
// files, and never read or write a file whose other name may lie outside.

const SECRET = 'TOP-SECRET-7f3a9c';
const HOOKS = '{ "hooks": {} }\n';

const bundle = useCliBundle();
let bed: Testbed | undefined;
let outside: string;
beforeEach(() => {
  outside = mkdtempSync(path.join(tmpdir(), 'hookpilot-outside-'));
  writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\n`);
});
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  rmSync(outside, { recursive: true, force: true });
});

type Call = { name: string; arguments: Record<string, unknown> };
const script = (list: Call[]) => [...list.map((call, i) => toolCalls([{ id: `c${i}`, ...call }])), text('done')];

async function runCalls(list: Call[], setup: (ws: string) => void, args: string[] = ['--permission-mode', 'bypassPermissions']) {
  bed = await startTestbed(bundle.bundle, { '.vscode/hooks.json': HOOKS, 'src/app.ts': 'const a = 1;\n' }, script(list));
  setup(bed.workspace.dir);
  const r = await bed.run(['go', ...args, '--output-format', 'json']);
  expect(r.code).toBe(0);
  const result = jsonResult(r);
  return {
    result,
    outcomes: result.tool_calls.map((c) => c.outcome),
    sent: JSON.stringify(bed.server.requests.map((q) => q.body.messages)),
  };
}

describe('a symlink to .vscode', () => {
  it('makes Write and Edit of vs/hooks.json ask a person (denied headless), even in bypassPermissions mode', async () => {
    const { outcomes } = await runCalls(
      [
        { name: 'Write', arguments: { file_path: 'vs/hooks.json', content: '{}' } },
        { name: 'Edit', arguments: { file_path: 'vs/hooks.json', old_string: '{ "hooks": {} }', new_string: '{}' } },
        { name: 'Write', arguments: { file_path: 'h.json', content: '{}' } },
        { name: 'Write', arguments: { file_path: 'src/ok.ts', content: 'ok\n' } },
      ],
      (ws) => {
        symlinkSync(path.join(ws, '.vscode'), path.join(ws, 'vs'));
        symlinkSync(path.join(ws, '.vscode', 'hooks.json'), path.join(ws, 'h.json'));
      },
    );
    expect(outcomes).toEqual(['denied', 'denied', 'denied', 'executed']);
    expect(readFileSync(path.join(bed!.workspace.dir, '.vscode/hooks.json'), 'utf8')).toBe(HOOKS);
  });
});

describe('symlinks that lead outside the workspace', () => {
  it('are refused to Read, Write, Edit, Glob and Grep', async () => {
    const { outcomes, sent } = await runCalls(
      [
        { name: 'Read', arguments: { file_path: 'out/secret.txt' } },
        { name: 'Read', arguments: { file_path: 'leak.txt' } },
        { name: 'Write', arguments: { file_path: 'out/planted.txt', content: 'x' } },
        { name: 'Edit', arguments: { file_path: 'leak.txt', old_string: 'TOP', new_string: 'PWNED' } },
        { name: 'Glob', arguments: { pattern: '*', path: 'out' } },
        { name: 'Grep', arguments: { pattern: 'SECRET', path: 'out', output_mode: 'content' } },
        { name: 'Grep', arguments: { pattern: 'SECRET', output_mode: 'content' } },
        { name: 'Glob', arguments: { pattern: '**/*.txt' } },
      ],
      (ws) => {
        symlinkSync(outside, path.join(ws, 'out'));
        symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'leak.txt'));
      },
    );
    expect(outcomes.slice(0, 6)).toEqual(['denied', 'denied', 'denied', 'denied', 'denied', 'denied']);
    // A search of the workspace does not follow the links: it finds nothing, and says so.
    expect(outcomes.slice(6)).toEqual(['executed', 'executed']);
    expect(sent).not.toContain(SECRET);
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
  });
});

describe('a Bash pattern rule and paths that lead outside the workspace', () => {
  it('does not grant a glob that matches a link to outside, or a URL-shaped path through a folder', async () => {
    const up = '../'.repeat(30);
    const { outcomes, sent } = await runCalls(
      [
        { name: 'Bash', arguments: { command: 'cat sr?/lea*' } },
        { name: 'Bash', arguments: { command: 'cat */secret.txt' } },
        { name: 'Bash', arguments: { command: 'cp src/app.ts ou[t]/' } },
        { name: 'Bash', arguments: { command: `mkdir -p h: && cat h://${up}${outside}/secret.txt` } },
        { name: 'Bash', arguments: { command: `mkdir -p h: ; cp src/app.ts h://${up}${outside}/planted.txt` } },
        { name: 'Bash', arguments: { command: 'cat src/*.ts' } },
      ],
      (ws) => {
        symlinkSync(outside, path.join(ws, 'out'));
        symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'src', 'leak'));
      },
      ['--allowed-tools', 'Bash(cat *)', '--allowed-tools', 'Bash(cp *)', '--allowed-tools', 'Bash(mkdir *)'],
    );
    expect(outcomes).toEqual(['denied', 'denied', 'denied', 'denied', 'denied', 'executed']);
    expect(sent).not.toContain(SECRET);
    expect(existsSync(path.join(outside, 'app.ts'))).toBe(false);
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
  });
});

describe('a hard link to a file outside the workspace', () => {
  it('is refused to Read, Write and Edit, and skipped by Grep', async () => {
    const { outcomes, sent, result } = await runCalls(
      [
        { name: 'Read', arguments: { file_path: 'notes.txt' } },
        { name: 'Write', arguments: { file_path: 'notes.txt', content: 'x' } },
        { name: 'Edit', arguments: { file_path: 'notes.txt', old_string: 'TOP', new_string: 'PWNED' } },
        { name: 'Grep', arguments: { pattern: 'SECRET', output_mode: 'content' } },
      ],
      (ws) => linkSync(path.join(outside, 'secret.txt'), path.join(ws, 'notes.txt')),
    );
    expect(outcomes).toEqual(['denied', 'denied', 'denied', 'executed']);
    expect(result.tool_calls[0].output).toMatch(/2 hard links/);
    expect(sent).not.toContain(SECRET);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
  });
});
