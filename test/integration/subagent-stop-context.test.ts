import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeHook, useTestbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type RecordedRequest } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// SubagentStop's answer works as Stop's (Claude Code): `additionalContext` alone keeps the
// subagent working, with the context in its next request.

const testbed = useTestbed();

const SUB_PROMPT = 'inspect the repo';
const isSubagent = (req: RecordedRequest) => req.body.messages.some((m) => m.role === 'user' && m.content === SUB_PROMPT);

function script(req: RecordedRequest) {
  if (isSubagent(req)) return text('sub-answer');
  if (req.body.messages.some((m) => m.role === 'tool')) return text('done');
  return toolCalls([{ id: 'task1', name: 'Task', arguments: { description: 'inspect', prompt: SUB_PROMPT } }]);
}

const subagentStopHook = nodeHook(`
fs.appendFileSync('substop.jsonl', JSON.stringify(input) + '\\n');
if (!input.stop_hook_active) process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'SubagentStop', additionalContext: 'KEEP-GOING-CHECK-TESTS' } }));
`);

async function runOnce() {
  const bed = await testbed(
    {
      'hooks/substop.js': subagentStopHook,
      '.vscode/hooks.json': hooksJson({ SubagentStop: [{ hooks: [{ type: 'command', command: 'node hooks/substop.js' }] }] }),
    },
    script,
  );
  const r = await bed.run(['go'], { timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  const payloads = readFileSync(bed.workspace.file('substop.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { bed, payloads };
}

describe('SubagentStop', () => {
  it("sends agent_transcript_path: the subagent's own conversation, in a folder named after the session's transcript", async () => {
    const { payloads } = await runOnce();
    const first = payloads[0] as { agent_transcript_path?: string; transcript_path: string; agent_id: string };
    expect(first.agent_transcript_path).toBe(
      path.join(
        path.dirname(first.transcript_path),
        path.basename(first.transcript_path, '.jsonl'),
        'subagents',
        `${first.agent_id}.jsonl`,
      ),
    );
    const lines = readFileSync(first.agent_transcript_path!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; message: { content: string } });
    // What the first SubagentStop read, then what the context it added kept going.
    expect(lines.map((l) => l.type)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(lines.slice(0, 2).map((l) => l.message.content)).toEqual([SUB_PROMPT, 'sub-answer']);
    expect(lines[2].message.content).toContain('KEEP-GOING-CHECK-TESTS');
  }, 90_000);

  it('keeps the subagent working on additionalContext alone, as Stop does', async () => {
    const { bed, payloads } = await runOnce();
    // The context reached the subagent's next model request, and SubagentStop fired again.
    const subRequests = bed.server.requests.filter(isSubagent);
    expect(subRequests.some((q) => JSON.stringify(q.body.messages).includes('KEEP-GOING-CHECK-TESTS'))).toBe(true);
    expect(payloads.length).toBe(2);
    expect(payloads[1].stop_hook_active).toBe(true);
  }, 90_000);
});
