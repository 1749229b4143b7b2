import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonResult, toolMessageSent, useTestbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';

// A .env value is loaded decoded (CRLF made LF, `\n` escapes made line breaks, UTF-16 read as
// text), but Read and `cat` show the file as written: each form must be redacted. The LF form
// is in redact-before-cut.test.ts.
const newBed = useTestbed();
const SECRET = 'Zq8vN3kLpW2xR7tY5mB1cD4Xe';

describe('a .env value in the form the file holds it', () => {
  it.each([
    ['spanning two CRLF lines', 'SIGNING_SECRET="alpha bravo charlie delta\r\necho foxtrot golf hotel"\r\nPORT=3000\r\n'],
    ['with a \\n escape in double quotes', 'SIGNING_SECRET="alpha bravo charlie delta\\necho foxtrot golf hotel"\nPORT=3000\n'],
  ])(
    'is redacted from Read and cat when %s',
    async (_form, env) => {
      const bed = await newBed({ '.env': env }, [
        toolCalls([{ id: 'read', name: 'Read', arguments: { file_path: '.env' } }]),
        toolCalls([{ id: 'cat', name: 'Bash', arguments: { command: 'cat .env' } }]),
        text('done'),
      ]);
      const r = await bed.run(['--allowed-tools', 'Read,Bash', '--output-format', 'json', 'go'], { timeoutMs: 60_000 });
      expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed']);
      expect(toolMessageSent(bed.server, 'read')).toBe('     1\tSIGNING_SECRET="[REDACTED:secret_value]"\n     2\tPORT=3000');
      expect(toolMessageSent(bed.server, 'cat')).toContain('SIGNING_SECRET="[REDACTED:secret_value]"');
      expect(JSON.stringify(bed.server.requests.map((q) => q.body))).not.toContain('foxtrot');
    },
    90_000,
  );

  it.each([
    ['UTF-16LE', Buffer.from([0xff, 0xfe]), 'utf16le'],
    ['UTF-16BE', Buffer.from([0xfe, 0xff]), 'utf16be'],
  ] as const)(
    'is redacted from cat when the file is %s with a byte order mark, as Windows PowerShell 5 writes it',
    async (_form, bom, encoding) => {
      const bed = await newBed({}, [toolCalls([{ id: 'cat', name: 'Bash', arguments: { command: 'cat .env' } }]), text('done')]);
      const units = Buffer.from(`API_TOKEN=${SECRET}\r\nPORT=3000\r\n`, 'utf16le');
      writeFileSync(path.join(bed.workspace.dir, '.env'), Buffer.concat([bom, encoding === 'utf16be' ? units.swap16() : units]));
      const r = await bed.run(['--allowed-tools', 'Bash(cat *)', '--output-format', 'json', 'go'], { timeoutMs: 60_000 });
      expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
      const shown = toolMessageSent(bed.server, 'cat') ?? '';
      expect(shown).toContain('[REDACTED:secret_value]');
      // Read as UTF-8, the file's text has a NUL beside each character.
      expect(shown.replace(/\0/g, '')).not.toContain(SECRET.slice(0, 8));
    },
    90_000,
  );
});

describe("the person's .env padded past 1 MiB, as the model can pad it in one session for the next", () => {
  it.each([
    ['after the value', `API_TOKEN=${SECRET}\n${'#'.repeat(1_100_000)}\n`, 'head -n 1 .env | cut -d= -f2'],
    ['before the value', `${'#'.repeat(1_100_000)}\nAPI_TOKEN=${SECRET}\n`, 'tail -n 1 .env | cut -d= -f2'],
  ])(
    'still has its value redacted when padded %s',
    async (_where, env, command) => {
      const bed = await newBed({ '.env': env }, [toolCalls([{ id: 'read', name: 'Bash', arguments: { command } }]), text('done')]);
      const r = await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { timeoutMs: 60_000 });
      expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
      expect(toolMessageSent(bed.server, 'read')).toContain('[REDACTED:secret_value]');
      expect(JSON.stringify(bed.server.requests.map((q) => q.body))).not.toContain(SECRET);
    },
    90_000,
  );
});
