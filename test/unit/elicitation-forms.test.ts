import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { TerminalApprover } from '../../src/cli/terminal-approver';
import { TerminalElicitor } from '../../src/cli/terminal-elicitor';
import {
  elicitationContentProblem,
  elicitationFields,
  isCredentialField,
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
    'passcode',
    'otp',
    'totpCode',
    'pin',
    'seedPhrase',
    'recoveryCode',
    'cvv',
    'privateKey',
    'apiKey',
  ])('is %s', (name) => {
    expect(isCredentialField({ name })).toBe(true);
  });

  it('is a field whose title names a credential, whatever its name', () => {
    expect(isCredentialField({ name: 'value', title: 'GitHub token (session expired)' })).toBe(true);
    expect(isCredentialField({ name: 'answer', title: 'One-time passcode' })).toBe(true);
  });

  it.each(['environment', 'replicas', 'accessKeyId', 'keyPath', 'pinned', 'spinner', 'seedling', 'tokenizerName', 'username'])(
    'is not %s',
    (name) => {
      expect(isCredentialField({ name })).toBe(false);
    },
  );
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
