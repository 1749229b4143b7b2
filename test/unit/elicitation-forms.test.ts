import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { TerminalApprover } from '../../src/cli/terminal-approver';
import { TerminalElicitor } from '../../src/cli/terminal-elicitor';
import { answerElicitation } from '../../src/core/agent/elicitation-hooks';
import type { SessionHooks } from '../../src/core/agent/session-hooks';
import { Redactor } from '../../src/core/audit/redactor';
import { CallElicitations } from '../../src/core/mcp/call-elicitations';
import { isCredentialField } from '../../src/core/mcp/credential-field';
import {
  credentialValues,
  elicitationContentProblem,
  elicitationFields,
  isTypedCredential,
  type ElicitationRequest,
} from '../../src/core/mcp/elicitation-content';

const schema = {
  type: 'object',
  properties: {
    environment: { type: 'string', title: 'Environment', enum: ['staging', 'production'] },
    replicas: { type: 'integer', minimum: 1, maximum: 5 },
    notify: { type: 'boolean' },
    teams: { type: 'array', items: { type: 'string', enum: ['web', 'api'] } },
    region: { type: 'string', oneOf: [{ const: 'eu', title: 'Europe' }] },
    note: { type: 'string', maxLength: 5 },
    nested: { type: 'object' },
  },
  required: ['environment'],
};

describe("an answer to an MCP server's form", () => {
  it('fits when each value has its field type, choices and bounds, and every required field is there', () => {
    expect(
      elicitationContentProblem(schema, { environment: 'staging', replicas: 3, notify: true, teams: ['web'], region: 'eu' }),
    ).toBeUndefined();
    expect(elicitationContentProblem(schema, { replicas: 3 })).toBe('"environment" is required');
    expect(elicitationContentProblem(schema, { environment: 'moon' })).toBe('"environment" is not one of staging, production');
    expect(elicitationContentProblem(schema, { environment: 'staging', replicas: 2.5 })).toBe('"replicas" is not an integer');
    expect(elicitationContentProblem(schema, { environment: 'staging', replicas: 9 })).toBe('"replicas" is out of range');
    expect(elicitationContentProblem(schema, { environment: 'staging', notify: 'yes' })).toBe('"notify" is not true or false');
    expect(elicitationContentProblem(schema, { environment: 'staging', teams: ['db'] })).toBe('"teams" holds a value not among web, api');
    expect(elicitationContentProblem(schema, { environment: 'staging', note: 'too long' })).toBe('"note" has the wrong length');
    expect(elicitationContentProblem(schema, { environment: 'staging', extra: 1 })).toBe('"extra" is not a field of the form');
  });

  it('reads only the field types the specification allows: an object field is none', () => {
    expect(elicitationFields(schema).map((field) => field.name)).toEqual(['environment', 'replicas', 'notify', 'teams', 'region', 'note']);
    expect(elicitationContentProblem(schema, { environment: 'staging', nested: {} })).toBe('"nested" is not a field of the form');
  });
});

describe('a credential field of a form', () => {
  it.each([
    'api_token',
    'secretAccessKey',
    'clientSecret',
    'client-secret',
    'password',
    'dbPassword',
    'pwd',
    'passwort',
    'passcode',
    'otp',
    'totpCode',
    'pin',
    'seedPhrase',
    'recoveryCode',
    'backupCode',
    'twoFactorCode',
    'oneTimeCode',
    'authCode',
    'smsCode',
    'cvv',
    'cardNumber',
    'securityAnswer',
    'privateKey',
    'apiKey',
    'APIKey',
    'licenseKey',
    'authorization',
    'jwt',
    'bearer',
  ])('is %s', (name) => {
    expect(isCredentialField({ name })).toBe(true);
  });

  it.each([
    ['value', 'GitHub token (session expired)'],
    ['answer', 'One-time passcode'],
    ['value', 'Authorization header'],
    ['code', '2FA code'],
    ['password', 'Password (min length 8)'],
  ])('is a field whose title names a credential, whatever its name: %s, "%s"', (name, title) => {
    expect(isCredentialField({ name, title })).toBe(true);
  });

  it.each([
    ['code', 'The 6-digit code from your authenticator app'],
    ['value', 'Your GitHub personal access token'],
    ['answer', 'The one-time code we sent you'],
  ])('is a field whose description asks for a credential in so many words: %s, "%s"', (name, description) => {
    expect(isCredentialField({ name, description })).toBe(true);
  });

  it.each([
    ['code', 'The discount code printed on your receipt'],
    ['key', 'Key of the setting to change'],
    ['scopes', 'Scopes of the access token, comma-separated'],
    ['retries', 'Tries one time more on failure'],
    // The name says it names a secret: the description does not make it hold one.
    ['secretName', 'Name of the secret key in the vault'],
  ])('is not a field whose description only mentions a credential by the way: %s, "%s"', (name, description) => {
    expect(isCredentialField({ name, description })).toBe(false);
  });

  it.each([
    'environment',
    'replicas',
    'accessKeyId',
    'keyPath',
    'pinned',
    'spinner',
    'seedling',
    'tokenizerName',
    'username',
    'sortKey',
    'partitionKey',
    'primaryKey',
    'secretName',
    'secretArn',
    'tokenName',
    'seed_url',
    'recovery_email',
    'pin_version',
    'passwordHint',
    'maxTokens',
    'zipCode',
  ])('is not %s', (name) => {
    expect(isCredentialField({ name })).toBe(false);
  });

  it.each([
    ['issueKey', 'Issue key'],
    ['seed', 'Random seed'],
    ['secretName', 'Secret name'],
    ['tokenType', 'Token type'],
    ['label', 'Name for the token'],
  ])('is not %s, "%s"', (name, title) => {
    expect(isCredentialField({ name, title })).toBe(false);
  });

  it('is typed unseen when it takes text or a number, not when it is a choice or yes/no', () => {
    const fields = elicitationFields({
      type: 'object',
      properties: {
        pin: { type: 'integer' },
        recovery_code: { type: 'number', title: 'Recovery code' },
        otp: { type: 'string' },
        mfa: { type: 'boolean' },
        replicas: { type: 'integer' },
      },
    });
    expect(fields.filter(isTypedCredential).map((field) => field.name)).toEqual(['pin', 'recovery_code', 'otp']);
  });

  it('gives its value, as text, to what keeps it from the model: numbers and list items too, a yes/no never', () => {
    const form = {
      type: 'object',
      properties: {
        environment: { type: 'string' },
        recovery_code: { type: 'integer', title: 'Recovery code' },
        backupCodes: { type: 'array', items: { type: 'string' } },
        mfa: { type: 'boolean' },
        pin: { type: 'string' },
      },
    };
    const content = { environment: 'production', recovery_code: 83920175, backupCodes: ['a1b2c3', 'd4e5f6'], mfa: true, pin: '4821' };
    expect(credentialValues(form, content)).toEqual(['83920175', 'a1b2c3', 'd4e5f6', '4821']);
  });
});

