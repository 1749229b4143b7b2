import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/audit/redactor';
import { createEditTool, type EditInput } from '../../src/core/agent/tools/edit-tool';
import { MAX_TEXT_FILE_BYTES, openForReading, openForUpdate } from '../../src/core/agent/tools/file-content';
import { createReadTool, type ReadInput } from '../../src/core/agent/tools/read-tool';
import type { ToolContext, ToolResult } from '../../src/core/agent/tools/tool';
import { createWriteTool, type WriteInput } from '../../src/core/agent/tools/write-tool';

let base: string;
let ws: string;
let outside: string;
const readTool = createReadTool();
const writeTool = createWriteTool();
const editTool = createEditTool();

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tools-files-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'top secret\n');
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function context(extra: Partial<ToolContext> = {}): ToolContext {
  return { workspaceRoot: ws, cwd: ws, signal: new AbortController().signal, env: process.env, sessionId: 's1', ...extra };
}

const read = (input: ReadInput, extra?: Partial<ToolContext>) => readTool.run(readTool.inputSchema.parse(input), context(extra));
const write = (input: WriteInput) => writeTool.run(writeTool.inputSchema.parse(input), context());
const edit = (input: EditInput) => editTool.run(editTool.inputSchema.parse(input), context());

function errorOf(result: ToolResult): string {
  if (result.ok) throw new Error(`expected a failure, got: ${result.content}`);
  return result.error;
}

