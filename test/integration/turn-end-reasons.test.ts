import { mkdirSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/core/agent/agent-events';
import type { PayloadOf } from '../../src/core/hooks/payloads';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { stall, status, text, toolCalls, type ScriptedReply } from '../support/model-server';
import { hooksJson } from '../support/workspace';

const bypass = { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) };
const glob = (id: string) => toolCalls([{ id, name: 'Glob', arguments: { pattern: '*' } }]);
const hookCmd = (command: string) => [{ hooks: [{ type: 'command', command }] }];

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Starts an agent whose TurnEnd payloads are collected by an in-process hook. */
async function agentWithTurnEnds(files: Record<string, string>, script: ScriptedReply[] | Parameters<typeof startAgent>[1], session = {}) {
  h = await startAgent(files, script, { session: { ...bypass, ...session } });
  const ends: PayloadOf<'TurnEnd'>[] = [];
  h.engine.addInProcessHook({ name: 'turn-end-probe', onTurnEnd: (p) => void ends.push(p) });
  return { h, ends };
}

const turnEnded = (events: AgentEvent[]) => events.filter((e) => e.type === 'turn_ended');

describe('TurnEnd fires once on every end of a turn, with its reason', () => {
  it('completed', async () => {
    const { h, ends } = await agentWithTurnEnds({}, [glob('g1'), text('done')]);
    expect((await h.session.prompt('go')).reason).toBe('completed');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'completed', steps: 2, tool_calls: 1, last_assistant_message: 'done' });
  });

  it('error: the model API fails', async () => {
    const { h, ends } = await agentWithTurnEnds({}, [status(500, { error: { message: 'boom' } })]);
    expect((await h.session.prompt('go')).reason).toBe('error');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'error' });
    expect(ends[0].error).toBeTruthy();
  });

  it('error: an internal failure inside the loop (the transcript cannot be written) still ends the turn', async () => {
    const { h, ends } = await agentWithTurnEnds({}, [glob('g1'), text('done')]);
    const transcript = h.session.hooks.identity.transcriptPath;
    rmSync(transcript);
    mkdirSync(transcript);
    const outcome = await h.session.prompt('go').finally(() => rmSync(transcript, { recursive: true }));
    expect(outcome).toMatchObject({ reason: 'error', error: expect.stringMatching(/EISDIR|illegal operation/) });
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'error', error: outcome.error });
    expect(turnEnded(h.events)).toEqual([expect.objectContaining({ reason: 'error' })]);
  });

  it('cancelled: interrupted while the model answers', async () => {
    const { h, ends } = await agentWithTurnEnds({}, [stall(1)]);
    const controller = new AbortController();
    const running = h.session.prompt('go', controller.signal);
    await vi.waitFor(() => expect(h.server.requests).toHaveLength(1));
    controller.abort();
    expect((await running).reason).toBe('cancelled');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'cancelled' });
  });

  it('cancelled: interrupted during a compaction (which throws) still ends the turn', async () => {
    const controller = new AbortController();
    const script = (req: { body: { messages: Array<{ content?: unknown }> } }, i: number) => {
      if (String(req.body.messages[0].content).startsWith('You compact')) {
        controller.abort();
        return stall(0);
      }
      return glob(`g${i}`);
    };
    const { h, ends } = await agentWithTurnEnds({}, script, { contextBudgetTokens: 10 });
    const outcome = await h.session.prompt('go', controller.signal);
    expect(outcome.reason).toBe('cancelled');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'cancelled' });
    expect(turnEnded(h.events)).toEqual([expect.objectContaining({ reason: 'cancelled' })]);
  });

  it('max_steps', async () => {
    const { h, ends } = await agentWithTurnEnds({}, [glob('g1'), glob('g2')], { maxSteps: 1 });
    expect((await h.session.prompt('go')).reason).toBe('max_steps');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'max_steps', steps: 1, tool_calls: 1 });
  });

  it('stopped: a PreToolUse hook says continue: false', async () => {
    const cfg = hooksJson({ PreToolUse: hookCmd(`echo '{"continue":false,"stopReason":"enough"}'`) });
    const { h, ends } = await agentWithTurnEnds({ '.vscode/hooks.json': cfg }, [glob('g1'), text('never')]);
    expect((await h.session.prompt('go')).reason).toBe('stopped');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'stopped', steps: 1 });
  });

  it('stopped: SessionStart said continue: false, so the prompt never runs', async () => {
    const cfg = hooksJson({ SessionStart: hookCmd(`echo '{"continue":false}'`) });
    const { h, ends } = await agentWithTurnEnds({ '.vscode/hooks.json': cfg }, [text('never')]);
    expect((await h.session.prompt('go')).reason).toBe('stopped');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'stopped', steps: 0, tool_calls: 0 });
    expect(h.server.requests).toHaveLength(0);
  });

  it('blocked: a UserPromptSubmit hook blocks the prompt', async () => {
    const cfg = hooksJson({ UserPromptSubmit: hookCmd('echo no >&2; exit 2') });
    const { h, ends } = await agentWithTurnEnds({ '.vscode/hooks.json': cfg }, [text('never')]);
    expect((await h.session.prompt('go')).reason).toBe('blocked');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'blocked', steps: 0, error: 'no' });
  });

  it('aborted: a BeforeLLM hook aborts the turn', async () => {
    const cfg = hooksJson({ BeforeLLM: hookCmd(`echo '{"hookSpecificOutput":{"hookEventName":"BeforeLLM","abort":"turn"}}'`) });
    const { h, ends } = await agentWithTurnEnds({ '.vscode/hooks.json': cfg }, [text('never')]);
    expect((await h.session.prompt('go')).reason).toBe('aborted');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(ends[0]).toMatchObject({ reason: 'aborted' });
  });
});
