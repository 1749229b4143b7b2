import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonResult, startTestbed, toolMessageSent, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';

// The model attacks the search tools in default mode with no rules: Grep and Glob run
// without asking, so they must never list or read what lies outside the workspace, and
// never answer a question about text the model is not allowed to see.

const OUTSIDE_SECRET = 'OUTSIDE-CONTENT-5d1e';
const ENV_SECRET = 'dotenv-secret-4f5g6h7j';
const TOKEN = 'ghp_Zq8RkW2mX4vB7nT1pL9sY3cF6hJ0dG5aE8uI';

const bundle = useCliBundle();
let bed: Testbed | undefined;
let outside: string;
beforeEach(() => {
  outside = mkdtempSync(path.join(tmpdir(), 'hookpilot-outside-'));
  writeFileSync(path.join(outside, 'id_rsa'), `${OUTSIDE_SECRET} line\n`);
});
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  rmSync(outside, { recursive: true, force: true });
});

type Call = { name: string; arguments: Record<string, unknown> };

async function runCalls(files: Record<string, string>, list: Call[], setup: (ws: string) => void = () => undefined) {
  const script = [...list.map((call, i) => toolCalls([{ id: `c${i}`, ...call }])), text('done')];
  bed = await startTestbed(bundle.bundle, files, script);
  setup(bed.workspace.dir);
  const r = await bed.run(['go', '--output-format', 'json']);
  expect(r.code).toBe(0);
  const result = jsonResult(r);
  const replies = list.map((_, i) => toolMessageSent(bed!.server, `c${i}`));
  return { outcomes: result.tool_calls.map((c) => c.outcome), replies };
}

describe('Grep and Glob through a symlinked directory', () => {
  it('never list or read a file outside the workspace, whatever the pattern names the link with', async () => {
    const patterns = [
      '{out,none}/*',
      '{.hid,none}/*',
      'out/*',
      '@(out)/*',
      '[o]ut/*',
      'deep/{inner,x}/*',
      '**/{inner,x}/*',
      '{out,none}/**',
    ];
    const calls: Call[] = [
      ...patterns.map((pattern) => ({ name: 'Glob', arguments: { pattern } })),
      ...patterns.map((glob) => ({ name: 'Grep', arguments: { pattern: 'CONTENT', glob, output_mode: 'content' } })),
      ...patterns.map((glob) => ({ name: 'Grep', arguments: { pattern: 'CONTENT', glob, output_mode: 'count' } })),
      { name: 'Grep', arguments: { pattern: 'CONTENT', path: 'deep', glob: '{inner,y}/*', output_mode: 'files_with_matches' } },
    ];
    const { outcomes, replies } = await runCalls({ 'src/app.ts': 'const a = 1;\n' }, calls, (ws) => {
      symlinkSync(outside, path.join(ws, 'out'));
      symlinkSync(outside, path.join(ws, '.hid'));
      mkdirSync(path.join(ws, 'deep'));
      symlinkSync(outside, path.join(ws, 'deep', 'inner'));
    });
    // Each finds nothing, or is refused for naming the link as a folder to walk from (a literal
    // base, a brace alternative's included), before anything is walked.
    const walkedFrom = ['{out,none}/*', '{.hid,none}/*', 'out/*', 'deep/{inner,x}/*', '{out,none}/**', '{inner,y}/*'];
    expect(replies).toEqual(calls.map(() => expect.stringMatching(/^No (files|matches) found|outside the workspace/)));
    expect(outcomes).toEqual(
      calls.map((call) => (walkedFrom.includes(String(call.arguments.glob ?? call.arguments.pattern)) ? 'failed' : 'executed')),
    );
    expect(replies.join('\n')).not.toContain('id_rsa');
  });

  it('still find files reached through a symlink that stays inside the workspace', async () => {
    const { replies } = await runCalls(
      { 'real/notes.txt': 'inside CONTENT\n' },
      [
        { name: 'Glob', arguments: { pattern: '{alias,none}/*' } },
        { name: 'Grep', arguments: { pattern: 'CONTENT', glob: '{alias,none}/*', output_mode: 'content' } },
      ],
      (ws) => symlinkSync(path.join(ws, 'real'), path.join(ws, 'alias')),
    );
    expect(replies[0]).toContain(path.join('alias', 'notes.txt'));
    expect(replies[1]).toMatch(/notes\.txt:1:inside CONTENT/);
  });
});