function contentOf(result: ToolResult): string {
  if (!result.ok) throw new Error(`expected success, got: ${result.error}`);
  return result.content;
}

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('Read tool', () => {
  it('returns cat -n numbered lines and the Claude Code response shape', async () => {
    writeFileSync(join(ws, 'src', 'a.txt'), 'one\ntwo\r\nthree\n');
    const result = await read({ file_path: 'a.txt' }, { cwd: join(ws, 'src') });
    expect(result).toEqual({
      ok: true,
      content: '     1\tone\n     2\ttwo\n     3\tthree',
      response: {
        type: 'text',
        file: { filePath: join(ws, 'src', 'a.txt'), content: 'one\ntwo\nthree', numLines: 3, startLine: 1, totalLines: 3 },
      },
    });
  });

  it('reads a window with offset and limit and says where the rest is', async () => {
    writeFileSync(join(ws, 'ten.txt'), numbered(10));
    const result = await read({ file_path: join(ws, 'ten.txt'), offset: 4, limit: 3 });
    expect(contentOf(result)).toBe(
      '     4\tline 4\n     5\tline 5\n     6\tline 6\n\n(Showing lines 4-6 of 10. Use offset and limit to read more.)',
    );
    expect(result.ok && result.response).toMatchObject({ file: { numLines: 3, startLine: 4, totalLines: 10 } });
  });

  it('reads 2000 lines by default and truncates very long lines', async () => {
    writeFileSync(join(ws, 'big.txt'), numbered(2500));
    const big = await read({ file_path: 'big.txt' });
    expect(big.ok && big.response).toMatchObject({ file: { numLines: 2000, startLine: 1, totalLines: 2500 } });
    expect(contentOf(big)).toContain('  2000\tline 2000\n\n(Showing lines 1-2000 of 2500.');

    writeFileSync(join(ws, 'wide.txt'), `${'x'.repeat(5000)}\nshort\n`);
    const [first, second] = contentOf(await read({ file_path: 'wide.txt' })).split('\n');
    expect(first).toBe(`     1\t${'x'.repeat(2000)}... [line truncated]`);
    expect(second).toBe('     2\tshort');
  });

  // Rescanning the pending text for each chunk took minutes on such a file.
  it('reads a window of a file with one 60 MB line in time linear in its size', async () => {
    writeFileSync(join(ws, 'one-line.txt'), 'a'.repeat(60 * 1024 * 1024));
    const result = await read({ file_path: 'one-line.txt', limit: 1 });
    expect(contentOf(result)).toBe(`     1\t${'a'.repeat(2000)}... [line truncated]`);
  }, 20_000);

  it('handles empty files and offsets past the end', async () => {
    writeFileSync(join(ws, 'empty.txt'), '');
    expect(contentOf(await read({ file_path: 'empty.txt' }))).toMatch(/exists but is empty/);
    writeFileSync(join(ws, 'two.txt'), 'a\nb\n');
    expect(contentOf(await read({ file_path: 'two.txt', offset: 9 }))).toMatch(/has 2 lines; offset 9 is past the end/);
  });

  it('refuses missing files, directories and binary files clearly', async () => {
    expect(errorOf(await read({ file_path: 'nope.txt' }))).toBe(`File does not exist: ${join(ws, 'nope.txt')}`);
    expect(errorOf(await read({ file_path: 'src' }))).toMatch(/is a directory, not a file/);
    writeFileSync(join(ws, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    expect(errorOf(await read({ file_path: 'image.png' }))).toMatch(/binary file \(7 bytes\)/);
  });

  it('refuses paths outside the workspace: .., absolute, and through a symlink', async () => {
    expect(errorOf(await read({ file_path: '../outside/secret.txt' }))).toMatch(/^path outside the workspace: \.\.\/outside\/secret\.txt/);
    expect(errorOf(await read({ file_path: join(outside, 'secret.txt') }))).toMatch(/^path outside the workspace/);
    symlinkSync(outside, join(ws, 'escape'));
    const viaLink = errorOf(await read({ file_path: 'escape/secret.txt' }));
    expect(viaLink).toMatch(/^path outside the workspace: .*symlink/);
    expect(viaLink).not.toContain('top secret');
  });

  it('reads inside additional directories', async () => {
    const result = await read({ file_path: join(outside, 'secret.txt') }, { additionalDirectories: [outside] });
    expect(contentOf(result)).toBe('     1\ttop secret');
  });

  describe('a secret that spans lines', () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const keyBody = pem.split('\n').slice(1, -2);
    const redactor = new Redactor({ secretValues: ['alpha bravo charlie delta\necho foxtrot golf hotel'] });
    const redacted = { redactForModel: (text: string) => redactor.redactForModel(text) };
    const showsKeyBody = (content: string) => keyBody.some((line) => content.includes(line));

    it('a window that starts inside a private key shows none of its body', async () => {
      writeFileSync(join(ws, 'dev.key'), pem);
      expect(contentOf(await read({ file_path: 'dev.key' }, redacted))).toBe('     1\t[REDACTED:private_key]');
      const window = await read({ file_path: 'dev.key', offset: 2, limit: 5 }, redacted);
      expect(showsKeyBody(contentOf(window))).toBe(false);
    });

    it('a registered value on two lines is hidden whole, and later lines are numbered as in the redacted text', async () => {
      writeFileSync(join(ws, '.env'), 'A=1\nSIGNING_SECRET="alpha bravo charlie delta\necho foxtrot golf hotel"\nB=2\n');
      expect(contentOf(await read({ file_path: '.env' }, redacted))).toBe(
        '     1\tA=1\n     2\tSIGNING_SECRET="[REDACTED:secret_value]"\n     3\tB=2',
      );
    });

    describe(`in a file over ${MAX_TEXT_FILE_BYTES} bytes, read as a stream`, () => {
      const padding = Array.from({ length: 60_000 }, (_, i) => `padding line ${i + 1} ${'.'.repeat(80)}`).join('\n');
      const keyStart = 60_001;
      const keyEnd = keyStart + pem.trimEnd().split('\n').length - 1;
      beforeEach(() => writeFileSync(join(ws, 'big.log'), `${padding}\n${pem}${padding}\n`));

      it('refuses a window that starts or ends inside the key, and shows a window that holds it whole redacted', async () => {
        const inside = await read({ file_path: 'big.log', offset: keyStart + 1, limit: 5 }, redacted);
        expect(errorOf(inside)).toMatch(/^Cannot show .*big\.log: lines 60002-60006 would cut through a secret/);
        const acrossEnd = await read({ file_path: 'big.log', offset: keyStart - 2, limit: 4 }, redacted);
        expect(errorOf(acrossEnd)).toMatch(/would cut through a secret/);
        const whole = contentOf(await read({ file_path: 'big.log', offset: keyStart - 1, limit: keyEnd - keyStart + 3 }, redacted));
        expect(showsKeyBody(whole)).toBe(false);
        expect(whole).toContain(`${keyStart}\t[REDACTED:private_key]\n`);
      });

      it('hides a key whose BEGIN line ends a line longer than the cut, and shows that line cut', async () => {
        writeFileSync(join(ws, 'wide.log'), `${'x'.repeat(2500)} ${pem}${padding}\n`);
        const shown = contentOf(await read({ file_path: 'wide.log', limit: 40 }, redacted));
        expect(showsKeyBody(shown)).toBe(false);
        expect(shown.split('\n')[0]).toBe(`     1\t${'x'.repeat(2000)}... [line truncated]`);
      });

      it('shows the lines after the key, numbered as in the file', async () => {
        const after = contentOf(await read({ file_path: 'big.log', offset: keyEnd + 1, limit: 2 }, redacted));
        expect(after.split('\n').slice(0, 2)).toEqual(
          [1, 2].map((n) => `${String(keyEnd + n).padStart(6)}\tpadding line ${n} ${'.'.repeat(80)}`),
        );
      });
    });
  });

  it('normalizes file_path to an absolute path for hooks', () => {
    expect(readTool.normalizeInput?.({ file_path: 'src/a.ts', limit: 5 }, { cwd: ws })).toEqual({
      file_path: join(ws, 'src', 'a.ts'),
      limit: 5,
    });
    expect(readTool.target?.({ file_path: 'src/a.ts' })).toBe('src/a.ts');
  });
});

describe('Write tool', () => {
  it('creates a file and its missing parent directories', async () => {
    const result = await write({ file_path: 'deep/er/new.ts', content: 'export {};\n' });
    const filePath = join(ws, 'deep', 'er', 'new.ts');
    expect(readFileSync(filePath, 'utf8')).toBe('export {};\n');
    expect(result).toEqual({
      ok: true,
      content: `File created successfully at: ${filePath}`,
      response: { type: 'create', filePath, content: 'export {};\n', originalFile: null, structuredPatch: [] },
    });
  });

  it('updates an existing file and reports the original and a patch', async () => {
    const filePath = join(ws, 'src', 'config.txt');
    writeFileSync(filePath, 'a\nb\nc\n');
    const result = await write({ file_path: filePath, content: 'a\nB\nc\n' });
    expect(readFileSync(filePath, 'utf8')).toBe('a\nB\nc\n');
    expect(result.ok && result.response).toEqual({
      type: 'update',
      filePath,
      content: 'a\nB\nc\n',
      originalFile: 'a\nb\nc\n',
      structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' a', '-b', '+B', ' c'] }],
    });
  });

  it('refuses to replace a file over 5 MB, which it would hold whole', async () => {
    const filePath = join(ws, 'huge.txt');
    writeFileSync(filePath, 'x'.repeat(5 * 1024 * 1024 + 1));
    expect(errorOf(await write({ file_path: filePath, content: 'small\n' }))).toMatch(
      /^Cannot write .*huge\.txt: it is 5242881 bytes, more than/,
    );
    expect(readFileSync(filePath, 'utf8').length).toBe(5 * 1024 * 1024 + 1);
  });

  it('refuses to write outside the workspace or over a directory', async () => {
    expect(errorOf(await write({ file_path: '../outside/evil.txt', content: 'x' }))).toMatch(/^path outside the workspace/);
    symlinkSync(outside, join(ws, 'escape'));
    expect(errorOf(await write({ file_path: 'escape/evil.txt', content: 'x' }))).toMatch(/^path outside the workspace/);
    symlinkSync(join(outside, 'planted.txt'), join(ws, 'dangling.txt'));
    expect(errorOf(await write({ file_path: 'dangling.txt', content: 'x' }))).toMatch(/^path outside the workspace/);
    expect(existsSync(join(outside, 'evil.txt'))).toBe(false);
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    expect(errorOf(await write({ file_path: 'src', content: 'x' }))).toMatch(/it is a directory/);
  });
});

