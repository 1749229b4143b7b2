import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  jsonResult,
  nodeHook,
  startTestbed,
  toolMessageSent,
  useCliBundle,
  type CliResult,
  type Testbed,
} from '../fixtures/cli/cli-harness';
import { text, toolCalls, type ScriptedReply } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// The model is the party secrets must not reach. It tries every way a real model could: the
// environment, its parent's /proc environ, a file, a hook's output. Nothing it is sent, nor the
// transcript, the audit log or the json / stream-json output, may hold a secret value.

const SECRET_ENV = {
  HOOKPILOT_API_KEY: 'hp-api-key-7c1e2d9f5a',
  GITHUB_TOKEN: 'gh-token-0a9b8c7d6e',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-1f2e3d4c5b',
  PGPASSWORD: 'pg-pass-9z8y7x6w',
  DATABASE_URL: 'postgres://app:db-pass-5t4r3e2w@db.internal/app',
  SENTRY_DSN: 'https://sentry-key-3q2w1e@o1.ingest.example/42',
  MY_PRIVATE_KEY: 'private-key-material-8u7y6t',
  NPM_AUTH_TOKEN: 'npm-auth-2k3j4h5g',
};
const DOTENV_SECRET = 'dotenv-secret-4f5g6h7j';
const GITHUB_SHAPED = 'ghp_1234567890abcdefghijABCDEFGHIJ123456';
// Every value, and the password inside DATABASE_URL on its own.
const SECRETS = [...Object.values(SECRET_ENV), 'db-pass-5t4r3e2w', DOTENV_SECRET, GITHUB_SHAPED];

const contextHook = nodeHook(`
fs.appendFileSync('hook-env.txt', 'GITHUB_TOKEN ' + (process.env.GITHUB_TOKEN === ${JSON.stringify(SECRET_ENV.GITHUB_TOKEN)} ? 'set' : 'unset') + '\\n');
process.stdout.write(JSON.stringify({
  systemMessage: 'pg is ' + process.env.PGPASSWORD,
  hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'the token is ' + process.env.GITHUB_TOKEN },
}));`);
const failingHook = nodeHook(
  `process.stderr.write('cannot reach the db at ' + process.env.DATABASE_URL + ' as ' + process.env.AWS_SECRET_ACCESS_KEY); process.exit(1);`,
);
const greetingHook = nodeHook(`process.stdout.write(JSON.stringify({ systemMessage: 'pg is ' + process.env.PGPASSWORD }));`);
const blockingHook = nodeHook(`process.stderr.write('no globbing with ' + process.env.NPM_AUTH_TOKEN); process.exit(2);`);

const workspace = {
  'notes.txt': `deploy with ${SECRET_ENV.AWS_SECRET_ACCESS_KEY} and ${GITHUB_SHAPED}\n`,
  '.env': `STRIPE_SECRET=${DOTENV_SECRET}\n`,
  'hooks/context.js': contextHook,
  'hooks/block.js': blockingHook,
  'hooks/greeting.js': greetingHook,
  'hooks/fail.js': failingHook,
  '.vscode/hooks.json': hooksJson({
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/greeting.js' }] }],
    PostToolUse: [
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/context.js' }] },
      { matcher: 'Read', hooks: [{ type: 'command', command: 'node hooks/fail.js' }] },
    ],
    PreToolUse: [{ matcher: 'Glob', hooks: [{ type: 'command', command: 'node hooks/block.js' }] }],
  }),
};

/** The environ of the shell's parent and of its parent: the host, whether the spawner helper stands between them or not. */
const ANCESTORS_ENVIRON = `p=$PPID; for i in 1 2; do tr '\\0' '\\n' </proc/$p/environ; echo; p=$(cut -d' ' -f4 /proc/$p/stat); done`;
const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
/** The attempts, one tool round each, then a final answer. */
const attempts = (): ScriptedReply[] => [
  bash('env', 'env'),
  bash('parent', ANCESTORS_ENVIRON),
  bash('dotenv', 'cat .env; echo "db=$DATABASE_URL gh=$GITHUB_TOKEN"'),
  toolCalls([{ id: 'read', name: 'Read', arguments: { file_path: 'notes.txt' } }]),
  toolCalls([{ id: 'glob', name: 'Glob', arguments: { pattern: '**/*' } }]),
  text('Done.'),
];

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

function storageFiles(home: string, sub: 'audit' | 'transcripts'): string[] {
  const projects = path.join(home, '.hookpilot', 'projects');
  return readdirSync(projects).flatMap((p) => readdirSync(path.join(projects, p, sub)).map((f) => path.join(projects, p, sub, f)));
}

function expectNoSecret(where: string, content: string): void {
  for (const secret of SECRETS) expect(content.includes(secret), `${where} holds ${secret}`).toBe(false);
}