describe('an answer to a credential field', () => {
  const hooks = {
    dispatch: async () => ({ systemMessages: [], warnings: [], blocked: false, blockingErrors: [] }),
  } as unknown as SessionHooks;

  it('(an integer recovery code) is registered with the redactor as text, so the model never reads it', async () => {
    const redactor = new Redactor();
    const request: ElicitationRequest = {
      server: 'bank',
      mode: 'form',
      message: 'Enter one of your recovery codes',
      requestedSchema: { type: 'object', properties: { recovery_code: { type: 'integer', title: 'Recovery code' } } },
    };
    const person = { ask: async () => ({ action: 'accept' as const, content: { recovery_code: 83920175 } }) };
    const answer = await answerElicitation(
      { hooks, person, secrets: redactor, notices: () => undefined },
      request,
      new AbortController().signal,
    );
    expect(answer).toEqual({ action: 'accept', content: { recovery_code: 83920175 } });
    expect(redactor.redactForModel('accepted recovery code 83920175')).not.toContain('83920175');
  });

  it("(a short one) withholds the server's results whole while its calls run, whatever they hold, then no more", async () => {
    const elicitations = new CallElicitations('bank', () => undefined);
    const form = {
      method: 'elicitation/create' as const,
      params: {
        mode: 'form' as const,
        message: 'PIN?',
        requestedSchema: { type: 'object' as const, properties: { pin: { type: 'string' as const } } },
      },
    };
    const result = { content: [{ type: 'text' as const, text: 'memo 0000 0001 … 4821 … 9999' }] };
    elicitations.callStarted();
    expect(elicitations.shown(result)).toBe(result);
    const answered = await elicitations.answer(
      async () => ({ action: 'accept', content: { pin: '4821' } }),
      form,
      new AbortController().signal,
    );
    expect(answered).toEqual({ action: 'accept', content: { pin: '4821' } });
    // Withheld without looking at what it holds: where a value was hidden would tell it.
    expect(JSON.stringify(elicitations.shown(result))).toMatch(/^\{"content":\[\{"type":"text","text":"\[result withheld: [^"]*\]"\}\]\}$/);
    expect(JSON.stringify(elicitations.shown({ content: [] }))).toContain('result withheld');
    expect(String(elicitations.shownError(new Error('bad pin 4821')))).not.toContain('4821');
    elicitations.callEnded();
    expect(elicitations.shown(result)).toBe(result);
  });
});

describe('TerminalElicitor', () => {
  const request: ElicitationRequest = { server: 'deploy', message: 'Where to?\u001b[2J', mode: 'form', requestedSchema: schema };

  function terminal() {
    const input = new PassThrough();
    const written: string[] = [];
    const output = { write: (text: string) => void written.push(text) };
    const approver = new TerminalApprover(input, output);
    return { input, written, elicitor: new TerminalElicitor(approver, output), dispose: () => approver.dispose() };
  }

  /** Types each line once the question before it is shown. */
  async function type(t: ReturnType<typeof terminal>, lines: string[]): Promise<void> {
    for (const line of lines) {
      const shown = t.written.length;
      await vi.waitFor(() => expect(t.written.length).toBeGreaterThan(shown));
      t.input.write(`${line}\n`);
    }
  }

  it("shows the server's message escaped, asks each field until its value fits, and skips an optional one on Enter", async () => {
    const t = terminal();
    const answered = t.elicitor.ask(request, new AbortController().signal);
    await type(t, ['a', 'moon', 'production', 'x', '9', '2', 'yes', 'web, api', '', '']);
    await expect(answered).resolves.toEqual({
      action: 'accept',
      content: { environment: 'production', replicas: 2, notify: true, teams: ['web', 'api'] },
    });
    const shown = t.written.join('');
    expect(shown).toContain('MCP server "deploy" asks for input');
    expect(shown).not.toContain('\u001b');
    expect(shown).toContain('That is not one of staging, production.');
    expect(shown).toContain('That is not an integer.');
    t.dispose();
  });

  it('declines on [d], and cancels at the end of input', async () => {
    const declining = terminal();
    const declined = declining.elicitor.ask(request, new AbortController().signal);
    await type(declining, ['d']);
    await expect(declined).resolves.toEqual({ action: 'decline' });
    declining.dispose();

    const ending = terminal();
    const ended = ending.elicitor.ask(request, new AbortController().signal);
    await vi.waitFor(() => expect(ending.written.length).toBeGreaterThan(0));
    ending.input.end();
    await expect(ended).resolves.toEqual({ action: 'cancel' });
  });
});
