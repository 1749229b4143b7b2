import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENV_FILE_EVALUATION_TIMEOUT_MS, SessionEnvFile } from '../../src/core/agent/session-env-file';

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
  it('registers the secret-named values the file exports in any shell form, and keeps its text as the prelude', async () => {
    const text =
      'declare -x ACME_API_TOKEN="first-secret-value"\nexport NODE_ENV=test DEPLOY_KEY=second-secret\nexport PATH="$PATH:/opt/extra"\n';
    const file = envFile();
    expect(await file.capture(hookWriting(text))).toEqual({ result: undefined });
    expect(registered).toEqual(expect.arrayContaining(['first-secret-value', 'second-secret']));
    // Not secret-named: PATH is no secret, NODE_ENV's value no credential.
    expect(registered.some((value) => value.includes('/opt/extra') || value === 'test')).toBe(false);
    expect(file.prelude).toBe(text);
  });

  it('registers secret-named variables the file sets without exporting, as every later bash command still sees them', async () => {
    const text =
      'ACME_API_TOKEN="$(printf unexported-secret-1)"\ndeclare ACME_DEPLOY_KEY=declared-secret-2\ndeclare -a LIST=(a b)\nset -u\nread() { :; }\nMODE=plain-mode\n';
    expect(await envFile().capture(hookWriting(text))).toEqual({ result: undefined });
    expect(registered).toEqual(expect.arrayContaining(['declared-secret-2', 'unexported-secret-1']));
    expect(registered).not.toContain('plain-mode');
  });

  it('registers every element of a secret-named array or associative array, not only the first', async () => {
    const text = 'ACME_API_TOKENS=(first-secret-1 "$(printf second-secret-2)")\ndeclare -A ACME_SECRETS=([deploy]=assoc-secret-3)\n';
    expect(await envFile().capture(hookWriting(text))).toEqual({ result: undefined });
    expect(registered).toEqual(expect.arrayContaining(['first-secret-1', 'second-secret-2', 'assoc-secret-3']));
  });

  it('registers a value with a \\n escape as written too, which is what bash leaves in the variable', async () => {
    // APP_SALT is secret to the dotenv reading only: the run's list of variables does not register it.
    expect(await envFile().capture(hookWriting('APP_SALT="first line\\nsecond line"\n'))).toEqual({ result: undefined });
    expect(registered).toEqual(expect.arrayContaining(['first line\\nsecond line']));
  });

  it(`a file whose run outlasts ${ENV_FILE_EVALUATION_TIMEOUT_MS} ms is still applied, with its plain lines registered and a warning`, async () => {
    const text = 'export PLAIN_TOKEN=plain-token-value\nsleep 30\n';
    const file = envFile();
    const started = Date.now();
    const { problem } = await file.capture(hookWriting(text));
    expect(Date.now() - started).toBeLessThan(ENV_FILE_EVALUATION_TIMEOUT_MS + 5_000);
    expect(problem).toBe(
      `CLAUDE_ENV_FILE applied, but only its plain NAME=value lines are redacted: it ran over ${ENV_FILE_EVALUATION_TIMEOUT_MS} ms`,
    );
    expect(registered).toEqual(['plain-token-value']);
    expect(file.prelude).toBe(text);
  }, 20_000);

  it('a file that ends the shell is still applied, with a warning', async () => {
    const { problem } = await envFile().capture(hookWriting('declare -x ACME_API_TOKEN=exit-secret-value\nexit 0\n'));
    expect(problem).toMatch(/only its plain NAME=value lines are redacted: it did not run to its end$/);
  });
});