async function runAttempts(format: 'text' | 'json' | 'stream-json', extraArgs: string[] = []): Promise<CliResult> {
  bed = await startTestbed(bundle.bundle, workspace, attempts());
  const r = await bed.run(['find the secrets', '--output-format', format, '--allowed-tools', 'Bash,Read,Glob', ...extraArgs], {
    env: SECRET_ENV,
  });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

function expectSealed(b: Testbed, r: CliResult): void {
  expectNoSecret('the requests to the model', JSON.stringify(b.server.requests.map((req) => req.body)));
  for (const file of storageFiles(b.home, 'transcripts')) expectNoSecret(`transcript ${file}`, readFileSync(file, 'utf8'));
  for (const file of storageFiles(b.home, 'audit')) expectNoSecret(`audit log ${file}`, readFileSync(file, 'utf8'));
  expectNoSecret('stdout', r.stdout);
  expectNoSecret('stderr', r.stderr);
}

describe('secrets never reach the model', () => {
  it('json: env, the parent process environ, a .env, a file and hook output are all redacted everywhere', async () => {
    const r = await runAttempts('json');
    const b = bed!;
    expectSealed(b, r);

    // The attempts really ran and met the secrets: what came back carries the redaction marks.
    const env = toolMessageSent(b.server, 'env') ?? '';
    expect(env).toMatch(/^PATH=/m);
    for (const name of Object.keys(SECRET_ENV)) expect(env).not.toMatch(new RegExp(`^${name}=`, 'm'));
    const parent = toolMessageSent(b.server, 'parent') ?? '';
    expect(parent).toContain('HOOKPILOT_API_KEY=[REDACTED:secret_value]');
    expect(parent).toContain('GITHUB_TOKEN=[REDACTED:secret_value]');
    expect(parent).toContain('PGPASSWORD=[REDACTED:secret_value]');
    expect(parent).toMatch(/DATABASE_URL=postgres:\/\/app:\[REDACTED:\w+\]@db\.internal\/app/);
    expect(toolMessageSent(b.server, 'dotenv')).toContain('STRIPE_SECRET=[REDACTED:secret_value]');
    expect(toolMessageSent(b.server, 'read')).toMatch(/deploy with \[REDACTED:secret_value\] and \[REDACTED:github_token\]/);
    expect(toolMessageSent(b.server, 'glob')).toContain('no globbing with [REDACTED:secret_value]');
    expect(JSON.stringify(b.server.requests.map((req) => req.body.messages))).toContain('the token is [REDACTED:secret_value]');

    // The hook is the user's code: it got GITHUB_TOKEN, as Claude Code gives it.
    expect(readFileSync(b.workspace.file('hook-env.txt'), 'utf8')).toMatch(/^GITHUB_TOKEN set$/m);
    expect(jsonResult(r).tool_calls.map((c) => c.id)).toEqual(['env', 'parent', 'dotenv', 'read', 'glob']);
  });

  it('stream-json: raw hook stdout and stderr, tool results and the result line are redacted', async () => {
    const r = await runAttempts('stream-json');
    expectSealed(bed!, r);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const responses = lines.filter((l) => l.subtype === 'hook_response');
    expect(responses.some((l) => String(l.stdout).includes('the token is [REDACTED:secret_value]'))).toBe(true);
    expect(responses.some((l) => l.stderr === 'no globbing with [REDACTED:secret_value]')).toBe(true);
    expect(lines[lines.length - 1]).toMatchObject({ type: 'result', subtype: 'success' });
  });

  it('text: the tool lines and the notices, which quote hook reasons and messages, are redacted', async () => {
    const r = await runAttempts('text');
    expectSealed(bed!, r);
    expect(r.stdout).toMatch(/^\[Glob\] .* -> blocked by hook "block\.js" \(PreToolUse\): no globbing with \[REDACTED:secret_value\]/m);
    expect(r.stderr).toContain('pg is [REDACTED:secret_value]');
  });

  it.each([
    ['SSHPASS', 'sshpass-secret-value'],
    ['DB_PASS_PROD', 'db-pass-prod-value'],
    ['OPENAI_API_KEY_BACKUP', 'backup-openai-key-value'],
    ['STRIPE_KEY_LIVE', 'stripe-live-key-value'],
  ])('the credential %s is kept from the Bash tool and redacted from what the model reads', async (name, value) => {
    bed = await startTestbed(bundle.bundle, {}, [
      bash('peek', `echo "v=\${${name}:-unset}"`),
      bash('parent', `${ANCESTORS_ENVIRON} | grep ^${name}=`),
      text('Done.'),
    ]);
    const r = await bed.run(['look', '--output-format', 'json', '--allowed-tools', 'Bash'], { env: { [name]: value } });
    expect(r.code, r.stderr).toBe(0);
    expect(toolMessageSent(bed.server, 'peek')).toContain('v=unset');
    expect(toolMessageSent(bed.server, 'parent')).toContain(`${name}=[REDACTED:secret_value]`);
    expect(JSON.stringify(bed.server.requests.map((req) => req.body))).not.toContain(value);
  });

  it.each([
    ['SHLVL unset', () => ({ SHLVL: '' })],
    ['SHLVL 0', () => ({ SHLVL: '0' })],
    // What a non-interactive bash reads whatever its options.
    ['BASH_ENV naming it', (home: string) => ({ SHLVL: '1', BASH_ENV: path.join(home, '.bashrc') })],
  ])("the Bash tool's shell does not read the home folder's .bashrc, which exports credentials (%s)", async (_shown, envOf) => {
    bed = await startTestbed(bundle.bundle, {}, [bash('rc', 'echo "k=$ACME_DEPLOY_KEY"'), text('Done.')]);
    // Read by `bash -c` at SHLVL 0 with a socket as stdin, as for an editor started from the desktop.
    writeFileSync(path.join(bed.home, '.bashrc'), 'export ACME_DEPLOY_KEY=bashrc-key-6h5g4f\n');
    const r = await bed.run(['deploy', '--allowed-tools', 'Bash'], { env: envOf(bed.home) });
    expect(r.code, r.stderr).toBe(0);
    expect(toolMessageSent(bed.server, 'rc')).toBe('k=');
  });

  it('--pass-env GITHUB_TOKEN lets the Bash tool use it, while the model still sees it redacted', async () => {
    bed = await startTestbed(bundle.bundle, {}, [bash('gh', 'echo "gh=$GITHUB_TOKEN npm=$NPM_AUTH_TOKEN" | tee seen.txt'), text('Done.')]);
    const r = await bed.run(['use gh', '--output-format', 'json', '--allowed-tools', 'Bash', '--pass-env', 'GITHUB_TOKEN'], {
      env: SECRET_ENV,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(bed.workspace.file('seen.txt'), 'utf8')).toBe(`gh=${SECRET_ENV.GITHUB_TOKEN} npm=\n`);
    expect(toolMessageSent(bed.server, 'gh')).toBe('gh=[REDACTED:secret_value] npm=');
    expectSealed(bed, r);
  });

  it('hookpilot.tools.bash.passEnv counts from the user settings only, never from the workspace settings', async () => {
    const settings = { '.vscode/settings.json': JSON.stringify({ 'hookpilot.tools.bash.passEnv': ['NPM_AUTH_TOKEN'] }) };
    bed = await startTestbed(bundle.bundle, settings, [
      bash('gh', 'echo "gh=$GITHUB_TOKEN npm=$NPM_AUTH_TOKEN" > seen.txt'),
      text('Done.'),
    ]);
    writeFileSync(path.join(bed.home, 'user-settings.json'), JSON.stringify({ 'hookpilot.tools.bash.passEnv': ['GITHUB_TOKEN'] }));
    const r = await bed.run(['use gh', '--output-format', 'json', '--allowed-tools', 'Bash'], { env: SECRET_ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(bed.workspace.file('seen.txt'), 'utf8')).toBe(`gh=${SECRET_ENV.GITHUB_TOKEN} npm=\n`);
    expectSealed(bed, r);
  });

  it('a user passEnv setting that is not a list of names is ignored with a warning', async () => {
    bed = await startTestbed(bundle.bundle, {}, [bash('gh', 'echo "gh=$GITHUB_TOKEN" > seen.txt'), text('Done.')]);
    writeFileSync(path.join(bed.home, 'user-settings.json'), JSON.stringify({ 'hookpilot.tools.bash.passEnv': 'GITHUB_TOKEN' }));
    const r = await bed.run(['use gh', '--allowed-tools', 'Bash'], { env: SECRET_ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: .*user-settings\.json: hookpilot\.tools\.bash\.passEnv must be a list of variable names; it is ignored/,
    );
    expect(readFileSync(bed.workspace.file('seen.txt'), 'utf8')).toBe('gh=\n');
  });

  it('--pass-env refuses what is not a variable name, without echoing a value given with it', async () => {
    bed = await startTestbed(bundle.bundle, {}, []);
    const r = await bed.run(['x', '--pass-env', 'GITHUB_TOKEN=abc']);
    expect(r.code).toBe(2);
    // Stderr goes through the redactor: a token pasted on the command line is not printed back.
    expect(r.stderr).toMatch(/--pass-env.*"GITHUB_TOKEN=\[REDACTED:assignment\]" is not an environment variable name/);
    expect(bed.server.requests).toEqual([]);
  });
});
