import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent, toolMessageSent } from '../support/agent-harness';
import { text, toolCalls, type RecordedRequest, type ScriptedReply } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A SessionStart hook for source "compact" writes CLAUDE_ENV_FILE: every later Bash command of
// the session runs after it (docs/hooks.md). A subagent's own compaction runs no SessionStart
// (its hook view drops it), so it must not touch what the session's hook wrote. The model
// triggers one at will: a Task whose subagent reads a large file.

const bash = (id: string, command: string): ScriptedReply => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
type Msg = { role: string; content?: unknown; tool_call_id?: string };
const msgs = (r: RecordedRequest) => r.body.messages as Msg[];
const answered = (r: RecordedRequest, id: string) => msgs(r).some((m) => m.role === 'tool' && m.tool_call_id === id);

function script(r: RecordedRequest): ScriptedReply {
  const system = String(msgs(r)[0]?.content ?? '');
  if (system.startsWith('You compact coding-agent conversations')) return text('summary of earlier work');
  const firstUser = String(msgs(r).find((m) => m.role === 'user')?.content ?? '');
  if (firstUser.startsWith('SUB:')) {
    const steps = ['s1', 's2', 's3', 's4'];
    const next = steps.find((id) => !answered(r, id));
    if (next === 's1') return toolCalls([{ id: 's1', name: 'Read', arguments: { file_path: 'big.txt' } }]);
    if (next) return bash(next, 'true');
    return text('sub done');
  }
  const all = JSON.stringify(msgs(r));
  if (!all.includes('check the guard')) {
    const next = ['w1', 'w2', 'w3', 'w4'].find((id) => !answered(r, id));
    return next ? bash(next, 'true') : text('warmed up');
  }
  if (!answered(r, 'c1')) return bash('c1', 'echo "before:$GUARD"');
  if (!answered(r, 't1'))
    return toolCalls([{ id: 't1', name: 'Task', arguments: { description: 'read it', prompt: 'SUB: read big.txt' } }]);
  if (!answered(r, 'c2')) return bash('c2', 'echo "after:$GUARD"');
  return text('done');
}

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a subagent compaction and the session CLAUDE_ENV_FILE', () => {
  it("keeps what the session's SessionStart(compact) hook exported for later Bash commands", async () => {
    const files = {
      '.vscode/hooks.json': hooksJson({
        SessionStart: [{ matcher: 'compact', hooks: [{ type: 'command', command: `echo 'export GUARD=on' >> "$CLAUDE_ENV_FILE"` }] }],
      }),
      'big.txt': 'lorem ipsum dolor sit amet\n'.repeat(2_000),
    };
    h = await startAgent(files, script, {
      session: {
        permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }),
        contextBudgetTokens: 6_000,
      },
    });
    expect((await h.session.prompt('warm up')).reason).toBe('completed');
    expect(await h.session.compact(null)).toBe(true);
    expect((await h.session.prompt('check the guard')).reason).toBe('completed');
    expect(toolMessageSent(h.server, 'c1')).toBe('before:on');
    // The subagent did compact (its notice), and the main conversation did not compact since.
    expect(h.events.some((e) => e.type === 'notice' && /subagent agent-1: compacted/.test(e.message))).toBe(true);
    expect(h.events.filter((e) => e.type === 'compacted')).toHaveLength(1);
    expect(toolMessageSent(h.server, 'c2')).toBe('after:on');
  });
});
