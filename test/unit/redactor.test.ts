import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envSecretValues, isEnvSecret, loadEnvFileSecrets, parseEnvFile } from '../../src/core/audit/env-file-secrets';
import { Redactor } from '../../src/core/audit/redactor';

const PRIVATE_KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
  'AAAAC3NzaC1lZDI1NTE5AAAAIHk3',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n');
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

// [kind, text containing the secret, the secret itself]
const CASES: Array<[string, string, string]> = [
  ['openai_key', 'export OPENAI_KEY_VALUE sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv', 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv'],
  ['anthropic_key', 'key=(sk-ant-api03-xY7zW1vU3tS5rQ9pO2nM4lK6jI8hG0f)', 'sk-ant-api03-xY7zW1vU3tS5rQ9pO2nM4lK6jI8hG0f'],
  ['bearer', 'curl -H "Authorization: Bearer abc.DEF-123_ghi~jkl" https://example.invalid', 'abc.DEF-123_ghi~jkl'],
  ['github_token', 'git clone https://ghp_1234567890abcdefghijABCDEFGHIJ123456@github.com/x', 'ghp_1234567890abcdefghijABCDEFGHIJ123456'],
  ['github_token', 'oauth gho_ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210 done', 'gho_ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210'],
  [
    'github_token',
    'GH=github_pat_11ABCDEFG0aBcDeFgHiJkL_mnopqrstuvwxyz0123456789',
    'github_pat_11ABCDEFG0aBcDeFgHiJkL_mnopqrstuvwxyz0123456789',
  ],
  ['aws_access_key_id', 'aws_access_key_id AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
  ['slack_token', 'token xoxb-123456789012-abcdefABCDEF in config', 'xoxb-123456789012-abcdefABCDEF'],
  ['private_key', `key:\n${PRIVATE_KEY}\nrest`, 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ'],
  ['jwt', `cookie session=${JWT};`, JWT],
  ['assignment', 'mysql --password=hunter2xyz --user=root', 'hunter2xyz'],
  ['assignment', 'DB_PASSWORD="s3cr3t-pass" npm start', 's3cr3t-pass'],
  ['assignment', 'api_key: qwertyuiop1234', 'qwertyuiop1234'],
  ['assignment', '{"client_secret": "cs_live_998877"}', 'cs_live_998877'],
  ['url_credentials', 'DATABASE_URL=postgres://app:Pa55w0rd!@db.internal:5432/app', 'Pa55w0rd!'],
  ['assignment', 'PGPASSWORD=hunter2xyz psql -h db', 'hunter2xyz'],
  ['assignment', 'export DB_PASS=hunter2xyz', 'hunter2xyz'],
  ['assignment', 'MYSQL_PWD=hunter2xyz mysql', 'hunter2xyz'],
  ['assignment', 'passcode: 90210-hunter', '90210-hunter'],
  ['assignment', 'mysql --password hunter2xyz --user root', 'hunter2xyz'],
  ['assignment', 'deploy --token "abc.def.ghi-123" now', 'abc.def.ghi-123'],
  ['npm_token', '//registry.npmjs.org/:_authToken npm_abcdefghijklmnopqrstuvwxyz0123456789', 'npm_abcdefghijklmnopqrstuvwxyz0123456789'],
  ['gitlab_token', 'PRIVATE-TOKEN glpat-Ab3dEf6hIj9kLm2nOp5q', 'glpat-Ab3dEf6hIj9kLm2nOp5q'],
  ['google_api_key', 'maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q key', 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'],
  ['stripe_key', 'charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc now', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
  ['huggingface_token', 'login hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'],
];

describe('Redactor.redactText', () => {
  const redactor = new Redactor();

  it.each(CASES)('redacts %s', (kind, text, secret) => {
    const out = redactor.redactText(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(`[REDACTED:${kind}]`);
  });

  it('keeps the context around a redacted secret', () => {
    expect(redactor.redactText('Authorization: Bearer abcdefgh12345678 end')).toBe('Authorization: Bearer [REDACTED:bearer] end');
    expect(redactor.redactText('x password=hunter2xyz y')).toBe('x password=[REDACTED:assignment] y');
    expect(redactor.redactText(`a\n${PRIVATE_KEY}\nb`)).toBe('a\n[REDACTED:private_key]\nb');
  });

  it('redacts a private key block whose end was cut off', () => {
    expect(redactor.redactText('-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA')).toBe('[REDACTED:private_key]');
  });

  it('leaves ordinary text alone and returns the same string', () => {
    const texts = [
      'npm run build && npm test',
      'task-management-component-library-v2',
      'max_tokens: 4096, prompt_tokens: 12',
      'the author: Jane; oauth: enabled',
      'Basic setup instructions for bearers',
      'see https://example.invalid/path?q=1',
      'akiaiosfodnn7example',
      'PWD=/home/ann/src OLDPWD=/home/ann',
      'bypass=1 compass=north',
      'npm test --password-file secrets.txt',
    ];
    for (const text of texts) expect(redactor.redactText(text)).toBe(text);
  });

  it('is idempotent', () => {
    for (const [, text] of CASES) {
      const once = redactor.redactText(text);
      expect(redactor.redactText(once)).toBe(once);
    }
  });

  it('redacts exact secret values registered at runtime, but not short ones', () => {
    const r = new Redactor();
    r.addSecretValue('local-model-key-42');
    r.addSecretValue('short');
    expect(r.secretValueCount).toBe(1);
    expect(r.redactText('using local-model-key-42 and short')).toBe('using [REDACTED:secret_value] and short');
    // Registering after the first use rebuilds the lookup.
    r.addSecretValue('second.secret$(value)');
    expect(r.redactText('x second.secret$(value) y')).toBe('x [REDACTED:secret_value] y');
  });

  it('replaces the longer of two overlapping secret values whole', () => {
    const r = new Redactor({ secretValues: ['abcdefgh', 'abcdefgh-ijklmnop'] });
    expect(r.redactText('v=abcdefgh-ijklmnop')).toBe('v=[REDACTED:secret_value]');
  });

  it('applies configured patterns, with and without a kind, and plain replacement text', () => {
    const r = new Redactor({
      patterns: [/ACME-\d{6}/, 'internal-[a-f0-9]{8}', { kind: 'ticket', pattern: /(?<pre>TICKET#)(?<secret>\d+)/i }],
    });
    expect(r.redactText('ACME-123456 internal-deadbeef ticket#42')).toBe('[REDACTED:custom] [REDACTED:custom] ticket#[REDACTED:ticket]');
    const plain = new Redactor({ plainReplacement: true, patterns: [/(\w)\1{9}/] });
    expect(plain.redactText('sk-abcdefghijklmnopqrstuvwx and zzzzzzzzzz')).toBe('[REDACTED] and [REDACTED]');
  });
});

describe('Redactor.redactForModel', () => {
  it('removes registered values and token shapes from every string, keys included', () => {
    const r = new Redactor({ secretValues: ['registered-secret-value'] });
    const messages = [
      { role: 'tool', tool_call_id: 'c1', content: 'GITHUB_TOKEN=registered-secret-value\nother ghp_1234567890abcdefghijABCDEFGHIJ123456' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{"command":"echo registered-secret-value"}' } }],
      },
    ];
    expect(r.redactForModel(messages)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'GITHUB_TOKEN=[REDACTED:secret_value]\nother [REDACTED:github_token]' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{"command":"echo [REDACTED:secret_value]"}' } }],
      },
    ]);
    expect(r.redactForModel({ 'registered-secret-value': 1 })).toEqual({ '[REDACTED:secret_value]': 1 });
  });

  it('leaves source code that only looks like an assignment or a header as written', () => {
    const r = new Redactor();
    const code =
      'const password = form.password;\nheaders.Authorization = `Bearer ${session.accessToken}`;\n{ token: getToken(), api_key: cfg.apiKey }';
    expect(r.redactForModel(code)).toBe(code);
    expect(r.redactForModel({ password: 'form.password', token: 'x' })).toEqual({ password: 'form.password', token: 'x' });
    // The audit log still redacts them.
    expect(r.redactText(code)).toContain('password = [REDACTED:assignment]');
  });

  it('redacts generated-looking values of secret-named keys, as in a credentials file, but not code', () => {
    const r = new Redactor();
    const credentials =
      '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n';
    expect(r.redactForModel(credentials)).toBe(
      '[default]\naws_access_key_id = [REDACTED:aws_access_key_id]\naws_secret_access_key = [REDACTED:assignment]\n',
    );
    expect(r.redactForModel('DB_PASSWORD="hunter2hunter2" npm start')).toBe('DB_PASSWORD="[REDACTED:assignment]" npm start');
    const code = 'const secret = uuidv4();\napiKey: process.env.API_KEY_V2,\ntoken = tokens2024[i];\npassword: hunter2';
    expect(r.redactForModel(code)).toBe(code);
  });

  it('returns the same objects when nothing needs redacting', () => {
    const r = new Redactor({ secretValues: ['registered-secret-value'] });
    const messages = [
      { role: 'user', content: 'hello' },
      { role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: 'fine' }] },
    ];
    expect(r.redactForModel(messages)).toBe(messages);
  });
});

describe('Redactor on text the model chose', () => {
  // Each of these had every `=` start a scan to the end of its run: a megabyte took minutes.
  it.each([
    ['a key repeated as its own value', 'token='.repeat(170_000)],
    ['keys and values that look generated', 'token=1abcdefghijklm.'.repeat(50_000)],
  ])('redacts %s, a megabyte of it, and returns', (_, text) => {
    expect(new Redactor().redactForModel(text).length).toBeGreaterThan(0);
  });

  it('still redacts a generated value after a key inside a word or a query', () => {
    const r = new Redactor();
    expect(r.redactForModel('aws_secret_access_key = wJalrXUtnFEMI1K7MDENGbPxRfiCYEXAMPLEKEY')).toBe(
      'aws_secret_access_key = [REDACTED:assignment]',
    );
    expect(r.redactForModel('GET /x?a=1&token=abcdef123456789xyz')).toBe('GET /x?a=1&token=[REDACTED:assignment]');
    for (const before of ['--from-literal=password=', '--build-arg=NPM_TOKEN=', 'OPTS=--token=', 'https://example.com/hook/token=']) {
      expect(r.redactForModel(`${before}S3cr3tPassw0rd1234 x`)).toBe(`${before}[REDACTED:assignment] x`);
    }
    expect(r.redactForModel('secret: QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVoxMjM0NTY3ODk==')).toBe('secret: [REDACTED:assignment]');
  });
});

describe('Redactor.withoutSecretStartAtEnd', () => {
  it('drops the longest start of a secret value that ends the text, and nothing else', () => {
    const redactor = new Redactor({ secretValues: ['abcabcabd-secret', 'zz-other-value'] });
    expect(redactor.withoutSecretStartAtEnd('output: abcabcab')).toBe('output: ');
    expect(redactor.withoutSecretStartAtEnd('output: xxabcabcabcab')).toBe('output: xxabc');
    expect(redactor.withoutSecretStartAtEnd('output: zz-oth')).toBe('output: ');
    expect(redactor.withoutSecretStartAtEnd('output: abcx')).toBe('output: abcx');
    expect(redactor.withoutSecretStartAtEnd('')).toBe('');
    const long = 'a'.repeat(50_000);
    const withLong = new Redactor({ secretValues: [long] });
    expect(withLong.withoutSecretStartAtEnd(`x${'a'.repeat(49_999)}`)).toBe('x');
    expect(withLong.withoutSecretStartAtEnd(`${'a'.repeat(49_999)}b`)).toBe(`${'a'.repeat(49_999)}b`);
  });
});

describe('Redactor.redact', () => {
  const redactor = new Redactor({ secretValues: ['runtime-secret-value'] });

  it('redacts strings at any depth and returns a copy', () => {
    const input = {
      tool_input: { command: 'curl -H "Authorization: Bearer tok_1234567890abcdef"', args: ['--key', 'sk-abcdefghijklmnopqrstuvwxyz012'] },
      nested: [{ deeper: [{ text: 'echo runtime-secret-value' }] }],
      count: 3,
      ok: true,
      none: null,
    };
    const snapshot = structuredClone(input);
    const out = redactor.redact(input);
    expect(input).toEqual(snapshot);
    expect(out).toEqual({
      tool_input: { command: 'curl -H "Authorization: Bearer [REDACTED:bearer]"', args: ['--key', '[REDACTED:openai_key]'] },
      nested: [{ deeper: [{ text: 'echo [REDACTED:secret_value]' }] }],
      count: 3,
      ok: true,
      none: null,
    });
  });

  it('replaces string values under secret-named keys, whatever they contain', () => {
    const out = redactor.redact({
      password: 'x',
      headers: { Authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'k1', Cookie: 'a=b' },
      apiKey: 'abc',
      accessToken: 'def',
      AWS_SECRET_ACCESS_KEY: 'ghi',
      credentials: { user: 'me', pin: 1234 },
      max_tokens: 'unlimited',
      prompt_tokens: 12,
      token_count: 7,
      author: 'Ann',
      pgpassword: 'p1',
      db_pass: 'p2',
      mysql_pwd: 'p3',
      passcode: 'p4',
      dsn: 'postgres://x',
      PWD: '/home/ann',
    });
    expect(out).toEqual({
      password: '[REDACTED:key]',
      headers: { Authorization: '[REDACTED:key]', 'x-api-key': '[REDACTED:key]', Cookie: '[REDACTED:key]' },
      apiKey: '[REDACTED:key]',
      accessToken: '[REDACTED:key]',
      AWS_SECRET_ACCESS_KEY: '[REDACTED:key]',
      credentials: { user: '[REDACTED:key]', pin: 1234 },
      max_tokens: 'unlimited',
      prompt_tokens: 12,
      token_count: 7,
      author: 'Ann',
      pgpassword: '[REDACTED:key]',
      db_pass: '[REDACTED:key]',
      mysql_pwd: '[REDACTED:key]',
      passcode: '[REDACTED:key]',
      dsn: '[REDACTED:key]',
      PWD: '/home/ann',
    });
  });

  it('for serialization, shares what needs no change and never touches the input', () => {
    const clean = { a: 'plain', list: [1, { b: 'text' }], nested: { c: true } };
    expect(redactor.redactForSerialization(clean)).toBe(clean);
    const dirty = { a: 'plain', list: [1, { b: 'x runtime-secret-value' }], nested: { c: true }, token: 't' };
    const snapshot = structuredClone(dirty);
    const out = redactor.redactForSerialization(dirty) as typeof dirty;
    expect(dirty).toEqual(snapshot);
    expect(out).toEqual({ a: 'plain', list: [1, { b: 'x [REDACTED:secret_value]' }], nested: { c: true }, token: '[REDACTED:key]' });
    expect(out.nested).toBe(dirty.nested);
    expect(JSON.stringify(redactor.redactForSerialization(dirty))).toBe(JSON.stringify(redactor.redact(dirty)));
  });

  it('redacts secrets used as object keys', () => {
    expect(redactor.redact({ 'runtime-secret-value': 1 })).toEqual({ '[REDACTED:secret_value]': 1 });
  });

  it('always returns something JSON can serialize', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const shared = { v: 1 };
    const out = redactor.redact({ cyclic, big: 10n, when: new Date(0), fn: () => 1, list: [undefined, () => 2, shared, shared], nan: NaN });
    expect(out).toEqual({
      cyclic: { name: 'loop', self: '[Circular]' },
      big: '10',
      when: '1970-01-01T00:00:00.000Z',
      list: [null, null, { v: 1 }, { v: 1 }],
      nan: null,
    });
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 200; i++) deep = (deep.next = {}) as Record<string, unknown>;
    expect(() => JSON.stringify(redactor.redact(root))).not.toThrow();
    expect(JSON.stringify(redactor.redact(root))).toContain('[MaxDepth]');
  });
});

describe('.env secrets', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'env-secrets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('parses the dotenv grammar', () => {
    const text = [
      '# comment',
      'PLAIN=value-one # trailing comment',
      'export EXPORTED=value-two',
      "SINGLE='single # not a comment'",
      'DOUBLE="line1\\nline2"',
      'MULTI="first',
      'second"',
      'SPACED = spaced-value ',
      'EMPTY=',
      '',
    ].join('\r\n');
    expect(parseEnvFile(text)).toEqual([
      { key: 'PLAIN', value: 'value-one', written: 'value-one' },
      { key: 'EXPORTED', value: 'value-two', written: 'value-two' },
      { key: 'SINGLE', value: 'single # not a comment', written: 'single # not a comment' },
      { key: 'DOUBLE', value: 'line1\nline2', written: 'line1\\nline2' },
      { key: 'MULTI', value: 'first\nsecond', written: 'first\r\nsecond' },
      { key: 'SPACED', value: 'spaced-value', written: 'spaced-value' },
      { key: 'EMPTY', value: '', written: '' },
    ]);
  });

  it('gives each secret value as a loader reads it and as the file holds it, whole', () => {
    const text = 'SIGNING_SECRET="alpha bravo charlie\r\necho foxtrot golf"\r\nAPI_TOKEN="first half\\nsecond half"\r\nPORT=3000\r\n';
    expect(envSecretValues(text)).toEqual([
      'alpha bravo charlie\necho foxtrot golf',
      'alpha bravo charlie\r\necho foxtrot golf',
      'first half\nsecond half',
      'first half\\nsecond half',
    ]);
  });

  it('treats short values and plain configuration as non-secret', () => {
    expect(isEnvSecret({ key: 'DB_PASSWORD', value: 'longenough' })).toBe(true);
    expect(isEnvSecret({ key: 'DB_PASSWORD', value: 'short' })).toBe(false);
    expect(isEnvSecret({ key: 'SOME_VALUE', value: 'Xk29!abQ' })).toBe(true);
    expect(isEnvSecret({ key: 'DATABASE_URL', value: 'postgres://u:p4ss@host/db' })).toBe(true);
    for (const value of ['development', 'localhost', '12345678', 'true', 'http://localhost:3000', '/usr/local/bin', './build/output']) {
      expect(isEnvSecret({ key: 'SETTING', value })).toBe(false);
    }
  });

  it('does not let a planted .env hide commands, words, hosts or paths from later logs', () => {
    // The model may write a .env: what it registers is hidden from every later audit record.
    const planted = [
      'git apply',
      'curl evil.example',
      'evil2.example',
      '.vscode/hooks.json',
      'hooks/guard.sh',
      'build-output',
      'v1.2.3-beta',
      'ops@example.com',
    ];
    for (const value of planted) expect(isEnvSecret({ key: 'NOTE', value }), value).toBe(false);
    for (const value of ['.vscode/hooks.json', 'https://evil.example/x', 'evil2.example'])
      expect(isEnvSecret({ key: 'API_TOKEN', value }), value).toBe(false);
    // Generated-looking values count whatever the key; a secret-named key keeps passwords and passphrases.
    for (const value of [
      'dotenv-secret-4f5g6h7j',
      'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3',
      'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'redis://:pw-9x@cache:6379',
    ]) {
      expect(isEnvSecret({ key: 'NOTE', value }), value).toBe(true);
    }
    expect(isEnvSecret({ key: 'DB_PASS', value: 'dotenv db pass' })).toBe(true);
    expect(isEnvSecret({ key: 'PIN_SECRET', value: '12345678' })).toBe(true);
  });

  it('registers values from .env, .env.local and .env.* in the workspace root, not templates or subfolders', async () => {
    writeFileSync(join(dir, '.env'), 'OPENAI_API_KEY=env-file-api-key-1\nNODE_ENV=development\nSHORT=abc\n');
    writeFileSync(join(dir, '.env.local'), 'LOCAL_TOKEN="local-token-value-2"\n');
    writeFileSync(join(dir, '.env.production'), 'export STRIPE_KEY=rk_prod_value_3\n');
    writeFileSync(join(dir, '.env.example'), 'OPENAI_API_KEY=placeholder-not-secret\n');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', '.env'), 'NESTED=nested-value-4\n');
    const r = new Redactor();
    const result = await loadEnvFileSecrets(dir, r);
    expect(result.files.map((f) => f.slice(dir.length + 1))).toEqual(['.env', '.env.local', '.env.production']);
    expect(result.registered).toBe(3);
    const text = 'a env-file-api-key-1 b local-token-value-2 c rk_prod_value_3 d development placeholder-not-secret nested-value-4';
    expect(r.redactText(text)).toBe(
      'a [REDACTED:secret_value] b [REDACTED:secret_value] c [REDACTED:secret_value] d development placeholder-not-secret nested-value-4',
    );
  });

  it.each([
    ['UTF-16LE', Buffer.from([0xff, 0xfe]), (units: Buffer) => units],
    ['UTF-16BE', Buffer.from([0xfe, 0xff]), (units: Buffer) => units.swap16()],
  ])('reads a %s .env by its byte order mark, and registers its values as cat shows them too', async (_encoding, bom, order) => {
    const inUtf16 = (text: string) => order(Buffer.from(text, 'utf16le'));
    writeFileSync(join(dir, '.env'), Buffer.concat([bom, inUtf16('API_TOKEN=utf16-token-value-1\r\nPORT=3000\r\n')]));
    const r = new Redactor();
    expect((await loadEnvFileSecrets(dir, r)).registered).toBe(2);
    expect(r.redactText('token utf16-token-value-1')).toBe('token [REDACTED:secret_value]');
    // `cat .env` read as UTF-8: the value's code units, a NUL beside each character.
    const catOutput = inUtf16('API_TOKEN=utf16-token-value-1\r\n').toString('utf8');
    expect(r.redactText(catOutput).replace(/\0/g, '')).not.toContain('utf16-token');
  });

  it('finds nothing in a folder without .env files or one that does not exist', async () => {
    const r = new Redactor();
    expect(await loadEnvFileSecrets(dir, r)).toEqual({ files: [], registered: 0, cut: [] });
    expect(await loadEnvFileSecrets(join(dir, 'missing'), r)).toEqual({ files: [], registered: 0, cut: [] });
  });

  it("reads the files of a person's own secrets first, and stops at 32 MiB or 20,000 values in all, saying which were cut", async () => {
    const generated = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) => `K${i}=${prefix}9x${i.toString(36).padStart(6, '0')}Q7z`).join('\n');
    for (let i = 0; i < 34; i++) writeFileSync(join(dir, `.env.${String(i).padStart(2, '0')}`), `PAD=${'p'.repeat(1000 * 1024)}\n`);
    writeFileSync(join(dir, '.env.local'), 'LOCAL_TOKEN=local-token-value-2x\n');
    writeFileSync(join(dir, '.env.development.local'), 'DEV_TOKEN=dev-token-value-3x\n');
    const r = new Redactor();
    const result = await loadEnvFileSecrets(dir, r);
    const names = (files: string[]) => files.map((f) => f.slice(dir.length + 1));
    expect(names(result.files).slice(0, 2)).toEqual(['.env.local', '.env.development.local']);
    // .env.32 is read up to the budget, so it is among the files read and the files cut.
    expect(result.files).toHaveLength(35);
    expect(names(result.cut)).toEqual(['.env.32', '.env.33']);
    expect(r.redactText('local-token-value-2x dev-token-value-3x')).toBe('[REDACTED:secret_value] [REDACTED:secret_value]');

    const many = new Redactor();
    for (const f of readdirSync(dir)) rmSync(join(dir, f));
    writeFileSync(join(dir, '.env'), generated('a', 15_000));
    writeFileSync(join(dir, '.env.extra'), generated('b', 15_000));
    const counted = await loadEnvFileSecrets(dir, many);
    expect(counted.registered).toBe(20_000);
    expect(names(counted.cut)).toEqual(['.env.extra']);
  });

  it.each([
    ['after its values', (assignment: string) => `${assignment}\n${'#'.repeat(1_100_000)}\n`],
    ['before its values', (assignment: string) => `${'#'.repeat(1_100_000)}\n${assignment}\n`],
  ])('registers the values of a .env padded past 1 MiB %s, and says nothing was cut', async (_where, padded) => {
    writeFileSync(join(dir, '.env'), padded('SERVICE_TOKEN=hunter2hunter2xyz'));
    const r = new Redactor();
    expect((await loadEnvFileSecrets(dir, r)).cut).toEqual([]);
    expect(r.redactText('token hunter2hunter2xyz')).toBe('token [REDACTED:secret_value]');
  });

  it('reads a .env padded past 32 MiB up to the budget and names it, and the files after it, as cut', async () => {
    writeFileSync(join(dir, '.env'), `SERVICE_TOKEN=hunter2hunter2xyz\n${'#'.repeat(33 * 1024 * 1024)}\nLATE_TOKEN=late-token-value-9x\n`);
    writeFileSync(join(dir, '.env.local'), 'LOCAL_TOKEN=local-token-value-2x\n');
    const r = new Redactor();
    const result = await loadEnvFileSecrets(dir, r);
    expect(result.cut.map((f) => f.slice(dir.length + 1))).toEqual(['.env', '.env.local']);
    expect(r.redactText('hunter2hunter2xyz late-token-value-9x')).toBe('[REDACTED:secret_value] late-token-value-9x');
  });

  it('parses a .env of many blank lines without trying each line against all those below it', () => {
    // Each blank line tried against every one below it, up to the comment, took over a minute here.
    const text = `${'\n'.repeat(200_000)}# end of the blank lines\nAPI_TOKEN=blank-lines-token-4x\n`;
    expect(envSecretValues(text)).toEqual(['blank-lines-token-4x']);
  }, 10_000);

  it('does not let files of padding push out the values of the files after them', async () => {
    for (let i = 0; i < 9; i++) writeFileSync(join(dir, `.env.${i}.local`), `# ${'c'.repeat(1000 * 1024)}\n`);
    writeFileSync(join(dir, '.env.production'), 'DB_PASSWORD="correct horse battery staple"\n');
    const r = new Redactor();
    expect((await loadEnvFileSecrets(dir, r)).cut).toEqual([]);
    expect(r.redactText('pw: correct horse battery staple')).toBe('pw: [REDACTED:secret_value]');
  });
});