describe('Edit tool', () => {
  const file = () => join(ws, 'src', 'app.ts');

  it('replaces a unique string and reports the Claude Code response shape', async () => {
    const original = 'const a = 1;\nconst b = 2;\nconst c = 3;\n';
    writeFileSync(file(), original);
    const result = await edit({ file_path: 'src/app.ts', old_string: 'const b = 2;', new_string: 'const b = 20;\nconst b2 = 21;' });
    expect(readFileSync(file(), 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst b2 = 21;\nconst c = 3;\n');
    expect(result.ok && result.response).toEqual({
      filePath: file(),
      oldString: 'const b = 2;',
      newString: 'const b = 20;\nconst b2 = 21;',
      originalFile: original,
      replaceAll: false,
      structuredPatch: [
        {
          oldStart: 1,
          oldLines: 3,
          newStart: 1,
          newLines: 4,
          lines: [' const a = 1;', '-const b = 2;', '+const b = 20;', '+const b2 = 21;', ' const c = 3;'],
        },
      ],
      userModified: false,
    });
    expect(contentOf(result)).toContain('     2\tconst b = 20;\n     3\tconst b2 = 21;');
  });

  it('refuses a non-unique old_string with the count, unless replace_all', async () => {
    writeFileSync(file(), 'x = 1\nx = 1\nx = 1\n');
    const refused = errorOf(await edit({ file_path: file(), old_string: 'x = 1', new_string: 'x = 2' }));
    expect(refused).toMatch(/occurs 3 times/);
    expect(readFileSync(file(), 'utf8')).toBe('x = 1\nx = 1\nx = 1\n');

    const result = await edit({ file_path: file(), old_string: 'x = 1', new_string: 'x = 2', replace_all: true });
    expect(readFileSync(file(), 'utf8')).toBe('x = 2\nx = 2\nx = 2\n');
    expect(contentOf(result)).toMatch(/3 occurrences replaced/);
    expect(result.ok && result.response).toMatchObject({ replaceAll: true });
  });

  it('refuses to edit a file over 5 MB, or to grow one past it', async () => {
    writeFileSync(file(), 'a'.repeat(5 * 1024 * 1024 + 1));
    expect(errorOf(await edit({ file_path: file(), old_string: 'a', new_string: 'b', replace_all: true }))).toMatch(
      /^Cannot edit .*app\.ts: it is 5242881 bytes, more than/,
    );
    writeFileSync(file(), 'a'.repeat(1000));
    expect(errorOf(await edit({ file_path: file(), old_string: 'a', new_string: 'a'.repeat(6000), replace_all: true }))).toMatch(
      /^The edit would make .*app\.ts 6000000 bytes, more than/,
    );
    expect(readFileSync(file(), 'utf8')).toBe('a'.repeat(1000));
  });

  it('echoes the edited region capped in characters, as Read caps what it shows', async () => {
    writeFileSync(file(), 'a'.repeat(1000));
    const result = await edit({ file_path: file(), old_string: 'a', new_string: 'a'.repeat(1000), replace_all: true });
    expect(readFileSync(file(), 'utf8').length).toBe(1_000_000);
    expect(contentOf(result)).toMatch(
      /1000 occurrences replaced\. The edited region now reads:\n {5}1\ta+\n\n\.\.\. \[\d+ characters truncated\]/,
    );
    expect(contentOf(result).length).toBeLessThan(101_000);
  });

  it('reports missing text, identical strings and missing files', async () => {
    writeFileSync(file(), 'hello\n');
    expect(errorOf(await edit({ file_path: file(), old_string: 'bye', new_string: 'ciao' }))).toMatch(/^old_string not found in/);
    expect(errorOf(await edit({ file_path: file(), old_string: 'hello', new_string: 'hello' }))).toMatch(/identical/);
    expect(errorOf(await edit({ file_path: 'src/missing.ts', old_string: 'a', new_string: 'b' }))).toBe(
      `File does not exist: ${join(ws, 'src', 'missing.ts')}`,
    );
    expect(errorOf(await edit({ file_path: file(), old_string: '', new_string: 'x' }))).toMatch(/already has content/);
  });

  it('creates a new file from an empty old_string', async () => {
    const result = await edit({ file_path: 'src/fresh.ts', old_string: '', new_string: 'fresh\n' });
    expect(readFileSync(join(ws, 'src', 'fresh.ts'), 'utf8')).toBe('fresh\n');
    expect(result.ok && result.response).toMatchObject({
      originalFile: '',
      structuredPatch: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: ['+fresh'] }],
    });
  });

  it('inserts new_string literally, without $ substitution', async () => {
    writeFileSync(file(), 'price: X\n');
    await edit({ file_path: file(), old_string: 'X', new_string: "$& $' $1 $$" });
    expect(readFileSync(file(), 'utf8')).toBe("price: $& $' $1 $$\n");
  });

  it('matches \\n in old_string against a CRLF file and keeps CRLF', async () => {
    writeFileSync(file(), 'one\r\ntwo\r\nthree\r\n');
    await edit({ file_path: file(), old_string: 'one\ntwo', new_string: 'uno\ndos' });
    expect(readFileSync(file(), 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('refuses a file that is not UTF-8 rather than turning its other bytes into U+FFFD', async () => {
    // "José" and "François" in Latin-1: é and ç are single bytes that are not UTF-8.
    const latin1 = Buffer.from('Jos\xe9\nversion=1\nFran\xe7ois\n', 'latin1');
    writeFileSync(file(), latin1);
    expect(errorOf(await edit({ file_path: file(), old_string: 'version=1', new_string: 'version=2' }))).toBe(
      `Cannot edit ${file()}: it is not UTF-8 text.`,
    );
    expect(readFileSync(file())).toEqual(latin1);

    writeFileSync(file(), '\ufeffversion=1\n');
    await edit({ file_path: file(), old_string: 'version=1', new_string: 'version=2' });
    expect(readFileSync(file(), 'utf8')).toBe('\ufeffversion=2\n');
  });

  describe('on text the redactor hides', () => {
    const secret = 'dotenv-secret-4f5g6h7j';
    const token = 'ghp_Zq8RkW2mX4vB7nT1pL9sY3cF6hJ0dG5aE8uI';
    const redactor = new Redactor({ secretValues: [secret] });
    const redactEdit = (input: EditInput) =>
      editTool.run(editTool.inputSchema.parse(input), context({ redactForModel: (text) => redactor.redactForModel(text) }));
    const env = () => join(ws, '.env');

    it('answers a right and a wrong guess at a hidden value alike, and changes nothing', async () => {
      writeFileSync(env(), `STRIPE_SECRET=${secret}\nPORT=3000\n`);
      const huge = 'x'.repeat(MAX_TEXT_FILE_BYTES);
      const guess = (start: string) => redactEdit({ file_path: '.env', old_string: `STRIPE_SECRET=${start}`, new_string: huge });
      const right = errorOf(await guess('dotenv-s'));
      expect(right).toMatch(/^old_string not found in/);
      expect(errorOf(await guess('dotenv-t'))).toBe(right);
      expect(readFileSync(env(), 'utf8')).toBe(`STRIPE_SECRET=${secret}\nPORT=3000\n`);
    });

    it('counts and replaces only what the model sees: a hidden value stays whole', async () => {
      writeFileSync(env(), `STRIPE_SECRET=${secret}\nMODE=dev-1\n`);
      const result = await redactEdit({ file_path: '.env', old_string: '-', new_string: '-|' });
      expect(readFileSync(env(), 'utf8')).toBe(`STRIPE_SECRET=${secret}\nMODE=dev-|1\n`);
      expect(contentOf(result)).toContain('     1\tSTRIPE_SECRET=[REDACTED:secret_value]\n     2\tMODE=dev-|1');
      expect(errorOf(await redactEdit({ file_path: '.env', old_string: 'secret-', new_string: 'x', replace_all: true }))).toMatch(
        /^old_string not found in/,
      );
      expect(readFileSync(env(), 'utf8')).toBe(`STRIPE_SECRET=${secret}\nMODE=dev-|1\n`);
    });

    it('refuses an edit beside a hidden token that would make it recognised no more', async () => {
      writeFileSync(file(), `// owner: ${token}\n`);
      expect(errorOf(await redactEdit({ file_path: file(), old_string: 'owner: ', new_string: 'owner: x' }))).toMatch(
        /so that the secret is no longer hidden/,
      );
      expect(readFileSync(file(), 'utf8')).toBe(`// owner: ${token}\n`);
    });

    it('echoes the region after a private key without the key lines around it', async () => {
      const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      writeFileSync(file(), `${pem}const a = 1;\n`);
      const result = contentOf(await redactEdit({ file_path: file(), old_string: 'const a = 1;', new_string: 'const a = 2;' }));
      for (const line of pem.split('\n').slice(1, -2)) expect(result).not.toContain(line);
      // Numbered as Read numbers the file: the key is one line once hidden.
      expect(result).toMatch(/The edited region now reads:\n {5}1\t\[REDACTED:private_key\]\n {5}2\tconst a = 2;$/);
      expect(readFileSync(file(), 'utf8')).toBe(`${pem}const a = 2;\n`);
    });
  });

  it('refuses to edit outside the workspace', async () => {
    const result = await edit({ file_path: join(outside, 'secret.txt'), old_string: 'top', new_string: 'no' });
    expect(errorOf(result)).toMatch(/^path outside the workspace/);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });
});

describe('links', () => {
  it('refuses a hard-linked file for Read, Write and Edit, and leaves its other name alone', async () => {
    linkSync(join(outside, 'secret.txt'), join(ws, 'notes.txt'));
    expect(errorOf(await read({ file_path: 'notes.txt' }))).toMatch(/2 hard links.*outside the workspace/);
    expect(errorOf(await write({ file_path: 'notes.txt', content: 'pwned' }))).toMatch(/hard links/);
    expect(errorOf(await edit({ file_path: 'notes.txt', old_string: 'top', new_string: 'pwned' }))).toMatch(/hard links/);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('acts on the file a symlink inside the workspace leads to, and reports the path as given', async () => {
    writeFileSync(join(ws, 'src', 'real.txt'), 'old\n');
    symlinkSync(join(ws, 'src'), join(ws, 'alias'));
    const result = await write({ file_path: 'alias/real.txt', content: 'new\n' });
    expect(result.ok && result.response).toMatchObject({ type: 'update', filePath: join(ws, 'alias', 'real.txt'), originalFile: 'old\n' });
    expect(readFileSync(join(ws, 'src', 'real.txt'), 'utf8')).toBe('new\n');
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    expect(errorOf(await read({ file_path: 'pipe' }))).toMatch(/not a regular file/);
    expect(errorOf(await write({ file_path: 'pipe', content: 'x' }))).toMatch(/not a regular file/);
  });

  it('does not follow a symlink that replaced the checked file after the check', async () => {
    // What the tools open is the checked physical path; a link planted there since is refused, not followed.
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'swapped.txt'));
    await expect(openForReading(join(ws, 'swapped.txt'), 'swapped.txt')).rejects.toThrow(/symbolic link/);
    await expect(openForUpdate(join(ws, 'swapped.txt'), 'swapped.txt', true)).rejects.toThrow(/symbolic link/);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  // A parent swapped for a symlink between the workspace check and the open (a background
  // process of the model's could race the tool): the checked physical path is opened here
  // with its parent already replaced, as if the swap had just happened.
  it('does not write through a parent directory swapped for a symlink after the check', async () => {
    symlinkSync(outside, join(ws, 'gone'));
    await expect(openForUpdate(join(ws, 'gone', 'planted.txt'), 'gone/planted.txt', true)).rejects.toThrow(
      /changed after the workspace check/,
    );
    await expect(openForUpdate(join(ws, 'gone', 'new', 'deeper', 'planted.txt'), 'x', true)).rejects.toThrow(
      /changed after the workspace check/,
    );
    await expect(openForUpdate(join(ws, 'gone', 'secret.txt'), 'gone/secret.txt', false)).rejects.toThrow(
      /changed after the workspace check/,
    );
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    expect(existsSync(join(outside, 'new'))).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it.runIf(process.platform === 'linux')('does not read through a parent directory swapped for a symlink after the check', async () => {
    symlinkSync(outside, join(ws, 'gone'));
    await expect(openForReading(join(ws, 'gone', 'secret.txt'), 'gone/secret.txt')).rejects.toThrow(/changed after the workspace check/);
  });

  it('creates missing parent directories inside the workspace, each in the one made before', async () => {
    const opened = await openForUpdate(join(ws, 'a', 'b', 'c.txt'), 'a/b/c.txt', true);
    await opened?.handle.close();
    expect(opened?.created).toBe(true);
    expect(existsSync(join(ws, 'a', 'b', 'c.txt'))).toBe(true);
  });
});
