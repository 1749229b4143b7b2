import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A server's tool asks the client for input mid-call (MCP elicitation, form mode) and answers
// with what it got: the session's Elicitation hooks answer, or no one (the run has no terminal).

const SERVER = path.join(REPO_ROOT, 'test/fixtures/mcp/elicit-server.mjs');
const MCP = JSON.stringify({ mcpServers: { deploy: { command: process.execPath, args: [SERVER] } } });
const answer = (event: 'Elicitation' | 'ElicitationResult', fields: Record<string, unknown>) =>
  `echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: event, ...fields } })}'`;

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

async function deployWith(hooks: Record<string, unknown>, tool = 'deploy'): Promise<{ sent: unknown; stderr: string }> {
  const script = [toolCalls([{ id: 'd1', name: `mcp__deploy__${tool}`, arguments: {} }]), text('done')];
  bed = await startTestbed(bundle.bundle, { '.mcp.json': MCP, '.vscode/hooks.json': hooksJson(hooks) }, script);
  const run = await bed.run(['deploy it', '--allowed-tools', 'mcp__deploy'], { timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  const sent = toolMessageSent(bed.server, 'd1') ?? '';
  return { sent: JSON.parse(sent.slice(sent.search(/[[{]/))) as unknown, stderr: run.stderr };
}

describe('MCP elicitation in a run', () => {
  it("an Elicitation hook answers the server's form for the person, matched by the server's name", async () => {
    const { sent } = await deployWith({
      Elicitation: [
        {
          matcher: 'deploy',
          hooks: [{ type: 'command', command: answer('Elicitation', { action: 'accept', content: { environment: 'staging' } }) }],
        },
        { matcher: 'other', hooks: [{ type: 'command', command: 'exit 2' }] },
      ],
    });
    expect(sent).toEqual({ action: 'accept', content: { environment: 'staging' } });
  }, 90_000);

  it('with no hook answering and no terminal to ask, the request is declined and the run says so', async () => {
    const { sent, stderr } = await deployWith({});
    expect(sent).toEqual({ action: 'decline' });
    expect(stderr).toContain('MCP server "deploy" asked for input');
    expect(stderr).toContain('no one to ask');
  }, 90_000);

  it('an Elicitation hook that exits 2 declines it', async () => {
    const { sent } = await deployWith({ Elicitation: [{ hooks: [{ type: 'command', command: 'echo "not in CI" >&2; exit 2' }] }] });
    expect(sent).toEqual({ action: 'decline' });
  }, 90_000);

  it('an answer that does not fit the form is declined, whoever gave it', async () => {
    const { sent, stderr } = await deployWith({
      Elicitation: [
        { hooks: [{ type: 'command', command: answer('Elicitation', { action: 'accept', content: { environment: 'the-moon' } }) }] },
      ],
    });
    expect(sent).toEqual({ action: 'decline' });
    expect(stderr).toContain('"environment" is not one of staging, production');
  }, 90_000);

  it('an ElicitationResult hook sees the answer and may change it before it is sent', async () => {
    const accept = answer('Elicitation', { action: 'accept', content: { environment: 'production' } });
    const downgrade = `cat > result-payload.json; ${answer('ElicitationResult', { content: { environment: 'staging' } })}`;
    const { sent } = await deployWith({
      Elicitation: [{ hooks: [{ type: 'command', command: accept }] }],
      ElicitationResult: [{ hooks: [{ type: 'command', command: downgrade }] }],
    });
    expect(sent).toEqual({ action: 'accept', content: { environment: 'staging' } });
    const payload = JSON.parse(readFileSync(bed!.workspace.file('result-payload.json'), 'utf8')) as Record<string, unknown>;
    expect(payload).toMatchObject({ mcp_server_name: 'deploy', action: 'accept', mode: 'form', content: { environment: 'production' } });
  }, 90_000);

  it.each(['api_token', 'secretAccessKey'])(
    'a value given for a field named like a credential (%s) reaches the server but never the model',
    async (field) => {
      const token = 'dpl_9f8e7d6c5b4a39281706';
      const { sent } = await deployWith({
        Elicitation: [
          {
            hooks: [
              {
                type: 'command',
                command: answer('Elicitation', { action: 'accept', content: { environment: 'staging', [field]: token } }),
              },
            ],
          },
        ],
      });
      // The server echoes what it got; the model reads that through the redactor.
      expect(JSON.stringify(sent)).not.toContain(token);
      expect((sent as { content: Record<string, string> }).content[field]).toMatch(/REDACTED/);
    },
    90_000,
  );

  it("a short credential answered for the server's form (a PIN) withholds that server's results while its call runs, and only then", async () => {
    const accept = answer('Elicitation', { action: 'accept', content: { environment: 'staging', pin: '4821', backup_code: 83920175 } });
    const script = [
      toolCalls([{ id: 'd1', name: 'mcp__deploy__deploy', arguments: {} }]),
      toolCalls([{ id: 'e1', name: 'mcp__deploy__echo', arguments: { text: 'build 4821 is live' } }]),
      text('done'),
    ];
    bed = await startTestbed(
      bundle.bundle,
      { '.mcp.json': MCP, '.vscode/hooks.json': hooksJson({ Elicitation: [{ hooks: [{ type: 'command', command: accept }] }] }) },
      script,
    );
    const run = await bed.run(['deploy it', '--allowed-tools', 'mcp__deploy'], { timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    // The server echoes what it got: the PIN is too short for the session's redactor, so none of it is shown.
    expect(toolMessageSent(bed.server, 'd1')).toMatch(/^\[result withheld: the server was given a PIN or code too short to redact/);
    // Once the call has ended, the same four digits elsewhere are just digits.
    expect(toolMessageSent(bed.server, 'e1')).toBe('build 4821 is live');
  }, 90_000);

  it("a server's many requests at once: at most 4 wait, the rest are declined, and the hooks answer them one at a time", async () => {
    // Notes when it starts and ends; a run that overlapped another would show two starts in a row.
    const hook = 'echo start >> runs.log; sleep 0.3; echo end >> runs.log; exit 2';
    const { sent, stderr } = await deployWith({ Elicitation: [{ hooks: [{ type: 'command', command: hook }] }] }, 'flood');
    expect(sent).toEqual(Array.from({ length: 30 }, () => 'decline'));
    expect(readFileSync(bed!.workspace.file('runs.log'), 'utf8')).toBe('start\nend\n'.repeat(4));
    expect(stderr).toContain('[mcp] deploy: a request for input was declined: 4 of its requests already wait');
  }, 90_000);

  it('a request still waiting when the call that asked has ended is cancelled, not shown later', async () => {
    // Takes a while over each form: the call has returned before the first is answered.
    const hook = 'echo asked >> asked.log; sleep 2; exit 2';
    const script = [
      toolCalls([{ id: 'l1', name: 'mcp__deploy__late', arguments: {} }]),
      toolCalls([{ id: 'l2', name: 'mcp__deploy__late_answers', arguments: {} }]),
      text('done'),
    ];
    bed = await startTestbed(
      bundle.bundle,
      { '.mcp.json': MCP, '.vscode/hooks.json': hooksJson({ Elicitation: [{ hooks: [{ type: 'command', command: hook }] }] }) },
      script,
    );
    const run = await bed.run(['go', '--allowed-tools', 'mcp__deploy'], { timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(toolMessageSent(bed.server, 'l2')).toBe('["cancel","cancel"]');
    // The second form never reached anyone.
    const asked = existsSync(bed.workspace.file('asked.log')) ? readFileSync(bed.workspace.file('asked.log'), 'utf8') : '';
    expect(asked.length).toBeLessThanOrEqual('asked\n'.length);
  }, 90_000);

  it('a request for input while no call of its tools runs is declined without asking anyone', async () => {
    const { sent, stderr } = await deployWith(
      { Elicitation: [{ hooks: [{ type: 'command', command: 'echo asked >> asked.log' }] }] },
      'unprompted',
    );
    expect(sent).toEqual({ action: 'decline' });
    expect(stderr).toContain('[mcp] deploy: a request for input was declined: no call of its tools is running');
    expect(existsSync(bed!.workspace.file('asked.log'))).toBe(false);
  }, 90_000);
});
