import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENV_FILE_EVALUATION_TIMEOUT_MS, MAX_PRELUDE_BYTES, SessionEnvFile } from '../../src/core/agent/session-env-file';
import { resolveShell } from '../../src/core/agent/tools/shell-environment';
import { runProcess } from '../../src/core/process/run-process';

/** Where `name` is on this machine's PATH. */
const resolveCommand = (name: string) => execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();

let dir: string;
let registered: string[];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'session-env-file-'));
  registered = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const envFile = () =>
  new SessionEnvFile({ addSecretValue: (value) => registered.push(value) }, { env: { PATH: process.env.PATH, HOME: dir }, cwd: dir });
/** A SessionStart dispatch whose hook appends `text` to CLAUDE_ENV_FILE. */
const hookWriting = (text: string) => async (env: Readonly<Record<string, string>>) => appendFileSync(env.CLAUDE_ENV_FILE, text);

describe('SessionEnvFile', () => {
  it('registers the secret-named values the file exports in any shell form, and keeps its text as the prelude, then pins them', async () => {
    const text =
      'declare -x ACME_API_TOKEN="first-secret-value"\nexport NODE_ENV=test DEPLOY_KEY=second-secret\nexport PATH="$PATH:/opt/extra"\n';
    const file = envFile();
    expect(await file.capture('SessionStart startup', hookWriting(text))).toEqual({ result: undefined });
    expect(registered).toEqual(expect.arrayContaining(['first-secret-value', 'second-secret']));
    // Not secret-named: PATH is no secret, NODE_ENV's value no credential.
    expect(registered.some((value) => value.includes('/opt/extra') || value === 'test')).toBe(false);
    expect(file.prelude).toBe(
      text +
        "case ${ACME_API_TOKEN-} in 'first-secret-value') ;; *) ACME_API_TOKEN='first-secret-value' ;; esac\n" +
        "case ${DEPLOY_KEY-} in 'second-secret') ;; *) DEPLOY_KEY='second-secret' ;; esac\n",
    );
  });

  it('registers secret-named variables the file sets without exporting, as every later bash command still sees them', async () => {
    const text =
      'ACME_API_TOKEN="$(printf unexported-secret-1)"\ndeclare ACME_DEPLOY_KEY=declared-secret-2\ndeclare -a LIST=(a b)\nset -u\nread() { :; }\nMODE=plain-mode\n';
    expect(await envFile().capture('SessionStart startup', hookWriting(text))).toEqual({ result: undefined });
    expect(registered).toEqual(expect.arrayContaining(['declared-secret-2', 'unexported-secret-1']));
    expect(registered).not.toContain('plain-mode');
  });

  it('registers every element of a secret-named array or associative array, not only the first', async () => {
    const text = 'ACME_API_TOKENS=(first-secret-1 "$(printf second-secret-2)")\ndeclare -A ACME_SECRETS=([deploy]=assoc-secret-3)\n';
    expect(await envFile().capture('SessionStart startup', hookWriting(text))).toEqual({ result: undefined });
    expect(registered).toEqual(expect.arrayContaining(['first-secret-1', 'second-secret-2', 'assoc-secret-3']));
  });

  it('registers a value with a \\n escape as written too, which is what bash leaves in the variable', async () => {
    // APP_SALT is secret to the dotenv reading only: the run's list of variables does not register it.
    expect(await envFile().capture('SessionStart startup', hookWriting('APP_SALT="first line\\nsecond line"\n'))).toEqual({
      result: undefined,
    });
    expect(registered).toEqual(expect.arrayContaining(['first line\\nsecond line']));
  });

  it(`a file whose run outlasts ${ENV_FILE_EVALUATION_TIMEOUT_MS} ms is not applied, with its plain lines registered and a warning`, async () => {
    const file = envFile();
    await file.capture('SessionStart startup', hookWriting('export NODE_ENV=test\n'));
    const started = Date.now();
    const { problem } = await file.capture('SessionStart compact', hookWriting('export PLAIN_TOKEN=plain-token-value\nsleep 30\n'));
    expect(Date.now() - started).toBeLessThan(ENV_FILE_EVALUATION_TIMEOUT_MS + 5_000);
    expect(problem).toBe(
      `CLAUDE_ENV_FILE not applied: running it to learn its secrets failed (it ran over ${ENV_FILE_EVALUATION_TIMEOUT_MS} ms)`,
    );
    expect(registered).toEqual(['plain-token-value']);
    expect(file.prelude).toBe('export NODE_ENV=test\n');
  }, 20_000);

  it('a file that ends the shell is not applied, with a warning', async () => {
    const file = envFile();
    const { problem } = await file.capture('SessionStart startup', hookWriting('declare -x ACME_API_TOKEN=exit-secret-value\nexit 0\n'));
    expect(problem).toBe('CLAUDE_ENV_FILE not applied: running it to learn its secrets failed (it did not run to its end)');
    expect(file.prelude).toBe('');
  });

  it('what a run writes replaces what the last run for the same key wrote, and comes last', async () => {
    const file = envFile();
    await file.capture('SessionStart startup', hookWriting('export A=start\n'));
    await file.capture('FileChanged /w/.envrc', hookWriting('export B=1\n'));
    await file.capture('FileChanged /w/.env', hookWriting('export C=1\n'));
    for (let i = 2; i <= 30; i++) await file.capture('FileChanged /w/.envrc', hookWriting(`export B=${i}\n`));
    // Every compaction runs SessionStart again: the last one's exports stand for them all.
    for (let i = 1; i <= 3; i++) await file.capture('SessionStart compact', hookWriting(`export D=${i}\n`));
    expect(file.prelude).toBe('export A=start\nexport C=1\nexport B=30\nexport D=3\n');
  });

  it(`an update that would make the prelude over ${MAX_PRELUDE_BYTES} bytes is refused and the prelude kept`, async () => {
    const file = envFile();
    const big = (name: string) => `export ${name}=${'x'.repeat(40 * 1024)}\n`;
    await file.capture('SessionStart startup', hookWriting(big('ONE')));
    await file.capture('FileChanged /w/.envrc', hookWriting(big('TWO')));
    const kept = file.prelude;
    const { problem } = await file.capture('FileChanged /w/.env', hookWriting(big('THREE')));
    expect(problem).toMatch(/^CLAUDE_ENV_FILE not applied: every Bash command would start with \d+ bytes, more than 98304$/);
    expect(file.prelude).toBe(kept);
    // The same file's next change replaces its own part, so it still fits.
    expect((await file.capture('FileChanged /w/.envrc', hookWriting(big('TWO_AGAIN')))).problem).toBeUndefined();
  });

  it('a file that does not parse is not applied: a Bash command would run it with its own text after it', async () => {
    const file = envFile();
    // Left open for the model's `fi; echo "$DEPLOY_TOKEN"` to close.
    const { problem } = await file.capture(
      'SessionStart startup',
      hookWriting('if true; then\nexport DEPLOY_TOKEN="$(printf open-secret-1)"\n'),
    );
    expect(problem).toBe('CLAUDE_ENV_FILE not applied: running it to learn its secrets failed (it did not run to its end)');
    expect(file.prelude).toBe('');
  });

  it('learns the secrets of a file that defines functions and aliases named like the builtins the listing uses', async () => {
    const overrides =
      'builtin() { :; }\ncompgen() { :; }\nprintf() { command printf "%s\\0" "$2"; }\nread() { return 1; }\nunset() { :; }\n' +
      'shopt -s expand_aliases\nalias compgen=true\n';
    expect(
      await envFile().capture('SessionStart startup', hookWriting(`${overrides}ACME_API_TOKEN="$(command printf hidden-secret-2)"\n`)),
    ).toEqual({
      result: undefined,
    });
    expect(registered).toContain('hidden-secret-2');
  });

  it('a file that keeps POSIX mode off (a read-only POSIXLY_CORRECT) is not applied', async () => {
    const file = envFile();
    const { problem } = await file.capture(
      'SessionStart startup',
      hookWriting('readonly POSIXLY_CORRECT=\nexport ACME_API_TOKEN=plain-secret-3\n'),
    );
    expect(problem).toMatch(/^CLAUDE_ENV_FILE not applied: running it to learn its secrets failed/);
    expect(file.prelude).toBe('');
  });

  it("a changed file's hooks writing nothing remove what that file's last change exported", async () => {
    const file = envFile();
    await file.capture('SessionStart startup', hookWriting('export A=start\n'));
    await file.capture('FileChanged /w/.envrc', hookWriting('export DEPLOY_TOKEN=slot-secret-4\n'));
    expect(await file.capture('FileChanged /w/.envrc', hookWriting(''))).toEqual({ result: undefined });
    expect(file.prelude).toBe('export A=start\n');
  });

  it('a secret the file computes anew on each run reaches every command as the value it learned, never an unseen one', async () => {
    const file = envFile();
    expect(await file.capture('SessionStart startup', hookWriting('export ACME_API_TOKEN="fresh-$(date +%s%N)"\n'))).toEqual({
      result: undefined,
    });
    const command = await runProcess({
      command: `${file.prelude}sleep 0.01; printf '%s' "$ACME_API_TOKEN"`,
      shell: resolveShell({ PATH: process.env.PATH }),
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir },
    });
    expect(command.stdout).toMatch(/^fresh-\d+$/);
    expect(registered).toContain(command.stdout);
  });

  it('learns what the file sets without exporting under sh too, where there is no bash', async () => {
    // A PATH without bash: the tool runs /bin/sh, whose listing is `env`.
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(resolveCommand('env'), path.join(bin, 'env'));
    const file = new SessionEnvFile({ addSecretValue: (value) => registered.push(value) }, { env: { PATH: bin, HOME: dir }, cwd: dir });
    expect(await file.capture('SessionStart startup', hookWriting('ACME_API_TOKEN="$(printf sh-unexported-5)"\n'))).toEqual({
      result: undefined,
    });
    expect(registered).toContain('sh-unexported-5');
  });

  it('lists the variables of a file that disables the builtins the listing uses, and refuses one that ends it early', async () => {
    const disabling = 'enable -n compgen printf read\nACME_API_TOKEN="$(command printf disabled-6)"\n';
    expect(await envFile().capture('SessionStart startup', hookWriting(disabling))).toEqual({ result: undefined });
    expect(registered).toContain('disabled-6');
    // An EXIT trap that prints the mark as the listing would, and nothing else.
    const forging = `trap 'printf "%s\\0" "$(printf %s "$BASH_EXECUTION_STRING" | grep -o "hookpilot-env-[0-9a-f-]*" | head -1)"' EXIT\nexit 0\n`;
    const file = envFile();
    const { problem } = await file.capture('SessionStart startup', hookWriting(forging));
    expect(problem).toMatch(/^CLAUDE_ENV_FILE not applied: running it to learn its secrets failed/);
    expect(file.prelude).toBe('');
  });
});
