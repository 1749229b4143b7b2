import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type RecordedRequest } from '../support/model-server';
import { hooksJson } from '../support/workspace';

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

/** The compaction's summary request, as opposed to a request of the agent or a subagent. */
const isSummaryRequest = (req: RecordedRequest) => String(req.body.messages[0]?.content).startsWith('You compact');
const compacted = (req: RecordedRequest) =>
  req.body.messages.some((m) => String(m.content).includes('Summary of the earlier conversation'));
/** A plan as long as the model likes: its own text pushes the context past the budget. */
const longPlan = (id: string) =>
  toolCalls([{ id, name: 'TodoWrite', arguments: { todos: [{ content: 'z'.repeat(150_000), status: 'completed' }] } }]);

function transcriptRecords(home: string, sessionId: string): Array<{ subtype?: string; message?: { role: string; content: unknown } }> {
  const projects = path.join(home, '.hookpilot', 'projects');
  return readFileSync(path.join(projects, readdirSync(projects)[0], 'transcripts', `${sessionId}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { subtype?: string; message?: { role: string; content: unknown } });
}

describe('compaction, as the model brings it about', () => {
  it('sends the summary request through BeforeLLM: what a hook scrubs from every request, and its model, hold for it', async () => {
    const scrub = nodeHook(
      `const messages = JSON.parse(JSON.stringify(input.llm_request.messages).replace(/CONFIDENTIAL-\\d+/g, '[scrubbed]'));
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'BeforeLLM', llmRequest: { messages, model: 'on-prem-model' } } }));`,
    );
    const files = {
      'data.txt': 'customer ledger CONFIDENTIAL-4471\n',
      'hooks/scrub.js': scrub,
      '.vscode/hooks.json': hooksJson({ BeforeLLM: [{ hooks: [{ type: 'command', command: 'node hooks/scrub.js' }] }] }),
    };
    bed = await startTestbed(bundle.bundle, files, (req) => {
      if (isSummaryRequest(req)) return text('summary of the work');
      if (compacted(req)) return text('done');
      const done = req.body.messages.filter((m) => m.role === 'tool').length;
      return done === 0 ? toolCalls([{ id: 'r1', name: 'Read', arguments: { file_path: 'data.txt' } }]) : longPlan(`t${done}`);
    });
    const r = await bed.run(['summarize the ledger', '--output-format', 'json', '--max-steps', '20'], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(bed.server.requests.some(isSummaryRequest), 'a compaction ran').toBe(true);
    for (const req of bed.server.requests) {
      expect(JSON.stringify(req.body.messages), `request ${req.index}`).not.toContain('CONFIDENTIAL-4471');
      expect(req.body.model, `request ${req.index}`).toBe('on-prem-model');
    }
  }, 180_000);

  it('sends no summary request a BeforeLLM hook blocks, and compacts nothing', async () => {
    const guard = nodeHook(`if (input.step === 0) { process.stderr.write('no summaries off-site'); process.exit(2); }`);
    const files = {
      'hooks/guard.js': guard,
      '.vscode/hooks.json': hooksJson({ BeforeLLM: [{ hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }] }),
    };
    bed = await startTestbed(bundle.bundle, files, (req) => {
      const done = req.body.messages.filter((m) => m.role === 'tool').length;
      return isSummaryRequest(req) ? text('summary') : done < 4 ? longPlan(`t${done}`) : text('done');
    });
    const r = await bed.run(['work', '--output-format', 'json', '--max-steps', '20'], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(bed.server.requests.filter(isSummaryRequest)).toHaveLength(0);
    expect(bed.server.requests.some(compacted)).toBe(false);
    expect(r.stderr).toContain('compaction blocked by BeforeLLM hook');
  }, 180_000);

  it('writes the compact_boundary before SessionStart (source "compact") hooks read the transcript', async () => {
    const start = nodeHook(
      `if (input.source === 'compact') {
  const lines = fs.readFileSync(input.transcript_path, 'utf8').trim().split('\\n');
  fs.writeFileSync('seen.json', JSON.stringify({ boundary: lines.some((l) => JSON.parse(l).subtype === 'compact_boundary') }));
}`,
    );
    const files = {
      'hooks/start.js': start,
      '.vscode/hooks.json': hooksJson({ SessionStart: [{ hooks: [{ type: 'command', command: 'node hooks/start.js' }] }] }),
    };
    bed = await startTestbed(bundle.bundle, files, (req) => {
      if (isSummaryRequest(req)) return text('summary');
      return compacted(req) ? text('done') : longPlan(`t${req.body.messages.filter((m) => m.role === 'tool').length}`);
    });
    const r = await bed.run(['work', '--output-format', 'json', '--max-steps', '20'], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(bed.workspace.file('seen.json'), 'utf8'))).toEqual({ boundary: true });
  }, 180_000);

  it("marks no compact_boundary in the session's transcript when only a subagent's conversation was compacted", async () => {
    bed = await startTestbed(bundle.bundle, {}, (req) => {
      if (isSummaryRequest(req)) return text('summary of the sub-work');
      if (String(req.body.messages[0]?.content).includes('You are a subagent')) {
        return compacted(req) ? text('sub done') : longPlan(`s${req.body.messages.filter((m) => m.role === 'tool').length}`);
      }
      if (req.body.messages.some((m) => m.role === 'tool')) return text('all done');
      return toolCalls([{ id: 'task1', name: 'Task', arguments: { description: 'sub work', prompt: 'do the sub work' } }]);
    });
    const r = await bed.run(['delegate', '--output-format', 'json', '--allowed-tools', 'Task', '--max-steps', '20'], {
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(bed.server.requests.some(isSummaryRequest), 'the subagent was compacted').toBe(true);
    const records = transcriptRecords(bed.home, jsonResult(r).session_id);
    expect(records.filter((rec) => rec.subtype === 'compact_boundary')).toHaveLength(0);
    // The main conversation is written once, not again after a boundary.
    expect(records.filter((rec) => rec.message?.role === 'user' && rec.message.content === 'delegate')).toHaveLength(1);
  }, 180_000);
});