describe('a glob pattern the model writes', () => {
  it('does not hold the host on a file name the model planted: Glob and Grep refuse a backtracking pattern', async () => {
    const stars = `${'*a'.repeat(12)}*b`;
    const list: Call[] = [
      { name: 'Write', arguments: { file_path: `${'a'.repeat(40)}.txt`, content: 'x\n' } },
      { name: 'Glob', arguments: { pattern: stars } },
      { name: 'Grep', arguments: { pattern: 'x', glob: stars } },
    ];
    bed = await startTestbed(bundle.bundle, {}, [...list.map((call, i) => toolCalls([{ id: `c${i}`, ...call }])), text('done')]);
    const r = await bed.run(['go', '--permission-mode', 'acceptEdits', '--output-format', 'json'], { timeoutMs: 30_000 });
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'failed', 'failed']);
    expect(toolMessageSent(bed.server, 'c1')).toMatch(/more than 2 \* wildcards in one path segment/);
    expect(toolMessageSent(bed.server, 'c2')).toMatch(/more than 2 \* wildcards in one path segment/);
  }, 60_000);
});

describe('a file the model grows with Edit', () => {
  it('stops at 5 MB with a tool error, and the run ends normally (acceptEdits)', async () => {
    const grow: Call[] = [
      { name: 'Write', arguments: { file_path: 'blob.txt', content: `${'a'.repeat(1000)}\n${'a\n'.repeat(40)}` } },
      { name: 'Edit', arguments: { file_path: 'blob.txt', old_string: 'a', new_string: 'a'.repeat(1000), replace_all: true } },
      { name: 'Edit', arguments: { file_path: 'blob.txt', old_string: 'a', new_string: 'a'.repeat(250), replace_all: true } },
      { name: 'Edit', arguments: { file_path: 'blob.txt', old_string: 'a', new_string: 'b', replace_all: true } },
      { name: 'Read', arguments: { file_path: 'blob.txt', limit: 1 } },
    ];
    // All in one reply: no model request in between.
    bed = await startTestbed(bundle.bundle, {}, [toolCalls(grow.map((call, i) => ({ id: `c${i}`, ...call }))), text('done')]);
    const r = await bed.run(['go', '--permission-mode', 'acceptEdits', '--output-format', 'json'], { timeoutMs: 60_000 });
    expect(r.signal).toBe(null);
    expect(r.code).toBe(0);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed', 'failed', 'executed', 'executed']);
    expect(toolMessageSent(bed.server, 'c2')).toMatch(
      /^The edit would make .*blob\.txt \d+ bytes, more than the 5242880 bytes Edit writes.$/,
    );
    const blob = readFileSync(path.join(bed.workspace.dir, 'blob.txt'), 'utf8');
    expect(blob === `${'b'.repeat(1_000_000)}\n${`${'b'.repeat(1000)}\n`.repeat(40)}`, 'the file as the last edit left it').toBe(true);
  }, 120_000);
});

describe('Grep on text the redactor hides', () => {
  it('is no oracle: count, files_with_matches and content match the redacted text, as Read shows it', async () => {
    const probes: Call[] = [
      { name: 'Grep', arguments: { pattern: '^STRIPE_SECRET=d', path: '.env', output_mode: 'count' } },
      { name: 'Grep', arguments: { pattern: 'secret-4f', output_mode: 'files_with_matches' } },
      { name: 'Grep', arguments: { pattern: 'dotenv', output_mode: 'content' } },
      { name: 'Grep', arguments: { pattern: 'ghp_Zq', output_mode: 'count' } },
      { name: 'Grep', arguments: { pattern: 'ghp_[A-Z]', path: 'src', output_mode: 'files_with_matches' } },
      { name: 'Grep', arguments: { pattern: 'STRIPE_SECRET=\\[REDACTED', path: '.env', output_mode: 'count' } },
      { name: 'Grep', arguments: { pattern: 'const token', output_mode: 'content' } },
    ];
    const { outcomes, replies } = await runCalls(
      { '.env': `STRIPE_SECRET=${ENV_SECRET}\nPORT=3000\n`, 'src/config.ts': `const token = '${TOKEN}';\n` },
      probes,
    );
    expect(outcomes).toEqual(probes.map(() => 'executed'));
    expect(replies.slice(0, 5)).toEqual(replies.slice(0, 5).map(() => expect.stringMatching(/^No (files|matches) found/)));
    // What the model can see, it can still find.
    expect(replies[5]).toMatch(/\.env:1$/);
    expect(replies[6]).toMatch(/config\.ts:1:const token = '\[REDACTED:github_token\]';/);
  });
});

