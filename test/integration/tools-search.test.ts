import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGlobTool, type GlobInput } from '../../src/core/agent/tools/glob-tool';
import { createGrepTool, type GrepInput } from '../../src/core/agent/tools/grep-tool';
import type { ToolContext, ToolResult } from '../../src/core/agent/tools/tool';

let base: string;
let ws: string;
let outside: string;
const globTool = createGlobTool();
const grepTool = createGrepTool();

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tools-search-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(outside, 'leak.ts'), 'const needle = 1;\n');
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function context(extra: Partial<ToolContext> = {}): ToolContext {
  return { workspaceRoot: ws, cwd: ws, signal: new AbortController().signal, env: process.env, sessionId: 's1', ...extra };
}

/** Writes a workspace file with a modification time `ageSeconds` in the past. */
function put(relativePath: string, content: string, ageSeconds = 100): string {
  const path = join(ws, relativePath);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  const time = Date.now() / 1000 - ageSeconds;
  utimesSync(path, time, time);
  return path;
}

const glob = (input: GlobInput, extra?: Partial<ToolContext>) => globTool.run(globTool.inputSchema.parse(input), context(extra));
const grep = (input: GrepInput, extra?: Partial<ToolContext>) => grepTool.run(grepTool.inputSchema.parse(input), context(extra));

function responseOf(result: ToolResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`expected success, got: ${result.error}`);
  return result.response as Record<string, unknown>;
}

function errorOf(result: ToolResult): string {
  if (result.ok) throw new Error(`expected a failure, got: ${result.content}`);
  return result.error;
}

describe('Glob tool', () => {
  it('lists matches newest first with absolute paths, skipping node_modules and .git', async () => {
    const old = put('src/old.ts', '', 300);
    const newest = put('src/deep/newest.ts', '', 10);
    const middle = put('middle.ts', '', 100);
    put('node_modules/pkg/index.ts', '', 1);
    put('.git/hooks/x.ts', '', 1);
    put('src/notes.md', '', 1);
    const result = await glob({ pattern: '**/*.ts' });
    const response = responseOf(result);
    expect(response).toMatchObject({ filenames: [newest, middle, old], numFiles: 3, truncated: false });
    expect(typeof response.durationMs).toBe('number');
    expect(result.ok && result.content).toBe([newest, middle, old].join('\n'));
  });

  it('searches under path, and under the static base of a pattern', async () => {
    const inSrc = put('src/a.ts', '');
    put('b.ts', '');
    expect(responseOf(await glob({ pattern: '*.ts', path: 'src' })).filenames).toEqual([inSrc]);
    expect(responseOf(await glob({ pattern: 'src/**/*.ts' })).filenames).toEqual([inSrc]);
    expect(responseOf(await glob({ pattern: `${ws}/src/*.ts` })).filenames).toEqual([inSrc]);
    expect(responseOf(await glob({ pattern: 'src/a.ts' })).filenames).toEqual([inSrc]);
  });

  it('caps results at 100 and flags the truncation', async () => {
    for (let i = 0; i < 120; i += 1) put(`many/f${String(i).padStart(3, '0')}.txt`, '', 1000 - i);
    const result = await glob({ pattern: 'many/*.txt' });
    const response = responseOf(result);
    expect(response).toMatchObject({ numFiles: 100, truncated: true });
    expect((response.filenames as string[])[0]).toBe(join(ws, 'many', 'f119.txt'));
    expect(result.ok && result.content).toMatch(/Results are truncated to the 100 newest of 120 files/);
  });

  it('says when nothing matched', async () => {
    const result = await glob({ pattern: '**/*.rs' });
    expect(result).toMatchObject({ ok: true, content: 'No files found', response: { filenames: [], numFiles: 0, truncated: false } });
  });

  it('stays in the workspace: no .. patterns, outside paths, or symlinked directories', async () => {
    put('src/a.ts', '');
    expect(errorOf(await glob({ pattern: '../outside/*.ts' }))).toMatch(/^path outside the workspace/);
    expect(errorOf(await glob({ pattern: `${outside}/*.ts` }))).toMatch(/^path outside the workspace/);
    expect(errorOf(await glob({ pattern: '*.ts', path: outside }))).toMatch(/^path outside the workspace/);
    symlinkSync(outside, join(ws, 'escape'));
    expect(responseOf(await glob({ pattern: '**/*.ts' })).filenames).toEqual([join(ws, 'src', 'a.ts')]);
    expect(responseOf(await glob({ pattern: 'src/**/../../../outside/*.ts' })).filenames).toEqual([]);
  });

  // Before the bound, this one match took about 35 s of the host's only thread.
  it('refuses a pattern whose stars backtrack over a long file name, and does not hold the host', async () => {
    put(`${'a'.repeat(200)}.txt`, '');
    expect(errorOf(await glob({ pattern: '*a*a*a*a*b' }))).toMatch(/more than 2 \* wildcards in one path segment/);
  }, 10_000);

  it('bounds the other patterns that backtrack or multiply: ** runs, extglobs and braces', async () => {
    const long = put(`${'a'.repeat(40)}`, '');
    expect(errorOf(await glob({ pattern: '**/a/**/a/**/a/**/b' }))).toMatch(/more than 3 \* or \*\* wildcards/);
    expect(errorOf(await glob({ pattern: '{a,b}'.repeat(16) }))).toMatch(/expands to more than 100 patterns/);
    expect(errorOf(await glob({ pattern: '{1..999}{1..999}' }))).toMatch(/expands to more than 100 patterns/);
    // Extglobs are literal text, as in ripgrep's globs: no nested quantifiers.
    expect(responseOf(await glob({ pattern: '+(a|aa)' })).filenames).toEqual([]);
    expect(responseOf(await glob({ pattern: '*a*a' })).filenames).toEqual([long]);
    expect(responseOf(await glob({ pattern: '**/*.{ts,txt}' })).filenames).toEqual([]);
  }, 10_000);
});

