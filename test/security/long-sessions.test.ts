import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type RecordedRequest } from '../support/model-server';

// Long sessions at constant cost must not open a way around the guards: the Bash tool's
// shells are started ahead of need (in the spawner helper), and the audit log keeps only
// what each model request added. The model tries to reach a secret through both.

const SECRET_ENV = { HOOKPILOT_API_KEY: 'hp-api-key-5d4c3b2a1f', GITHUB_TOKEN: 'gh-token-9f8e7d6c5b' };
const STEPS = 12;

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** Bash calls until the conversation holds STEPS results: each reads its shell's start environment. */
function probing(request: RecordedRequest) {
  const done = request.body.messages.filter((m) => m.role === 'tool').length;
  if (done >= STEPS) return text('done');
  // Names are not redacted: a count of 0 says the variable is not there at all.
  const command = `echo "start-env: $(tr '\\0' '\\n' </proc/$$/environ | grep -c -e '^GITHUB_TOKEN=' -e '^HOOKPILOT_API_KEY=') of $(tr '\\0' '\\n' </proc/$$/environ | grep -c '^PATH=')"`;
  return toolCalls([{ id: `c${done + 1}`, name: 'Bash', arguments: { command } }]);
}

describe('long sessions, as the model attacks them', () => {
  it('no shell started ahead of need holds a secret in its start environment, call after call', async () => {
    bed = await startTestbed(bundle.bundle, {}, probing);
    const r = await bed.run(['probe', '--output-format', 'json', '--allowed-tools', 'Bash', '--max-steps', String(STEPS + 2)], {
      env: SECRET_ENV,
    });
    expect(r.code, r.stderr).toBe(0);
    for (let i = 1; i <= STEPS; i++) expect(toolMessageSent(bed.server, `c${i}`)).toBe('start-env: 0 of 1');
  });

  it('the audit log keeps only what each request added, without secrets, and timeline --json rebuilds every request', async () => {
    const leak = (request: RecordedRequest) => {
      const done = request.body.messages.filter((m) => m.role === 'tool').length;
      // The parent of the shell (the spawner helper, or the CLI) was started with the secrets.
      return done < STEPS
        ? toolCalls([
            { id: `c${done + 1}`, name: 'Bash', arguments: { command: "tr '\\0' '\\n' </proc/$PPID/environ | grep -e TOKEN -e KEY" } },
          ])
        : text('done');
    };
    bed = await startTestbed(bundle.bundle, {}, leak);
    const r = await bed.run(['leak', '--output-format', 'json', '--allowed-tools', 'Bash', '--max-steps', String(STEPS + 2)], {
      env: SECRET_ENV,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(toolMessageSent(bed.server, 'c1')).toContain('GITHUB_TOKEN=[REDACTED:secret_value]');
    const log = readFileSync(jsonResult(r).audit_log, 'utf8');
    for (const secret of Object.values(SECRET_ENV)) expect(log).not.toContain(secret);

    // Every request's record names only the messages after its base, never the whole history.
    const requests = log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; event?: string; payload?: { llm_request?: Record<string, unknown> } })
      .filter((rec) => rec.type === 'event' && rec.event === 'BeforeLLM')
      .map((rec) => rec.payload?.llm_request ?? {});
    expect(requests).toHaveLength(STEPS + 1);
    for (const request of requests.slice(1)) {
      expect(request.messages).toBeUndefined();
      expect((request.messages_delta as { added: unknown[] }).added.length).toBeLessThanOrEqual(3);
    }

    const timeline = await bed.cli(['timeline', jsonResult(r).session_id, '--json']);
    expect(timeline.code, timeline.stderr).toBe(0);
    for (const secret of Object.values(SECRET_ENV)) expect(timeline.stdout).not.toContain(secret);
    const rebuilt = (
      JSON.parse(timeline.stdout) as {
        records: Array<{ type: string; event?: string; payload?: { llm_request?: { messages?: unknown[] } } }>;
      }
    ).records
      .filter((rec) => rec.type === 'event' && rec.event === 'BeforeLLM')
      .map((rec) => rec.payload?.llm_request?.messages?.length);
    // What the model was sent, request by request (the server saw the same conversation, redacted).
    expect(rebuilt).toEqual(bed.server.requests.map((req) => req.body.messages.length));
  });
});