describe('Edit on text the redactor hides (acceptEdits: no person asked)', () => {
  const env = `STRIPE_SECRET=${ENV_SECRET}\nPORT=3000\n`;
  const runEdits = async (calls: Call[]) => {
    bed = await startTestbed(bundle.bundle, { '.env': env }, [
      ...calls.map((call, i) => toolCalls([{ id: `c${i}`, ...call }])),
      text('done'),
    ]);
    const r = await bed.run(['go', '--permission-mode', 'acceptEdits', '--output-format', 'json'], { timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    return calls.map((_, i) => toolMessageSent(bed!.server, `c${i}`) ?? '');
  };

  it('is no oracle: a right and a wrong guess at a hidden value get the same answer, and the file is unchanged', async () => {
    const huge = 'x'.repeat(5 * 1024 * 1024 + 16);
    const guess = (start: string): Call => ({
      name: 'Edit',
      arguments: { file_path: '.env', old_string: `STRIPE_SECRET=${start}`, new_string: huge },
    });
    const [right, wrong] = await runEdits([guess('dotenv-s'), guess('dotenv-t')]);
    expect(right).toMatch(/^old_string not found in /);
    expect(right).toBe(wrong);
    expect(readFileSync(path.join(bed!.workspace.dir, '.env'), 'utf8')).toBe(env);
  }, 120_000);

  it('does not split a hidden value into pieces that a later Read shows', async () => {
    const [, shown] = await runEdits([
      { name: 'Edit', arguments: { file_path: '.env', old_string: '-', new_string: '-|', replace_all: true } },
      { name: 'Read', arguments: { file_path: '.env' } },
    ]);
    expect(shown.replaceAll('|', '')).not.toContain(ENV_SECRET);
    expect(readFileSync(path.join(bed!.workspace.dir, '.env'), 'utf8')).toBe(env);
  }, 120_000);
});

describe('Read of a file over 5 MiB, streamed', () => {
  it('hides a private key whose BEGIN line ends a line longer than the 2000-character cut', async () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const padding = Array.from({ length: 60_000 }, (_, i) => `padding line ${i + 1} ${'.'.repeat(80)}`).join('\n');
    const log = `${'x'.repeat(2500)} ${pem}${padding}\n`;
    const { outcomes, replies } = await runCalls({ 'big.log': log }, [{ name: 'Read', arguments: { file_path: 'big.log', limit: 40 } }]);
    expect(outcomes).toEqual(['executed']);
    for (const line of pem.split('\n').slice(1, -2)) expect(replies[0]).not.toContain(line);
  }, 120_000);
});

describe('a .env the model planted', () => {
  it('does not hide commands or paths from the output and audit log of a later session', async () => {
    const planted = `NOTE=git apply\nTARGET=.vscode/hooks.json\nHOST=evil2.example\nSTRIPE_SECRET=${ENV_SECRET}\n`;
    const answer = 'ran git apply on .vscode/hooks.json via evil2.example';
    bed = await startTestbed(bundle.bundle, { '.env.local': planted }, [text(`${answer}; ${ENV_SECRET}`)]);
    const r = await bed.run(['go', '--output-format', 'json']);
    const result = jsonResult(r);
    expect(result.result).toBe(`${answer}; [REDACTED:secret_value]`);
    const audit = readFileSync(result.audit_log, 'utf8');
    expect(audit).toContain(answer);
    expect(audit).not.toContain(ENV_SECRET);
  });
});