describe('Grep tool', () => {
  beforeEach(() => {
    put('src/alpha.ts', 'import x from "y";\nconst needle = 1;\nexport default needle;\n', 50);
    put('src/beta.js', 'function Needle() {}\nreturn;\n', 10);
    put('docs/readme.md', 'no match here\n', 5);
  });

  it('lists matching files newest first by default', async () => {
    put('src/gamma.ts', 'needle\n', 1);
    const result = await grep({ pattern: 'needle' });
    expect(responseOf(result)).toEqual({
      mode: 'files_with_matches',
      numFiles: 2,
      filenames: [join(ws, 'src', 'gamma.ts'), join(ws, 'src', 'alpha.ts')],
    });
    expect(result.ok && result.content).toBe(`Found 2 file(s)\n${join(ws, 'src', 'gamma.ts')}\n${join(ws, 'src', 'alpha.ts')}`);
  });

  it('shows matching lines with numbers in content mode', async () => {
    const alpha = join(ws, 'src', 'alpha.ts');
    const result = await grep({ pattern: 'needle', output_mode: 'content' });
    expect(responseOf(result)).toEqual({
      mode: 'content',
      numFiles: 1,
      filenames: [alpha],
      content: `${alpha}:2:const needle = 1;\n${alpha}:3:export default needle;`,
      numLines: 2,
    });
    const plain = await grep({ pattern: 'needle', output_mode: 'content', '-n': false });
    expect(responseOf(plain).content).toBe(`${alpha}:const needle = 1;\n${alpha}:export default needle;`);
  });

  it('adds context lines with rg separators', async () => {
    const file = put('ctx.txt', 'a\nhit1\nb\nc\nd\ne\nhit2\nf\n');
    const result = await grep({ pattern: 'hit', output_mode: 'content', path: 'ctx.txt', '-C': 1 });
    expect(responseOf(result).content).toBe(
      [`${file}-1-a`, `${file}:2:hit1`, `${file}-3-b`, '--', `${file}-6-e`, `${file}:7:hit2`, `${file}-8-f`].join('\n'),
    );
    const after = await grep({ pattern: 'hit1', output_mode: 'content', path: 'ctx.txt', '-A': 2, '-n': false });
    expect(responseOf(after).content).toBe([`${file}:hit1`, `${file}-b`, `${file}-c`].join('\n'));
  });

  it('counts matching lines per file', async () => {
    const result = await grep({ pattern: 'needle', output_mode: 'count', '-i': true });
    expect(responseOf(result)).toEqual({
      mode: 'count',
      numFiles: 2,
      filenames: [join(ws, 'src', 'alpha.ts'), join(ws, 'src', 'beta.js')],
      content: `${join(ws, 'src', 'alpha.ts')}:2\n${join(ws, 'src', 'beta.js')}:1`,
      numMatches: 3,
    });
  });

  it('filters by glob and by type', async () => {
    expect(responseOf(await grep({ pattern: 'needle', '-i': true, glob: '*.js' })).filenames).toEqual([join(ws, 'src', 'beta.js')]);
    expect(responseOf(await grep({ pattern: 'needle', '-i': true, type: 'ts' })).filenames).toEqual([join(ws, 'src', 'alpha.ts')]);
    expect(responseOf(await grep({ pattern: 'needle', '-i': true, glob: 'src/*.{ts,js}', type: 'js' })).filenames).toEqual([
      join(ws, 'src', 'beta.js'),
    ]);
    expect(errorOf(await grep({ pattern: 'x', type: 'klingon' }))).toMatch(/Unknown file type "klingon". Known types: .*ts/);
  });

  it('refuses a glob filter whose stars backtrack over a long file name, and does not hold the host', async () => {
    put(`${'a'.repeat(200)}.txt`, 'x\n');
    expect(errorOf(await grep({ pattern: 'x', glob: '*a*a*a*a*b' }))).toMatch(/more than 2 \* wildcards in one path segment/);
    expect(responseOf(await grep({ pattern: 'x', glob: '*a*a.txt' })).numFiles).toBe(1);
  }, 10_000);

  it('matches across lines in multiline mode', async () => {
    const file = put('multi.txt', 'start\nfoo(\n  bar)\nend\n');
    expect(responseOf(await grep({ pattern: 'foo\\(\\s*bar', path: 'multi.txt' })).numFiles).toBe(0);
    const result = await grep({ pattern: 'foo\\(\\s*bar', path: 'multi.txt', multiline: true, output_mode: 'content' });
    expect(responseOf(result).content).toBe(`${file}:2:foo(\n${file}:3:  bar)`);
  });

  it('answers a model-written pattern that would backtrack forever, and stops a multiline search whose matches rescan the file', async () => {
    put('runs.txt', `${'a'.repeat(50_000)}b\n`);
    expect(responseOf(await grep({ pattern: '(a+)+$', path: 'runs.txt' })).numFiles).toBe(0);
    expect(errorOf(await grep({ pattern: '(?=a)b', path: 'runs.txt' }))).toMatch(
      /^Invalid regular expression: .*no lookaround or backreferences/,
    );
    // Every `a` is a match, and each search for the next one first scans to the end for a `z`.
    const result = await grep({ pattern: '[^z]*z|a', path: 'runs.txt', multiline: true, output_mode: 'count' });
    expect(result.ok && result.content).toMatch(
      /^.*runs\.txt:1\n\[Multiline search stopped after 5 s: the rest was not searched; narrow the pattern or the path\]$/,
    );
  });

  it('limits output with head_limit', async () => {
    for (let i = 0; i < 5; i += 1) put(`many/f${i}.txt`, 'needle\nneedle\n', 200 + i);
    const files = await grep({ pattern: 'needle', path: 'many', head_limit: 2 });
    expect(responseOf(files)).toMatchObject({ numFiles: 2, filenames: [join(ws, 'many', 'f0.txt'), join(ws, 'many', 'f1.txt')] });
    const lines = await grep({ pattern: 'needle', path: 'many', output_mode: 'content', head_limit: 3 });
    expect(responseOf(lines)).toMatchObject({ numLines: 3 });
  });

  it('skips binary files, files over 5 MB, node_modules and .git', async () => {
    writeFileSync(join(ws, 'blob.bin'), Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]));
    writeFileSync(join(ws, 'huge.txt'), `needle\n${'x'.repeat(5 * 1024 * 1024)}`);
    put('node_modules/dep/index.js', 'needle\n');
    put('.git/config', 'needle\n');
    expect(responseOf(await grep({ pattern: 'needle' })).filenames).toEqual([join(ws, 'src', 'alpha.ts')]);
  });

  it('reports invalid patterns and paths outside the workspace', async () => {
    expect(errorOf(await grep({ pattern: 'foo(' }))).toMatch(/^Invalid regular expression/);
    expect(errorOf(await grep({ pattern: 'needle', path: outside }))).toMatch(/^path outside the workspace/);
    expect(errorOf(await grep({ pattern: 'needle', path: 'missing-dir' }))).toBe(`Path does not exist: ${join(ws, 'missing-dir')}`);
    symlinkSync(outside, join(ws, 'escape'));
    expect(responseOf(await grep({ pattern: 'needle' })).filenames).toEqual([join(ws, 'src', 'alpha.ts')]);
  });

  it('reads a file named through a symlinked directory only when it really lies in an allowed directory', async () => {
    symlinkSync(outside, join(ws, 'escape'));
    const escaping = { pattern: 'needle', glob: '{escape,none}/*', output_mode: 'content' } as const;
    expect(errorOf(await grep(escaping))).toMatch(/^path outside the workspace: .*escape \(it leads through a symlink/);
    expect(errorOf(await glob({ pattern: '{escape,none}/*' }))).toMatch(
      /^path outside the workspace: .*escape \(it leads through a symlink/,
    );
    // An additional directory is allowed, however the pattern reaches it.
    expect(responseOf(await grep(escaping, { additionalDirectories: [outside] })).content).toBe(
      `${join(ws, 'escape', 'leak.ts')}:1:const needle = 1;`,
    );
    expect(responseOf(await glob({ pattern: '{escape,none}/*' }, { additionalDirectories: [outside] })).filenames).toEqual([
      join(ws, 'escape', 'leak.ts'),
    ]);
  });

  it('matches the text as the model may see it, so that no mode answers for a hidden value', async () => {
    const env = put('.env', 'API_SECRET=s3cr3t-value\nPORT=1\n');
    const redactForModel = (text: string) => text.replaceAll('s3cr3t-value', '[REDACTED:secret_value]');
    for (const output_mode of ['count', 'files_with_matches', 'content'] as const) {
      expect(responseOf(await grep({ pattern: 'API_SECRET=s', output_mode }, { redactForModel }))).toMatchObject({ numFiles: 0 });
    }
    expect(responseOf(await grep({ pattern: 'API_SECRET=', output_mode: 'content' }, { redactForModel })).content).toBe(
      `${env}:1:API_SECRET=[REDACTED:secret_value]`,
    );
  });

  it('stops when aborted', async () => {
    const result = await grep({ pattern: 'needle' }, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ ok: false, interrupted: true });
  });
});
